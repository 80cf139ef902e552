package sql

import (
	"context"
	"strings"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

func textColumns(names ...string) []pgwire.Column {
	cols := make([]pgwire.Column, len(names))
	for i, n := range names {
		cols[i] = pgwire.Column{Name: n, Type: types.TText}
	}
	return cols
}

// utilityColumns returns the result columns of a utility statement.
func utilityColumns(u any) []pgwire.Column {
	switch x := u.(type) {
	case *parser.ShowVar:
		if x.Name == "all" {
			return textColumns("name", "setting", "description")
		}
		if x.Name == control.BarrierIntervalParam {
			return textColumns(x.Name)
		}
		return textColumns(displayName(canonicalVar(x.Name)))
	case *parser.ShowObjects:
		return textColumns("Name")
	case *parser.ShowCreate:
		return textColumns("Name", "Create Sql")
	case *parser.Explain:
		return textColumns("QUERY PLAN")
	}
	return nil
}

func textRows(vals ...[]string) [][]types.Datum {
	rows := make([][]types.Datum, len(vals))
	for i, v := range vals {
		row := make([]types.Datum, len(v))
		for j, s := range v {
			row[j] = types.NewString(s)
		}
		rows[i] = row
	}
	return rows
}

// runUtility executes a statement of our own grammar.
func (s *Session) runUtility(ctx context.Context, p *parser.Statement) (pgwire.Rows, error) {
	m := s.e.Meta
	if err := s.superuserOnly(p.Utility); err != nil {
		return nil, err
	}
	switch x := p.Utility.(type) {
	case *parser.Grant:
		return s.grant(ctx, x)
	case *parser.AlterOwner:
		return s.alterOwner(ctx, x)
	case *parser.CreateSource:
		return s.createConnected(ctx, (*parser.CreateTable)(x), meta.KindSource)
	case *parser.CreateSink:
		return s.createSink(ctx, x)
	case *parser.CreateTable:
		if _, ok := x.With[meta.ConnectorOption]; ok {
			return s.createConnected(ctx, x, meta.KindTable)
		}
		if len(x.With) > 0 {
			return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "CREATE TABLE ... WITH (...) is not supported without a connector").
				WithHint("Tables take WITH (connector = 'nexmark' or 'datagen', ...) only.")
		}
		if x.Format != "" {
			return nil, pgerror.New(pgerror.CodeSyntaxError, "FORMAT ... ENCODE ... needs a connector").
				WithHint("Add WITH (connector = ...).")
		}
		t, err := tableFromDef(x)
		if err != nil {
			return nil, err
		}
		owned, err := s.ownedSequences(x, t)
		if err != nil {
			return nil, err
		}
		if t.Schema, err = s.createIn(m.Catalog(), parser.ObjectName{Schema: x.Schema, Name: x.Name}); err != nil {
			return nil, err
		}
		t.Owner = s.currentRole()
		if t.Watermark != nil && !t.AppendOnly {
			return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "Defining watermarks on table requires the table to be append only.").
				WithHint("Use the key words `APPEND ONLY`.")
		}
		if _, err := s.createTable(ctx, t, owned, x.IfNotExists); err != nil {
			return nil, err
		}
		return done("CREATE TABLE"), nil
	case *parser.CreateSequence:
		return s.createSequence(ctx, x)
	case *parser.AlterSequence:
		return s.alterSequence(ctx, x)
	case *parser.CreateTableAs:
		return s.createTableAs(ctx, x)
	case *parser.AlterRename:
		return s.rename(ctx, x)
	case *parser.AlterRenameColumn:
		return s.renameColumn(ctx, x)
	case *parser.AlterColumns:
		return s.alterColumns(ctx, x)
	case *parser.Comment:
		return s.comment(ctx, x)
	case *parser.ShowCreate:
		return s.showCreate(x)
	case *parser.CreateView:
		return s.createView(ctx, x)
	case *parser.CreateSchema:
		return s.createSchema(ctx, x)
	case *parser.CreateRole:
		return s.createRole(ctx, x)
	case *parser.AlterRole:
		return s.alterRole(ctx, x)
	case *parser.DropRole:
		return s.dropRoles(ctx, x)
	case *parser.CreateFunction:
		return s.createFunction(ctx, x)
	case *parser.DropFunction:
		return s.dropFunctions(ctx, x)
	case *parser.CreateIndex:
		idx := meta.Index{Name: x.Name, Columns: x.Columns, Include: x.Include, Unique: x.Unique}
		cat := m.Catalog()
		schema := s.schemaOf(cat, x.Table)
		if err := s.mustOwn(cat, meta.KindTable, schema, x.Table.Name); err != nil {
			return nil, err
		}
		if err := m.CreateIndex(ctx, schema, x.Table.Name, idx, x.IfNotExists); err != nil {
			return nil, err
		}
		return done("CREATE INDEX"), nil
	case *parser.DropObject:
		return s.drop(ctx, x)
	case *parser.CreateSubscription:
		return s.createSubscriptionStmt(ctx, x)
	case *parser.SetVar:
		if canonicalVar(x.Name) == "role" && !x.Default {
			if err := s.checkSetRole(setValue(x.Name, x.Values)); err != nil {
				return nil, err
			}
		}
		var err error
		switch {
		case x.Local && x.Default:
			err = s.vars.setLocal(x.Name, s.vars.initial[canonicalVar(x.Name)])
		case x.Local:
			err = s.vars.setLocal(x.Name, setValue(x.Name, x.Values))
		case x.Default:
			err = s.vars.reset(x.Name)
		default:
			err = s.vars.set(x.Name, setValue(x.Name, x.Values))
		}
		if err != nil {
			return nil, err
		}
		return done("SET"), nil
	case *parser.ResetVar:
		if x.Name == "all" {
			s.vars.resetAll()
		} else if err := s.vars.reset(x.Name); err != nil {
			return nil, err
		}
		return done("RESET"), nil
	case *parser.AlterParallelism:
		return s.alterParallelism(ctx, x)
	case *parser.AlterSystem:
		if len(x.Set.Values) != 1 {
			return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "ALTER SYSTEM SET %s takes one value", x.Set.Name)
		}
		if err := s.e.alterSystem(ctx, x.Set.Name, x.Set.Values[0]); err != nil {
			return nil, err
		}
		return done("ALTER SYSTEM"), nil
	case *parser.RemoveNode:
		remove := s.e.stream.RemoveNode
		if x.Force {
			remove = s.e.stream.ForceRemoveNode
		}
		if err := remove(ctx, x.Node); err != nil {
			return nil, err
		}
		return done("ALTER SYSTEM"), nil
	case *parser.Rebalance:
		return s.rebalance(ctx, x)
	case *parser.ShowVar:
		if v, ok := s.e.systemParam(x.Name); ok {
			return &memRows{rows: textRows([]string{v}), tag: "SHOW"}, nil
		}
		if x.Name == "all" {
			var vals [][]string
			for _, v := range s.vars.all() {
				vals = append(vals, v[:])
			}
			return &memRows{rows: textRows(vals...), tag: "SHOW"}, nil
		}
		v, err := s.vars.get(x.Name)
		if err != nil {
			return nil, err
		}
		return &memRows{rows: textRows([]string{v}), tag: "SHOW"}, nil
	case *parser.ShowObjects:
		return s.showObjects(x)
	case *parser.TxControl:
		return s.txControl(ctx, x)
	case *parser.Fetch:
		return s.fetch(ctx, x)
	case *parser.CloseCursor:
		return s.closeCursor(x)
	case *parser.SetTransaction:
		// Outside a block SET TRANSACTION has no effect (PostgreSQL warns).
		if x.Session || s.tx != 'I' {
			s.vars.setTxModes(x.Modes, x.Session)
		}
		return done("SET"), nil
	case *parser.Flush:
		if err := s.e.Flush(ctx); err != nil {
			return nil, err
		}
		return done("FLUSH"), nil
	case *parser.Discard:
		if x.What == "all" || x.What == "sequences" {
			s.seqs = seqState{}
		}
		return done("DISCARD " + strings.ToUpper(x.What)), nil
	case *parser.Copy:
		return s.copyFrom(p.SQL, x)
	case *parser.Explain:
		return s.explain(x)
	}
	return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "statement is not supported yet: %s", p.SQL)
}

