package sql

import (
	"context"
	"strings"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// runInternal runs one statement of ours, text, in the session (as the
// client's statement runs: a write goes through the one write path) and
// returns its first row, if any.
func (s *Session) runInternal(ctx context.Context, text string) ([]types.Datum, error) {
	stmts, err := parser.Parse(text)
	if err != nil {
		return nil, err
	}
	st := &statement{s: s, parsed: stmts[0]}
	rows, err := st.run(ctx, func() {}, nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	row, err := rows.Next(ctx)
	return append([]types.Datum(nil), row...), err
}

// alterColumns runs ALTER TABLE ... ADD COLUMN / DROP COLUMN. A table no
// view reads changes its catalog record, then its writer's job restarts
// with the new columns: rows stored before read NULL in an added column
// (types.DecodeRow), which an added column's DEFAULT then fills by an
// UPDATE of every row, as PostgreSQL's rewrite would; a dropped column
// stays in stored rows, hidden (meta.Column.Dropped).
func (s *Session) alterColumns(ctx context.Context, x *parser.AlterColumns) (pgwire.Rows, error) {
	e := s.e
	cat := e.Meta.Catalog()
	t, ok := cat.Resolve(s.searchPath(), x.Name.Schema, x.Name.Name)
	if !ok {
		if x.IfExists {
			return done("ALTER TABLE"), nil
		}
		return nil, pgerror.New(pgerror.CodeUndefinedTable, "relation %q does not exist", x.Name.Name)
	}
	if err := s.mustOwn(cat, t.Kind, t.Schema, t.Name); err != nil {
		return nil, err
	}
	name := expr.QuoteIdent(t.Schema) + "." + expr.QuoteIdent(t.Name)
	var fill []string
	for _, a := range x.Actions {
		if a.Add == nil {
			if err := e.Meta.DropColumn(ctx, t.Schema, t.Name, a.Drop, a.IfExists); err != nil {
				return nil, err
			}
			continue
		}
		if _, serial := parser.SerialType(a.Add.TypeName); serial || a.Add.Identity != "" {
			return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "ALTER TABLE ADD COLUMN of a serial or identity column is not supported").
				WithHint("Add an integer column with DEFAULT nextval('sequence').")
		}
		typ, err := types.ParseTypeName(a.Add.TypeName)
		if err != nil {
			return nil, err
		}
		col := meta.Column{Name: a.Add.Name, Type: typ, NotNull: a.Add.NotNull, Default: a.Add.DefaultSQL}
		if col.NotNull && col.Default == "" {
			row, err := s.runInternal(ctx, "SELECT 1 FROM "+name+" LIMIT 1")
			if err != nil {
				return nil, err
			}
			if len(row) > 0 {
				return nil, pgerror.New(pgerror.CodeNotNullViolation, "column %q of relation %q contains null values", col.Name, t.Name)
			}
		}
		if err := e.Meta.AddColumn(ctx, t.Schema, t.Name, col, a.IfNotExists); err != nil {
			return nil, err
		}
		if col.Default != "" {
			fill = append(fill, expr.QuoteIdent(col.Name)+" = "+col.Default)
		}
	}
	if err := s.restartTable(ctx, t.ID); err != nil {
		return nil, err
	}
	if len(fill) > 0 {
		if _, err := s.runInternal(ctx, "UPDATE "+name+" SET "+strings.Join(fill, ", ")); err != nil {
			return nil, err
		}
	}
	return done("ALTER TABLE"), nil
}

// restartTable restarts the writer job of table id with its definition
// in the catalog now.
func (s *Session) restartTable(ctx context.Context, id uint32) error {
	e := s.e
	defer e.stream.LockJobs()()
	epoch, err := e.ctrl.StopJob(ctx, id)
	if err == nil {
		err = e.stream.WaitCommitted(ctx, epoch)
	}
	if err != nil {
		return err
	}
	t, ok := e.Meta.Catalog().TableByID(id)
	if !ok {
		return pgerror.New(pgerror.CodeUndefinedTable, "relation with id %d does not exist", id)
	}
	_, err = e.ctrl.StartTable(ctx, t, control.JobPlacement(e.Meta.Catalog(), t)[0])
	return err
}
