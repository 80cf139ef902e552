package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql/parser"
)

// bindFrom binds a FROM clause (a tree of joins) in the SELECT's scope s.
func (b *Binder) bindFrom(n ast.ResultSetNode, s *scope) (Node, error) {
	switch x := n.(type) {
	case *ast.Join:
		if x.Right == nil {
			return b.bindFrom(x.Left, s)
		}
		return b.bindJoin(x, s)
	case *ast.TableSource:
		return b.bindTableSource(x, s)
	}
	return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "FROM item %T is not supported", n)
}

func (b *Binder) bindJoin(j *ast.Join, s *scope) (Node, error) {
	l, err := b.bindFrom(j.Left, s)
	if err != nil {
		return nil, err
	}
	var r Node
	lateral := false
	if ts, ok := j.Right.(*ast.TableSource); ok && ts.Lateral {
		r, lateral, err = b.bindDerived(ts, l.Columns(), s)
	} else {
		r, err = b.bindFrom(j.Right, s)
	}
	if err != nil {
		return nil, err
	}
	join := &Join{Kind: InnerJoin, L: l, R: r, Temporal: isProcTimeScan(r)}
	switch {
	case j.StraightJoin:
		// The SQL front marks FULL [OUTER] JOIN as STRAIGHT_JOIN.
		join.Kind = FullJoin
	case j.Tp == ast.LeftJoin:
		join.Kind = LeftJoin
	case j.Tp == ast.RightJoin:
		join.Kind = RightJoin
	}
	if join.Temporal && join.Kind != InnerJoin && join.Kind != LeftJoin {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "a temporal join (FOR SYSTEM_TIME AS OF PROCTIME()) must be an inner or left join")
	}
	js := &scope{cols: join.Columns(), parent: s.parent, depth: s.depth, sub: s.sub}
	if lateral {
		return b.bindApply(j, join, js)
	}
	using := make([]string, 0, len(j.Using))
	for _, c := range j.Using {
		using = append(using, c.Name.O)
	}
	f, marked := joinMarker(j)
	if marked && f.FnName.L == "pg_using" {
		// FULL JOIN ... USING (a, b) arrives as ON pg_using(a, b).
		for _, arg := range f.Args {
			c, ok := arg.(*ast.ColumnNameExpr)
			if !ok {
				return nil, pgerror.New(pgerror.CodeSyntaxError, "USING takes a list of column names")
			}
			using = append(using, c.Name.Name.O)
		}
	}
	// NATURAL FULL JOIN arrives as STRAIGHT_JOIN ... ON pg_natural().
	natural := j.NaturalJoin || marked && f.FnName.L == "pg_natural"
	if natural {
		for _, lc := range l.Columns() {
			for _, rc := range r.Columns() {
				if !lc.Hidden && !rc.Hidden && lc.Name == rc.Name {
					using = append(using, lc.Name)
				}
			}
		}
	}
	if len(using) > 0 {
		return b.bindUsing(join, using)
	}
	if j.On != nil && !natural {
		if join.On, err = b.bindCondition(j.On.Expr, js, "JOIN/ON"); err != nil {
			return nil, err
		}
	}
	return join, nil
}

// joinMarker returns the condition of a join that is a marker of the SQL
// front: pg_using(columns) or pg_natural().
func joinMarker(j *ast.Join) (*ast.FuncCallExpr, bool) {
	if j.On == nil {
		return nil, false
	}
	f, ok := j.On.Expr.(*ast.FuncCallExpr)
	return f, ok && (f.FnName.L == "pg_using" || f.FnName.L == "pg_natural")
}

// bindUsing joins on equality of the named columns and projects each of
// them once (merged for outer joins), followed by the other columns; the
// original columns stay reachable by qualified name.
func (b *Binder) bindUsing(join *Join, using []string) (Node, error) {
	lcols, rcols := join.L.Columns(), join.R.Columns()
	nl := len(lcols)
	find := func(cols []Column, name, side string) (int, error) {
		idx := -1
		for i, c := range cols {
			if c.Name == name && !c.Hidden {
				if idx >= 0 {
					return -1, pgerror.New(pgerror.CodeAmbiguousColumn, "common column name %q appears more than once in %s table", name, side)
				}
				idx = i
			}
		}
		if idx < 0 {
			return -1, pgerror.New(pgerror.CodeUndefinedColumn, "column %q specified in USING clause does not exist in %s table", name, side)
		}
		return idx, nil
	}
	var conds []expr.Expr
	var exprs []expr.Expr
	var cols []Column
	usedL, usedR := map[int]bool{}, map[int]bool{}
	for _, name := range using {
		li, err := find(lcols, name, "left")
		if err != nil {
			return nil, err
		}
		ri, err := find(rcols, name, "right")
		if err != nil {
			return nil, err
		}
		usedL[li], usedR[ri] = true, true
		lref := &expr.ColRef{Idx: li, T: lcols[li].T, Name: name}
		rref := &expr.ColRef{Idx: nl + ri, T: rcols[ri].T, Name: name}
		eq, err := expr.NewBinary("=", lref, rref)
		if err != nil {
			return nil, err
		}
		conds = append(conds, eq)
		// The merged column has the comparison's common type, as in
		// PostgreSQL (a date merged with a timestamp too, though they
		// compare uncast); an uncoerced column keeps its origin.
		ml, mr := expr.SameTypeOperands(eq.(*expr.Binary))
		merged, origin := ml, lcols[li]
		switch join.Kind {
		case RightJoin:
			merged, origin = mr, rcols[ri]
		case FullJoin:
			merged = &expr.Coalesce{Args: []expr.Expr{ml, mr}, T: ml.Type()}
		}
		exprs = append(exprs, merged)
		col := Column{Name: name, T: merged.Type()}
		if _, ok := merged.(*expr.ColRef); ok {
			col.TableID, col.Attr = origin.TableID, origin.Attr
		}
		cols = append(cols, col)
	}
	join.On = andOf(conds)
	all := join.Columns()
	for i, c := range all {
		used := (i < nl && usedL[i]) || (i >= nl && usedR[i-nl])
		if used {
			c.Hidden, c.Merged = true, true
		}
		exprs = append(exprs, &expr.ColRef{Idx: i, T: c.T, Name: c.Name})
		cols = append(cols, c)
	}
	return &Project{Input: join, Exprs: exprs, Cols: cols}, nil
}