func done(tag string) *memRows { return &memRows{tag: tag} }

// tableFromDef turns the columns and keys of CREATE TABLE into a catalog
// table.
func tableFromDef(x *parser.CreateTable) (*meta.Table, error) {
	t := &meta.Table{Schema: x.Schema, Name: x.Name, Kind: meta.KindTable, AppendOnly: x.AppendOnly}
	seen := map[string]bool{}
	for _, c := range x.Columns {
		if seen[c.Name] {
			return nil, pgerror.New(pgerror.CodeDuplicateColumn, "column %q specified more than once", c.Name)
		}
		seen[c.Name] = true
		typ, err := types.ParseTypeName(c.TypeName)
		if err != nil {
			return nil, err
		}
		col := meta.Column{Name: c.Name, Type: typ, NotNull: c.NotNull, Identity: identities[c.Identity]}
		if c.Default != nil {
			col.Default = c.DefaultSQL
		}
		t.Columns = append(t.Columns, col)
	}
	for _, name := range x.PrimaryKey {
		i := t.ColumnIndex(name)
		if i < 0 {
			return nil, pgerror.New(pgerror.CodeUndefinedColumn, "column %q named in key does not exist", name)
		}
		t.PK = append(t.PK, i)
	}
	t.HiddenRowID = len(t.PK) == 0
	if w := x.Watermark; w != nil {
		i := t.ColumnIndex(w.Column)
		if i < 0 {
			return nil, pgerror.New(pgerror.CodeUndefinedColumn, "column %q named in WATERMARK FOR does not exist", w.Column)
		}
		t.Watermark = &meta.Watermark{Column: i, Expr: w.ExprSQL}
		if _, err := planner.WatermarkFilter(t); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (s *Session) createView(ctx context.Context, x *parser.CreateView) (pgwire.Rows, error) {
	if x.Materialized {
		return s.createMaterializedView(ctx, x)
	}
	cat := s.e.Meta.Catalog()
	schema, node, functions, err := s.bindDefinition(cat, x.Name, x.Query)
	if err != nil {
		return nil, err
	}
	cols := node.Columns()
	if err := planner.CheckStorable(cols); err != nil {
		return nil, err
	}
	if len(x.Columns) > len(cols) {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "CREATE VIEW specifies more column names than columns")
	}
	t := &meta.Table{Schema: schema, Name: x.Name.Name, Kind: meta.KindView, ViewSQL: x.Query.SQL, SearchPath: cat.ExistingSchemas(s.searchPath()), Owner: s.currentRole()}
	for i, c := range cols {
		name := c.Name
		if i < len(x.Columns) {
			name = x.Columns[i]
		}
		t.Columns = append(t.Columns, meta.Column{Name: name, Type: c.T})
	}
	t.DependsOn, t.Functions = planner.Dependencies(node), functions
	if x.OrReplace {
		if err := s.mustOwn(cat, meta.KindView, t.Schema, t.Name); err != nil {
			return nil, err
		}
		if _, err := s.e.Meta.DropObject(ctx, meta.KindView, t.Schema, t.Name, true, false); err != nil {
			return nil, err
		}
	}
	if _, err := s.e.Meta.CreateTable(ctx, t, x.IfNotExists); err != nil {
		return nil, err
	}
	return done("CREATE VIEW"), nil
}

func (s *Session) drop(ctx context.Context, x *parser.DropObject) (pgwire.Rows, error) {
	if x.Kind == "SCHEMA" {
		return s.dropSchemas(ctx, x)
	}
	kind, ok := alterKinds[x.Kind]
	if !ok {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "DROP %s is not supported yet", x.Kind)
	}
	var notices []*pgerror.Error
	for _, n := range x.Names {
		cat := s.e.Meta.Catalog()
		n.Schema = s.schemaOf(cat, n)
		if err := s.mustOwn(cat, kind, n.Schema, n.Name); err != nil {
			return nil, err
		}
		if kind == meta.KindIndex {
			if err := s.e.Meta.DropIndex(ctx, n.Schema, n.Name, x.IfExists); err != nil {
				return nil, err
			}
			continue
		}
		unlock := s.e.stream.LockJobs()
		dropped, err := s.e.Meta.DropObject(ctx, kind, n.Schema, n.Name, x.IfExists, x.Cascade)
		if err == nil {
			err = s.e.dropped(ctx, dropped)
		}
		unlock()
		if err != nil {
			return nil, err
		}
		notices = append(notices, released(ctx, dropped)...)
	}
	return &memRows{tag: "DROP " + x.Kind, notices: notices}, nil
}

