package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// bindSelect binds one SELECT block:
// FROM → WHERE → GROUP BY/aggregates → HAVING → window functions → select
// list → DISTINCT → ORDER BY → LIMIT.
func (b *Binder) bindSelect(sel *ast.SelectStmt, outer *scope, sub *subqueryInfo) (Node, error) {
	setOpMember := b.setOpMember
	b.setOpMember = false
	// Window functions of an enclosing query do not reach in here.
	defer b.noWindows(nil)()
	defer b.noSRFs(nil)()
	pop, err := b.pushCTEs(sel.With, outer, sub)
	if err != nil {
		return nil, err
	}
	defer pop()
	if sel.Kind == ast.SelectStmtKindValues {
		b.winErr, b.srfErr = windowsNotAllowed("VALUES"), srfsNotAllowed("VALUES")
		return b.bindValues(sel.Lists, outer, sub)
	}
	windows, err := newWindowCollector(sel.WindowSpecs)
	if err != nil {
		return nil, err
	}

	var input Node = &Values{Rows: [][]expr.Expr{{}}}
	s := outer.child(nil, sub)
	if sel.From != nil {
		input, err = b.bindFrom(sel.From.TableRefs, s)
		if err != nil {
			return nil, err
		}
	}
	s.cols = input.Columns()

	if sel.Where != nil {
		cond, err := b.bindCondition(sel.Where, s, "WHERE")
		if err != nil {
			return nil, err
		}
		input = &Filter{Input: input, Cond: cond}
	}

	distinctOn, fieldList := distinctOnMarker(sel.Fields)
	fields, names, err := b.expandFields(fieldList, s)
	if err != nil {
		return nil, err
	}

	// Aggregation: bind the select list, HAVING and ORDER BY with an
	// aggregate collector, then rewrite them over the Aggregate's output.
	grouped := sel.GroupBy != nil || sel.Having != nil || hasAggregate(sel)
	var collector *aggCollector
	if grouped {
		collector = &aggCollector{}
		if collector.group, collector.sets, err = b.bindGroupBy(sel, fields, s); err != nil {
			return nil, err
		}
	}
	saved := b.agg
	srfs := &srfCollector{}
	b.agg, b.win, b.srf = collector, windows, srfs
	s.grouping = collector
	defer func() { b.agg, s.grouping = saved, nil }()

	exprs := make([]expr.Expr, len(fields))
	for i, f := range fields {
		if exprs[i], err = b.bindExpr(f, s); err != nil {
			return nil, err
		}
	}
	var having expr.Expr
	if sel.Having != nil {
		if having, err = b.bindCondition(sel.Having.Expr, s, ""); err != nil {
			return nil, err
		}
	}
	order, err := b.bindOrderBy(sel.OrderBy, s, names, exprs, sel.Distinct)
	if err != nil {
		return nil, err
	}
	on := orderBy{extra: order.extra}
	if distinctOn != nil {
		if err := b.bindSortItems(&on, distinctOn, "DISTINCT ON", s, names, exprs, false); err != nil {
			return nil, err
		}
		if err := checkDistinctOn(on.keys, order.keys); err != nil {
			return nil, err
		}
		order.extra = on.extra
	}
	b.agg, b.win, b.srf, s.grouping = saved, nil, nil, nil

	if grouped {
		agg, err := collector.plan(input, s)
		if err != nil {
			return nil, err
		}
		input = agg
		for i := range exprs {
			if exprs[i], err = collector.rewrite(exprs[i]); err != nil {
				return nil, err
			}
		}
		if having != nil {
			if having, err = collector.rewrite(having); err != nil {
				return nil, err
			}
			input = &Filter{Input: input, Cond: having}
		}
		for i := range order.extra {
			if order.extra[i], err = collector.rewrite(order.extra[i]); err != nil {
				return nil, err
			}
		}
		for _, c := range windows.calls {
			if err := c.mapExprs(collector.rewrite); err != nil {
				return nil, err
			}
		}
		if err := srfs.mapArgs(collector.rewrite); err != nil {
			return nil, err
		}
	}
	if len(windows.calls) > 0 {
		var refs []expr.Expr
		input, refs = windows.plan(input)
		for i := range exprs {
			exprs[i] = replaceWindowRefs(exprs[i], refs)
		}
		for i := range order.extra {
			order.extra[i] = replaceWindowRefs(order.extra[i], refs)
		}
		if err := srfs.mapArgs(func(e expr.Expr) (expr.Expr, error) { return replaceWindowRefs(e, refs), nil }); err != nil {
			return nil, err
		}
	}
	if len(srfs.funcs) > 0 {
		input = srfs.plan(input, exprs, order.extra)
	}

	cols := make([]Column, len(exprs))
	for i, e := range exprs {
		cols[i] = outputColumn(names[i], e, input.Columns())
		if !setOpMember {
			cols[i].T = outputType(e.Type())
			exprs[i], _ = b.coerce(exprs[i], types.TText)
		}
	}
	projExprs := append(exprs, order.extra...)
	projCols := append([]Column(nil), cols...)
	for _, e := range order.extra {
		projCols = append(projCols, Column{Name: "?sort?", T: e.Type(), Hidden: true})
	}
	var out Node = &Project{Input: input, Exprs: projExprs, Cols: projCols}
	if sel.Distinct {
		out = &Distinct{Input: out}
	}
	if distinctOn != nil {
		out = firstPerGroup(out, on.keys, order.keys)
	}
	if len(order.keys) > 0 {
		out = &Sort{Input: out, Keys: order.keys}
	}
	if out, err = b.bindLimit(sel.Limit, out, s); err != nil {
		return nil, err
	}
	if len(order.extra) > 0 {
		final := make([]expr.Expr, len(cols))
		for i, c := range cols {
			final[i] = &expr.ColRef{Idx: i, T: c.T, Name: c.Name}
		}
		out = &Project{Input: out, Exprs: final, Cols: cols}
	}
	return out, nil
}

