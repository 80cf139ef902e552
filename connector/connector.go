// Package connector opens the source connectors streamdb ships, nexmark,
// datagen, kafka and postgres-cdc, from a source's columns and WITH
// options: it validates them and hands out the splits the streaming
// runtime reads. Errors are *pgerror.Error naming the option or column at
// fault.
package connector

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/connector/datagen"
	"github.com/streamdb/streamdb/connector/kafka"
	"github.com/streamdb/streamdb/connector/nexmark"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// option is the WITH option naming a source's connector.
const option = "connector"

// Column is a visible column of a source (the hidden row id excluded).
type Column struct {
	Name string
	Type types.T
	// Key marks a primary key column of a table.
	Key bool
}

// Split generates the rows of one split of a source, in offset order
// (nexmark.Split and datagen.Split).
type Split interface {
	// Next writes the next rows into the caller's rows and returns how
	// many; 0 once Done.
	Next(rows [][]types.Datum) int
	// Offset is the position of the next row, the value to checkpoint.
	Offset() int64
	// SetOffset resumes at a checkpointed offset.
	SetOffset(offset int64)
	// Done reports whether the split has no more rows.
	Done() bool
	// Pace is how long after the last SetOffset the rows generated since
	// may be emitted; negative for a live split (dataflow.SplitReader).
	Pace() time.Duration
}

// Source is a validated connector configuration.
type Source struct {
	// Options are the WITH options with the split count made explicit:
	// opening them again (at a restart) gives the same splits.
	Options map[string]string
	// Splits is the number of splits.
	Splits int
	// Width is the number of columns of a split's rows.
	Width int
	// Keyed: the splits' rows are changes by the primary key of the
	// columns, read in the background (pgcdc.Split, a
	// dataflow.ChangeReader).
	Keyed bool
	// Check, if set, verifies the external system the source reads.
	Check func(ctx context.Context) error
	// Release, if set, drops what the source created in the external
	// system, once its job stopped for good (the relation was dropped).
	Release  func(ctx context.Context) error
	newSplit func(split int) Split
	// newSplits, if set, opens splits read together (sharing a
	// connection); else they are opened one by one with newSplit.
	newSplits func(splits []int) []Split
}

// NewSplit returns split number split (0 <= split < Splits) positioned at
// its first row.
func (s *Source) NewSplit(split int) Split { return s.NewSplits([]int{split})[0] }

// NewSplits returns the splits numbered splits, positioned at their first
// rows, for one reader: a split that holds a connection is an io.Closer,
// which the reader closes once done with it.
func (s *Source) NewSplits(splits []int) []Split {
	if s.newSplits != nil {
		return s.newSplits(splits)
	}
	out := make([]Split, len(splits))
	for i, id := range splits {
		out[i] = s.newSplit(id)
	}
	return out
}

// connectors are the connectors Open knows.
var connectors = []string{"datagen", "kafka", "nexmark", "postgres-cdc"}

// Open validates a source's columns and WITH options (keys lowercased) and
// returns its configuration. created is the source's creation time (the
// base of datagen's absolute timestamps), splits the split count when the
// options give none (at least 1); the returned Options make both explicit.
func Open(cols []Column, opts map[string]string, created time.Time, splits int) (*Source, error) {
	splits = max(splits, 1)
	name, ok := opts[option]
	if !ok {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "a source needs the option %s", option).
			WithHint("Add WITH (connector = 'nexmark', 'datagen' or 'kafka', ...).")
	}
	name = strings.ToLower(strings.TrimSpace(name))
	opts = maps.Clone(opts)
	opts[option] = name
	if err := checkFormat(name, opts); err != nil {
		return nil, err
	}
	switch name {
	case "kafka":
		return openKafka(cols, opts)
	case "nexmark":
		return openNexmark(cols, opts, splits)
	case "datagen":
		return openDatagen(cols, opts, created, splits)
	case "postgres-cdc":
		return openPostgresCDC(cols, opts, created)
	}
	return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "unknown connector %q in option %s", name, option).
		WithHint("The connectors are %s.", strings.Join(connectors, ", "))
}

