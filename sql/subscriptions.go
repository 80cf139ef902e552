package sql

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql/parser"
)

// defaultRetention is how long a subscription keeps each epoch's changes
// unless CREATE SUBSCRIPTION says otherwise.
const defaultRetention = 24 * time.Hour

// createSubscriptionStmt runs CREATE SUBSCRIPTION name FROM relation
// [WITH (retention = ...)].
func (s *Session) createSubscriptionStmt(ctx context.Context, x *parser.CreateSubscription) (pgwire.Rows, error) {
	cat := s.e.Meta.Catalog()
	retention := defaultRetention
	for k, v := range x.With {
		if k != "retention" {
			return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "subscription option %q is not supported", k).
				WithHint("CREATE SUBSCRIPTION takes WITH (retention = 'interval') only.")
		}
		d, err := parseInterval("retention", v)
		if err != nil {
			return nil, err
		}
		retention = d
	}
	from, ok := cat.Table(s.schemaOf(cat, x.From), x.From.Name)
	if !ok || from.Kind.Logged() || from.Kind == meta.KindSequence || from.Kind == meta.KindIndex {
		return nil, pgerror.New(pgerror.CodeUndefinedTable, "relation %q does not exist", x.From.Name).
			WithHint("A subscription reads a table, a source or a (materialized) view.")
	}
	schema, err := s.createIn(cat, x.Name)
	if err != nil {
		return nil, err
	}
	if _, ok := cat.Table(schema, x.Name.Name); ok {
		if x.IfNotExists {
			return done("CREATE SUBSCRIPTION"), nil
		}
		return nil, pgerror.New(pgerror.CodeDuplicateObject, "subscription %q already exists", x.Name.Name).
			WithHint("Choose another name, or DROP SUBSCRIPTION %s first.", x.Name.Name)
	}
	query := "SELECT * FROM " + quoteIdent(from.Schema) + "." + quoteIdent(from.Name)
	if _, err := s.createSubscription(ctx, parser.ObjectName{Schema: schema, Name: x.Name.Name}, query, retention, ""); err != nil {
		return nil, err
	}
	return done("CREATE SUBSCRIPTION"), nil
}

// createSubscription starts the job of a subscription to query, whose
// log keeps each epoch's changes for retention, and records it: named
// name, or for a SUBSCRIBE (name.Name "") a temporary one of node owner
// under a name of its id. Its log holds every change from the epoch its
// backfill ended in (Since) on.
func (s *Session) createSubscription(ctx context.Context, name parser.ObjectName, query string, retention time.Duration, owner string) (*meta.Table, error) {
	par, err := s.streamingParallelism()
	if err != nil {
		return nil, err
	}
	var t *meta.Table
	j := &plannedJob{kind: meta.KindSubscription, name: name, sql: query, parallelism: par, retention: retention,
		check: func(nt *meta.Table) error {
			if nt.Name == "" {
				nt.Name = fmt.Sprintf("_subscribe_%d", nt.ID)
			}
			nt.SessionNode, t = owner, nt
			return nil
		}}
	err = s.createPlanned(ctx, j)
	return t, err
}

// dropTemporary drops the temporary subscription of a SUBSCRIBE that
// ended.
func (e *Engine) dropTemporary(t *meta.Table) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.dropSubscription(ctx, t); err != nil {
		e.opts.Logger.Warn("dropping the subscription of a SUBSCRIBE failed; it is dropped when this node starts again", "subscription", t.Name, "err", err)
	}
}

func (e *Engine) dropSubscription(ctx context.Context, t *meta.Table) error {
	defer e.stream.LockJobs()()
	dropped, err := e.Meta.DropObject(ctx, meta.KindSubscription, t.Schema, t.Name, true, false)
	if err == nil {
		err = e.dropped(ctx, dropped)
	}
	return err
}

// DropOrphanedSubscriptions drops the temporary subscriptions of this
// node's SUBSCRIBEs that a crash left behind: the node calls it when it
// starts, once its streaming is ready.
func (e *Engine) DropOrphanedSubscriptions(ctx context.Context) error {
	for _, t := range e.Meta.Catalog().Tables() {
		if t.Kind == meta.KindSubscription && t.SessionNode == e.Meta.NodeID() {
			if err := e.dropSubscription(ctx, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// parseInterval reads a time option's value ('1h', '30min', '1d', or
// milliseconds), as a time setting is read.
func parseInterval(name, value string) (time.Duration, error) {
	shown, err := parseDurationSetting(name, strings.ToLower(value))
	if err != nil {
		return 0, err
	}
	return shownDuration(shown), nil
}