// outputType turns unknown-typed outputs (a bare string literal) into text.
func outputType(t types.T) types.T {
	if t.Family == types.Unknown {
		return types.TText
	}
	return t
}

// expandFields expands *, t.* and (x).* and names every output column the way
// PostgreSQL does (column name, function name, or ?column?).
func (b *Binder) expandFields(fl *ast.FieldList, s *scope) ([]ast.ExprNode, []string, error) {
	var fields []ast.ExprNode
	var names []string
	for _, f := range fl.Fields {
		if f.WildCard != nil {
			table := f.WildCard.Table.O
			n := 0
			for i, c := range s.cols {
				if (c.Hidden && !(c.Merged && table != "")) || (table != "" && c.Table != table) {
					continue
				}
				col := &ast.ColumnName{Name: ast.NewCIStr(c.Name)}
				if c.Table != "" {
					col.Table = ast.NewCIStr(c.Table)
				}
				fields = append(fields, &starColumn{ColumnNameExpr: ast.ColumnNameExpr{Name: col}, idx: i})
				names = append(names, c.Name)
				n++
			}
			if table != "" && n == 0 && !s.hasTable(table) {
				return nil, nil, pgerror.New(pgerror.CodeUndefinedTable, "missing FROM-clause entry for table %q", table)
			}
			if table == "" && len(s.cols) == 0 {
				return nil, nil, pgerror.New(pgerror.CodeSyntaxError, "SELECT * with no tables specified is not valid")
			}
			continue
		}
		if inner, ok := fieldStar(f.Expr); ok {
			fs, ns, err := b.expandFieldStar(inner, s)
			if err != nil {
				return nil, nil, err
			}
			fields, names = append(fields, fs...), append(names, ns...)
			continue
		}
		fields = append(fields, f.Expr)
		name := f.AsName.O
		if name == "" {
			name = columnName(f.Expr)
		}
		names = append(names, name)
	}
	return fields, names, nil
}

// starColumn is a column * expands to: it binds to its position, so that
// columns of the same name (two unnest results) stay apart.
type starColumn struct {
	ast.ColumnNameExpr
	idx int
}

// columnName is PostgreSQL's FigureColname in outline.
func columnName(e ast.ExprNode) string {
	switch x := e.(type) {
	case *ast.ColumnNameExpr:
		return x.Name.Name.O
	case *ast.FuncCallExpr:
		switch x.FnName.L {
		case "pg_cast":
			if len(x.Args) == 2 {
				if n := columnName(x.Args[0]); n != "?column?" && !typeNamed(x.Args[0]) {
					return n
				}
				if lit, ok := x.Args[1].(ast.ValueExpr); ok {
					if t, err := types.ParseTypeName(lit.GetString()); err == nil {
						return pgTypeColumnName(t)
					}
				}
			}
		case "pg_param", "pg_op":
			return "?column?"
		case "pg_extract":
			return "extract"
		case "pg_filter", "pg_distinct", "pg_agg_order", "pg_within_group", "pg_subscript", "pg_slice":
			return columnName(x.Args[0])
		case "pg_array":
			return "array"
		case "pg_row":
			return "row"
		case "pg_field":
			if lit, ok := x.Args[1].(*parser.Literal); ok {
				return lit.Value.Str()
			}
		}
		return x.FnName.L
	case *parser.Literal:
		if x.Type.Family == types.Bool {
			return "bool" // TRUE is 't'::bool in PostgreSQL's grammar
		}
	case *ast.AggregateFuncExpr:
		return lowerASCII(x.F)
	case *ast.WindowFuncExpr:
		if call, ok := windowAggMarker(x); ok {
			return columnName(call)
		}
		return lowerASCII(x.Name)
	case *ast.ParenthesesExpr:
		return columnName(x.Expr)
	case *ast.RowExpr:
		return "row"
	case *ast.CaseExpr:
		return "case"
	case *ast.ExistsSubqueryExpr:
		return "exists"
	case *ast.SubqueryExpr:
		if sel, ok := x.Query.(*ast.SelectStmt); ok && sel.Fields != nil && len(sel.Fields.Fields) == 1 && sel.Fields.Fields[0].Expr != nil {
			if sel.Fields.Fields[0].AsName.O != "" {
				return sel.Fields.Fields[0].AsName.O
			}
			return columnName(sel.Fields.Fields[0].Expr)
		}
	}
	return "?column?"
}