// checkFormat checks the FORMAT ... ENCODE ... clause, held in the options
// format, encode and encode.*: kafka checks its own; the others take at
// most FORMAT PLAIN ENCODE JSON.
func checkFormat(connector string, opts map[string]string) error {
	format, encode := opts[kafka.FormatOption], opts[kafka.Encode]
	if connector == "kafka" || format == "" && encode == "" {
		return nil
	}
	hasOpts := slices.ContainsFunc(slices.Collect(maps.Keys(opts)), func(k string) bool { return strings.HasPrefix(k, kafka.EncodeOption) })
	if format != "plain" || encode != "json" || hasOpts {
		return pgerror.New(pgerror.CodeFeatureNotSupported, "FORMAT %s ENCODE %s is not supported by connector %s", strings.ToUpper(format), strings.ToUpper(encode), connector).
			WithHint("The nexmark and datagen connectors need no FORMAT clause (FORMAT PLAIN ENCODE JSON is accepted).")
	}
	return nil
}

// checkKeys refuses options outside the connector's namespaces.
func checkKeys(connector string, opts map[string]string, prefixes ...string) error {
	for _, key := range slices.Sorted(maps.Keys(opts)) {
		if key == option || key == kafka.FormatOption || key == kafka.Encode || slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(key, p) }) {
			continue
		}
		return pgerror.New(pgerror.CodeInvalidParameterValue, "unrecognized option %s for connector %s", key, connector).
			WithHint("Options of connector %s start with %s.", connector, strings.Join(prefixes, " or "))
	}
	return nil
}

// openNexmark opens a nexmark source: one table of Nexmark events.
func openNexmark(cols []Column, opts map[string]string, splits int) (*Source, error) {
	if err := checkKeys("nexmark", opts, "nexmark."); err != nil {
		return nil, err
	}
	const splitKey = "nexmark.split.num"
	if _, ok := opts[splitKey]; !ok {
		opts[splitKey] = strconv.Itoa(splits)
	}
	cfg, err := nexmark.ParseOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := checkNexmarkColumns(cols, cfg.Table); err != nil {
		return nil, err
	}
	return &Source{Options: opts, Splits: cfg.SplitNum, Width: len(cols),
		newSplit: func(i int) Split { return nexmark.NewSplit(cfg, i) }}, nil
}

// openDatagen opens a datagen source. By default it has as many splits as
// asked, but no more than rows per second, so that every split has a share
// of the rate.
func openDatagen(cols []Column, opts map[string]string, created time.Time, splits int) (*Source, error) {
	if err := checkKeys("datagen", opts, "datagen.", "fields."); err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "a datagen source needs a column list").
			WithHint("Declare the columns to generate, e.g. (v BIGINT) WITH (connector = 'datagen', fields.v.kind = 'sequence').")
	}
	dcols := make([]datagen.Column, len(cols))
	for i, c := range cols {
		dcols[i] = datagen.Column{Name: c.Name, Type: c.Type}
	}
	cfg, err := datagen.ParseOptions(dcols, opts, created)
	if err != nil {
		return nil, err
	}
	const splitKey = "datagen.split.num"
	if _, ok := opts[splitKey]; !ok {
		opts[splitKey] = strconv.FormatInt(min(int64(splits), cfg.RowsPerSecond), 10)
		if cfg, err = datagen.ParseOptions(dcols, opts, created); err != nil {
			return nil, err
		}
	}
	resolveBaseTimes(cols, opts, created)
	if int64(cfg.SplitNum) > cfg.RowsPerSecond {
		return nil, pgerror.New(pgerror.CodeInvalidParameterValue,
			"option %s (%d) exceeds datagen.rows.per.second (%d): some splits would never produce a row", splitKey, cfg.SplitNum, cfg.RowsPerSecond).
			WithHint("Lower %s or raise datagen.rows.per.second.", splitKey)
	}
	return &Source{Options: opts, Splits: cfg.SplitNum, Width: len(cols),
		newSplit: func(i int) Split { return datagen.NewSplit(cfg, i) }}, nil
}

// resolveBaseTimes makes the creation time explicit as the basetime of
// every random time column that goes back from it, so that the options
// alone generate the same rows after a restart.
func resolveBaseTimes(cols []Column, opts map[string]string, created time.Time) {
	for _, c := range cols {
		switch c.Type.Family {
		case types.Timestamp, types.TimestampTZ, types.Date:
		default:
			continue
		}
		key := func(p string) string { return "fields." + c.Name + "." + p }
		_, based := opts[key("basetime")]
		if based || strings.EqualFold(opts[key("kind")], "sequence") || strings.EqualFold(opts[key("max_past_mode")], "relative") {
			continue
		}
		opts[key("basetime")] = created.UTC().Format(time.RFC3339Nano)
	}
}