func (s *Session) showObjects(x *parser.ShowObjects) (pgwire.Rows, error) {
	want := map[string]meta.ObjectKind{"TABLES": meta.KindTable, "VIEWS": meta.KindView, "MATERIALIZED VIEWS": meta.KindMaterializedView, "SOURCES": meta.KindSource, "SINKS": meta.KindSink,
		"SUBSCRIPTIONS": meta.KindSubscription}
	kind, ok := want[x.Kind]
	if !ok {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "SHOW %s is not supported yet", x.Kind)
	}
	var vals [][]string
	for _, t := range s.e.Meta.Catalog().Tables() {
		if t.Kind == kind && t.SessionNode == "" {
			vals = append(vals, []string{t.Name})
		}
	}
	return &memRows{rows: textRows(vals...), tag: "SHOW"}, nil
}

// txControl handles BEGIN/COMMIT/ROLLBACK. BEGIN after statements of an
// implicit transaction (in one simple query) makes them part of the block,
// as in PostgreSQL.
func (s *Session) txControl(ctx context.Context, x *parser.TxControl) (pgwire.Rows, error) {
	switch x.Op {
	case "BEGIN":
		if s.tx == 'I' {
			s.tx = 'T'
			s.vars.startTx(x.Modes)
			s.vars.beginBlock()
		}
		if x.Start {
			return done("START TRANSACTION"), nil
		}
		return done("BEGIN"), nil
	case "COMMIT":
		failed := s.tx == 'E'
		s.tx = 'I'
		if failed {
			s.vars.endBlock(false)
			return done("ROLLBACK"), nil
		}
		err := s.commit(ctx)
		s.vars.endBlock(err == nil)
		if err != nil {
			return nil, err
		}
		return done("COMMIT"), nil
	}
	s.rollback()
	s.tx = 'I'
	s.vars.endBlock(false)
	return done("ROLLBACK"), nil
}

func (s *Session) explain(x *parser.Explain) (pgwire.Rows, error) {
	if cv, ok := x.Statement.Utility.(*parser.CreateView); ok && cv.Materialized {
		return s.explainView(cv)
	}
	if x.Statement.AST == nil {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "EXPLAIN of this statement is not supported yet")
	}
	node, err := s.binder(s.e.Meta.Catalog(), nil).BindQuery(x.Statement.AST)
	if err != nil {
		return nil, err
	}
	var vals [][]string
	env := &exec.Env{Engine: s.e.reader, Epoch: s.e.ReadEpoch()}
	for _, line := range planner.Explain(planner.Optimize(node, planner.StorageRowCounts(env))) {
		vals = append(vals, []string{line})
	}
	return &memRows{rows: textRows(vals...), tag: "EXPLAIN"}, nil
}
