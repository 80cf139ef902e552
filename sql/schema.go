package sql

import (
	"context"
	"strings"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// parseSearchPath splits a search_path value into schema names: comma
// separated, a double-quoted name kept as written (with "" for a quote),
// others lowercased, "$user" standing for user.
func parseSearchPath(v, user string) []string {
	var out []string
	for len(v) > 0 {
		v = strings.TrimLeft(v, " \t\n")
		var name string
		if strings.HasPrefix(v, `"`) {
			var b strings.Builder
			i := 1
			for ; i < len(v); i++ {
				if v[i] == '"' {
					if i+1 < len(v) && v[i+1] == '"' {
						b.WriteByte('"')
						i++
						continue
					}
					break
				}
				b.WriteByte(v[i])
			}
			name, v = b.String(), v[min(i+1, len(v)):]
			_, v, _ = strings.Cut(v, ",")
		} else {
			name, v, _ = strings.Cut(v, ",")
			name = strings.ToLower(strings.TrimSpace(name))
		}
		if name == "$user" {
			name = user
		}
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}

// setValue joins the values of SET name TO v1, v2, ...; the elements of
// search_path, a list of names, are quoted where a name needs it, as
// PostgreSQL shows them.
func setValue(name string, values []string) string {
	if canonicalVar(name) == "search_path" {
		quoted := make([]string, len(values))
		for i, v := range values {
			quoted[i] = expr.QuoteIdent(v)
		}
		values = quoted
	}
	return strings.Join(values, ", ")
}

// searchPath returns the session's search_path as schema names.
func (s *Session) searchPath() []string {
	return parseSearchPath(s.vars.values["search_path"], s.user)
}

// binder returns a binder over cat that resolves names on the session's
// search_path and reads its status.
func (s *Session) binder(cat *meta.Catalog, params []types.T) *planner.Binder {
	b := planner.NewBinder(cat, params)
	b.SetRole(s.currentRole())
	b.SetSearchPath(s.searchPath())
	b.SetStatus(s.status())
	return b
}

// creationSchema returns the schema a CREATE of n puts the object in: n's
// own, or the first existing schema of the search_path.
func (s *Session) creationSchema(cat *meta.Catalog, n parser.ObjectName) (string, error) {
	if n.Schema != "" {
		return n.Schema, nil
	}
	return cat.CreationSchema(s.searchPath())
}

// createIn returns the schema a CREATE of n puts the object in, which the
// session's role needs CREATE on (42501).
func (s *Session) createIn(cat *meta.Catalog, n parser.ObjectName) (string, error) {
	schema, err := s.creationSchema(cat, n)
	if err != nil || !cat.HasSchema(schema) {
		return schema, err // a missing schema is the statement's to report
	}
	return schema, cat.CheckSchema(s.currentRole(), schema, meta.PrivCreate)
}

// bindDefinition returns the schema a new relation name goes in, its
// defining query (CREATE VIEW, CREATE TABLE AS) bound, and the SQL
// functions the query calls.
func (s *Session) bindDefinition(cat *meta.Catalog, name parser.ObjectName, query *parser.Statement) (string, planner.Node, []uint32, error) {
	schema, err := s.createIn(cat, name)
	if err != nil {
		return "", nil, nil, err
	}
	b := s.binder(cat, nil)
	node, err := b.BindQuery(query.AST)
	return schema, node, b.Functions(), err
}

// schemaOf returns the schema of the existing relation or index n (the
// first on the search_path holding one of that name when n is
// unqualified), or the creation schema when there is none, for
// statements that then report it missing themselves.
func (s *Session) schemaOf(cat *meta.Catalog, n parser.ObjectName) string {
	if n.Schema != "" {
		return n.Schema
	}
	for _, schema := range s.searchPath() {
		_, rel := cat.Table(schema, n.Name)
		_, _, idx := cat.Index(schema, n.Name)
		if rel || idx {
			return schema
		}
	}
	schema, _ := s.creationSchema(cat, n)
	return schema
}

// createSchema runs CREATE SCHEMA.
func (s *Session) createSchema(ctx context.Context, x *parser.CreateSchema) (pgwire.Rows, error) {
	if err := s.mustBeSuperuser("create schema "+x.Name, "Only superusers create schemas (streamdb has no database privileges); one can then give it to you: ALTER SCHEMA "+x.Name+" OWNER TO "+s.user+"."); err != nil {
		return nil, err
	}
	if err := s.e.Meta.CreateSchema(ctx, x.Name, x.IfNotExists, s.currentRole()); err != nil {
		return nil, err
	}
	return done("CREATE SCHEMA"), nil
}

// dropSchemas runs DROP SCHEMA: each schema goes with its relations (with
// CASCADE), whose jobs stop.
func (s *Session) dropSchemas(ctx context.Context, x *parser.DropObject) (pgwire.Rows, error) {
	var notices []*pgerror.Error
	for _, n := range x.Names {
		if err := s.mustOwnSchema(s.e.Meta.Catalog(), n.Name); err != nil {
			return nil, err
		}
		unlock := s.e.stream.LockJobs()
		dropped, err := s.e.Meta.DropSchema(ctx, n.Name, x.IfExists, x.Cascade)
		if err == nil {
			err = s.e.dropped(ctx, dropped)
		}
		unlock()
		if err != nil {
			return nil, err
		}
		notices = append(notices, released(ctx, dropped)...)
	}
	return &memRows{tag: "DROP SCHEMA", notices: notices}, nil
}