func andOf(conds []expr.Expr) expr.Expr {
	if len(conds) == 1 {
		return conds[0]
	}
	return &expr.And{Args: conds}
}

func (b *Binder) bindTableSource(ts *ast.TableSource, s *scope) (Node, error) {
	alias := ts.AsName.O
	switch src := ts.Source.(type) {
	case *ast.TableName:
		name := src.Name.O
		if alias == "" {
			alias = name
		}
		if src.Schema.O == "" {
			if c := b.lookupCTE(name); c != nil {
				return requalify(c.node, c.cols, alias), nil
			}
		}
		if st, ok := lookupSysTable(src.Schema.O, name); ok {
			b.readsReplicated = b.readsReplicated || st.status == nil
			return b.bindSysTable(st, name, alias)
		}
		b.readsReplicated = true
		t, err := b.table(src.Schema.O, name)
		if err != nil {
			return nil, err
		}
		if t.Kind == meta.KindSubscription {
			return nil, pgerror.New(pgerror.CodeWrongObjectType, "%q is a subscription, not a relation", name).
				WithHint("Read its changes with SUBSCRIBE %s or DECLARE c SUBSCRIPTION CURSOR FOR %s, then FETCH.", name, name)
		}
		if err := b.require(t, meta.PrivSelect); err != nil {
			return nil, err
		}
		switch t.Kind {
		case meta.KindView:
			return b.bindView(t, alias, s)
		case meta.KindSequence:
			return bindSequenceRow(t, alias), nil
		}
		scan := &Scan{Table: t, ProcTime: src.AsOf != nil}
		if scan.ProcTime && t.Kind != meta.KindTable {
			return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "FOR SYSTEM_TIME AS OF PROCTIME() applies to tables only, and %q is a %s", name, t.Kind)
		}
		for i, c := range t.Columns {
			scan.Cols = append(scan.Cols, Column{Name: c.Name, Table: alias, T: c.Type, Hidden: c.Hidden, TableID: t.ID, Attr: int16(i + 1)})
		}
		return scan, nil
	case *ast.SelectStmt, *ast.SetOprStmt:
		node, _, err := b.bindDerived(ts, nil, s)
		return node, err
	}
	return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "FROM item %T is not supported", ts.Source)
}

// bindView expands a (non-materialized) view by binding its stored query.
func (b *Binder) bindView(t *meta.Table, alias string, s *scope) (Node, error) {
	stmts, err := parser.Parse(t.ViewSQL)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 || stmts[0].AST == nil {
		return nil, pgerror.New(pgerror.CodeInternal, "view %q has an invalid definition", t.Name)
	}
	inner := &Binder{cat: b.cat, searchPath: t.SearchPath}
	if b.role != 0 {
		// What the view reads, its owner must be allowed to read.
		inner.role = t.OwnerID()
	}
	node, err := inner.bindQuery(stmts[0].AST, &scope{}, nil)
	if err != nil {
		return nil, err
	}
	cols := append([]Column(nil), node.Columns()...)
	for i := range cols {
		if i < len(t.Columns) {
			cols[i].Name = t.Columns[i].Name
		}
		// PostgreSQL reports a view's columns as the view's own.
		cols[i].TableID, cols[i].Attr = t.ID, int16(i+1)
	}
	return requalify(node, cols, alias), nil
}

// requalify renames a node's columns (names from cols) under a new table
// qualifier.
func requalify(n Node, cols []Column, alias string) Node {
	out := make([]Column, len(cols))
	exprs := make([]expr.Expr, len(cols))
	for i, c := range cols {
		c.Table = alias
		out[i] = c
		exprs[i] = &expr.ColRef{Idx: i, T: c.T, Name: c.Name}
	}
	return &Project{Input: n, Exprs: exprs, Cols: out}
}

// isProcTimeScan reports whether n is a table read FOR SYSTEM_TIME AS OF
// PROCTIME() (the SQL front lets no other time through).
func isProcTimeScan(n Node) bool {
	s, ok := n.(*Scan)
	return ok && s.ProcTime
}