// typeNamed reports whether e is named after a type, as a cast of a
// literal is: a cast around it takes its own type's name instead (as
// PostgreSQL's FigureColname ranks names).
func typeNamed(e ast.ExprNode) bool {
	x, ok := e.(*ast.FuncCallExpr)
	if !ok || x.FnName.L != "pg_cast" || len(x.Args) != 2 {
		return false
	}
	return columnName(x.Args[0]) == "?column?" || typeNamed(x.Args[0])
}

// pgTypeColumnName is the column name PostgreSQL gives a cast of a literal.
func pgTypeColumnName(t types.T) string {
	switch t.Family {
	case types.Array:
		return pgTypeColumnName(t.ElemType())
	case types.Int2:
		return "int2"
	case types.Int4:
		return "int4"
	case types.Int8:
		return "int8"
	case types.Float4:
		return "float4"
	case types.Float8:
		return "float8"
	case types.Bool:
		return "bool"
	case types.Varchar:
		return "varchar"
	case types.Bpchar:
		return "bpchar"
	case types.Timestamp:
		return "timestamp"
	case types.TimestampTZ:
		return "timestamptz"
	case types.Time:
		return "time"
	}
	n := t
	n.Mod = -1
	return n.String()
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// bindCondition binds a boolean clause (WHERE, ON; HAVING when clause is
// "", where aggregates stay allowed). Window functions are not allowed.
func (b *Binder) bindCondition(n ast.ExprNode, s *scope, clause string) (expr.Expr, error) {
	what, where := clause, clause
	switch clause {
	case "":
		what, where = "HAVING", "HAVING"
	case "JOIN/ON":
		where = "JOIN conditions" // PostgreSQL's wording there
	}
	if clause != "" {
		saved := b.aggForbidden
		b.aggForbidden = where
		defer func() { b.aggForbidden = saved }()
	}
	defer b.noWindows(windowsNotAllowed(where))()
	defer b.noSRFs(srfsNotAllowed(where))()
	return b.bindBool(n, s, what)
}

func (b *Binder) bindLimit(l *ast.Limit, in Node, s *scope) (Node, error) {
	if l == nil {
		return in, nil
	}
	lim := &Limit{Input: in}
	bind := func(n ast.ExprNode) (expr.Expr, error) {
		if n == nil {
			return nil, nil
		}
		e, err := b.bindExpr(n, s.parent.child(nil, s.sub))
		if err != nil {
			return nil, err
		}
		return b.coerceTo(e, types.TInt8)
	}
	count := l.Count
	if f, ok := count.(*ast.FuncCallExpr); ok && f.FnName.L == "pg_with_ties" {
		// FETCH ... WITH TIES (see package parser).
		if _, sorted := in.(*Sort); !sorted {
			return nil, pgerror.New(pgerror.CodeSyntaxError, "WITH TIES cannot be specified without ORDER BY clause")
		}
		count, lim.WithTies = f.Args[0], true
	}
	var err error
	if lim.Count, err = bind(count); err != nil {
		return nil, err
	}
	if lim.Offset, err = bind(l.Offset); err != nil {
		return nil, err
	}
	return lim, nil
}

func (b *Binder) bindValues(rows []*ast.RowExpr, outer *scope, sub *subqueryInfo) (Node, error) {
	s := outer.child(nil, sub)
	v := &Values{}
	for _, r := range rows {
		row := make([]expr.Expr, len(r.Values))
		for i, x := range r.Values {
			e, err := b.bindExpr(x, s)
			if err != nil {
				return nil, err
			}
			row[i] = e
		}
		if len(v.Rows) > 0 && len(row) != len(v.Rows[0]) {
			return nil, pgerror.New(pgerror.CodeSyntaxError, "VALUES lists must all be the same length")
		}
		v.Rows = append(v.Rows, row)
	}
	for c := range v.Rows[0] {
		col := make([]expr.Expr, len(v.Rows))
		for r := range v.Rows {
			col[r] = v.Rows[r][c]
		}
		t, err := b.commonType(col, "VALUES")
		if err != nil {
			return nil, err
		}
		for r := range v.Rows {
			if v.Rows[r][c], err = b.coerceTo(v.Rows[r][c], t); err != nil {
				return nil, err
			}
		}
		v.Cols = append(v.Cols, Column{Name: "column" + itoa(c+1), T: t})
	}
	return v, nil
}

func itoa(i int) string {
	return string(types.FormatText(nil, types.TInt8, types.NewInt(int64(i))))
}
