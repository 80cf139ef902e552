package connector

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/connector/pgcdc"
)

// openPostgresCDC opens a postgres-cdc source: the changes of one
// upstream table, in one split.
func openPostgresCDC(cols []Column, opts map[string]string, created time.Time) (*Source, error) {
	if err := checkKeys("postgres-cdc", opts, pgcdc.Keys...); err != nil {
		return nil, err
	}
	cfg, resolved, err := pgcdc.ParseOptions(opts, created)
	if err != nil {
		return nil, err
	}
	pcols := make([]pgcdc.Column, len(cols))
	names := make([]string, len(cols))
	for i, c := range cols {
		pcols[i], names[i] = pgcdc.Column{Name: c.Name, Type: c.Type}, c.Name
	}
	return &Source{Options: resolved, Splits: 1, Width: len(cols), Keyed: true,
		Check:    func(ctx context.Context) error { return pgcdc.Check(ctx, cfg, names) },
		Release:  func(ctx context.Context) error { return pgcdc.Release(ctx, cfg) },
		newSplit: func(int) Split { return pgcdc.NewSplit(cfg, pcols) }}, nil
}
