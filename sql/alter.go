package sql

import (
	"context"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql/parser"
)

// alterKinds are the object kinds ALTER, COMMENT ON, SHOW CREATE and
// DROP name.
var alterKinds = map[string]meta.ObjectKind{
	"TABLE": meta.KindTable, "VIEW": meta.KindView, "MATERIALIZED VIEW": meta.KindMaterializedView,
	"SOURCE": meta.KindSource, "INDEX": meta.KindIndex, "SEQUENCE": meta.KindSequence, "SINK": meta.KindSink,
	"SUBSCRIPTION": meta.KindSubscription,
}

// alterKind returns the catalog kind of an ALTER statement's kind word.
func alterKind(kind string) (meta.ObjectKind, error) {
	k, ok := alterKinds[kind]
	if !ok {
		return 0, pgerror.New(pgerror.CodeFeatureNotSupported, "ALTER %s ... RENAME is not supported", kind)
	}
	return k, nil
}

// rename runs ALTER ... RENAME TO.
func (s *Session) rename(ctx context.Context, x *parser.AlterRename) (pgwire.Rows, error) {
	kind, err := alterKind(x.Kind)
	if err != nil {
		return nil, err
	}
	cat := s.e.Meta.Catalog()
	schema := s.schemaOf(cat, x.Name)
	if err := s.mustOwn(cat, kind, schema, x.Name.Name); err != nil {
		return nil, err
	}
	if err := s.e.Meta.Rename(ctx, kind, schema, x.Name.Name, x.NewName, x.IfExists); err != nil {
		return nil, err
	}
	return done("ALTER " + x.Kind), nil
}

// renameColumn runs ALTER ... RENAME COLUMN.
func (s *Session) renameColumn(ctx context.Context, x *parser.AlterRenameColumn) (pgwire.Rows, error) {
	kind, err := alterKind(x.Kind)
	if err != nil {
		return nil, err
	}
	cat := s.e.Meta.Catalog()
	schema := s.schemaOf(cat, x.Name)
	if err := s.mustOwn(cat, kind, schema, x.Name.Name); err != nil {
		return nil, err
	}
	if err := s.e.Meta.RenameColumn(ctx, kind, schema, x.Name.Name, x.Column, x.NewName); err != nil {
		return nil, err
	}
	return done("ALTER " + x.Kind), nil
}

// comment runs COMMENT ON.
func (s *Session) comment(ctx context.Context, x *parser.Comment) (pgwire.Rows, error) {
	kind := meta.KindTable // COMMENT ON COLUMN: a column of any relation
	if x.Kind != "COLUMN" {
		kind = alterKinds[x.Kind]
	}
	cat := s.e.Meta.Catalog()
	schema := s.schemaOf(cat, x.Name)
	if err := s.mustOwn(cat, kind, schema, x.Name.Name); err != nil {
		return nil, err
	}
	if err := s.e.Meta.Comment(ctx, kind, schema, x.Name.Name, x.Column, x.Text); err != nil {
		return nil, err
	}
	return done("COMMENT"), nil
}

// showCreate runs SHOW CREATE: the relation's name and a statement that
// creates it again, as RisingWave shows them.
func (s *Session) showCreate(x *parser.ShowCreate) (pgwire.Rows, error) {
	kind := alterKinds[x.Kind]
	t, ok := s.e.Meta.Catalog().Resolve(s.searchPath(), x.Name.Schema, x.Name.Name)
	if !ok || t.Kind != kind {
		return nil, pgerror.New(pgerror.CodeUndefinedTable, "%s %q does not exist", strings.ToLower(x.Kind), x.Name.Name)
	}
	name := expr.QuoteIdent(t.Schema) + "." + expr.QuoteIdent(t.Name)
	return &memRows{rows: textRows([]string{t.Schema + "." + t.Name, createStatement(t, name)}), tag: "SHOW"}, nil
}

// createStatement renders the statement that creates t under name.
func createStatement(t *meta.Table, name string) string {
	switch t.Kind {
	case meta.KindView:
		return "CREATE VIEW " + name + " AS " + t.ViewSQL
	case meta.KindMaterializedView:
		eowc := ""
		if t.EmitOnWindowClose {
			eowc = " EMIT ON WINDOW CLOSE"
		}
		return "CREATE MATERIALIZED VIEW " + name + " AS " + t.ViewSQL + eowc
	}
	var b strings.Builder
	b.WriteString("CREATE ")
	b.WriteString(strings.ToUpper(t.Kind.String()))
	b.WriteString(" " + name + " (")
	n := 0
	for i, c := range t.Columns {
		if c.Hidden {
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		b.WriteString(expr.QuoteIdent(c.Name) + " " + c.Type.String())
		if c.NotNull && (t.HiddenRowID || !slices.Contains(t.PK, i)) {
			b.WriteString(" NOT NULL") // a primary key's columns are implicitly
		}
		if c.Default != "" {
			b.WriteString(" DEFAULT " + c.Default)
		}
	}
	if !t.HiddenRowID && len(t.PK) > 0 {
		var pk []string
		for _, i := range t.PK {
			pk = append(pk, expr.QuoteIdent(t.Columns[i].Name))
		}
		b.WriteString(", PRIMARY KEY (" + strings.Join(pk, ", ") + ")")
	}
	if w := t.Watermark; w != nil {
		b.WriteString(", WATERMARK FOR " + expr.QuoteIdent(t.Columns[w.Column].Name) + " AS " + w.Expr)
	}
	b.WriteString(")")
	if t.AppendOnly && t.Kind == meta.KindTable && t.Connector() == "" {
		b.WriteString(" APPEND ONLY")
	}
	if len(t.Options) > 0 {
		keys := make([]string, 0, len(t.Options))
		for k := range t.Options {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var opts []string
		for _, k := range keys {
			opts = append(opts, k+" = '"+strings.ReplaceAll(meta.ShownOption(k, t.Options[k]), "'", "''")+"'")
		}
		b.WriteString(" WITH (" + strings.Join(opts, ", ") + ")")
	}
	return b.String()
}
