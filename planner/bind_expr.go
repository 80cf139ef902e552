package planner

import (
	"math"
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

var binaryOps = map[opcode.Op]string{
	opcode.Plus: "+", opcode.Minus: "-", opcode.Mul: "*", opcode.Div: "/", opcode.IntDiv: "/",
	opcode.Mod: "%", opcode.Xor: "^",
	opcode.EQ: "=", opcode.NE: "<>", opcode.LT: "<", opcode.LE: "<=", opcode.GT: ">", opcode.GE: ">=",
}

// bindExpr binds a scalar expression in scope s.
func (b *Binder) bindExpr(n ast.ExprNode, s *scope) (expr.Expr, error) {
	switch x := n.(type) {
	case *parser.Literal:
		return expr.NewConst(x.Value, x.Type), nil
	case *ast.ParenthesesExpr:
		return b.bindExpr(x.Expr, s)
	case *ast.ColumnNameExpr:
		e, err := s.resolve(x.Name.Table.O, x.Name.Name.O)
		if err != nil && b.inlining != nil {
			if arg, ok := b.inlining.named(x.Name.Table.O, x.Name.Name.O); ok {
				return arg, nil
			}
		}
		return e, err
	case *starColumn:
		c := s.cols[x.idx]
		return &expr.ColRef{Idx: x.idx, T: c.T, Name: qualified(c.Table, c.Name)}, nil
	case *ast.BinaryOperationExpr:
		return b.bindBinary(x, s)
	case *ast.UnaryOperationExpr:
		return b.bindUnary(x, s)
	case *ast.FuncCallExpr:
		return b.bindFuncCall(x, s)
	case *ast.AggregateFuncExpr:
		call, _ := aggregateCall(x)
		return b.bindAggregate(call, nil, s)
	case *ast.CaseExpr:
		return b.bindCase(x, s)
	case *ast.IsNullExpr:
		e, err := b.bindExpr(x.Expr, s)
		if err != nil {
			return nil, err
		}
		return &expr.IsNull{E: e, Not: x.Not}, nil
	case *ast.IsTruthExpr:
		e, err := b.bindBool(x.Expr, s, "IS TRUE")
		if err != nil {
			return nil, err
		}
		return &expr.IsBool{E: e, Value: x.True != 0, Not: x.Not}, nil
	case *ast.BetweenExpr:
		return b.bindBetween(x, s)
	case *ast.PatternInExpr:
		return b.bindIn(x, s)
	case *ast.PatternLikeOrIlikeExpr:
		return b.bindLike(x, s)
	case *ast.ExistsSubqueryExpr:
		sq, err := b.bindSubquery(x.Sel.(*ast.SubqueryExpr), s, expr.SubExists)
		if err != nil {
			return nil, err
		}
		if x.Not {
			return &expr.Not{E: sq}, nil
		}
		return sq, nil
	case *ast.SubqueryExpr:
		return b.bindSubquery(x, s, expr.SubScalar)
	case *ast.CompareSubqueryExpr:
		return b.bindCompareSubquery(x, s)
	case *ast.DefaultExpr:
		return nil, pgerror.New(pgerror.CodeSyntaxError, "DEFAULT is not allowed in this context")
	case *ast.WindowFuncExpr:
		return b.bindWindowFunc(x, s)
	case *ast.RowExpr:
		return b.bindRow(x.Values, s)
	}
	return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "expression %T is not supported", n)
}

// bindBool binds an expression that must be boolean.
func (b *Binder) bindBool(n ast.ExprNode, s *scope, what string) (expr.Expr, error) {
	e, err := b.bindExpr(n, s)
	if err != nil {
		return nil, err
	}
	if e, err = b.coerce(e, types.TBool); err != nil {
		return nil, err
	}
	if e.Type().Family != types.Bool {
		return nil, pgerror.New(pgerror.CodeDatatypeMismatch, "argument of %s must be type boolean, not type %s", what, e.Type())
	}
	return e, nil
}

func (b *Binder) bindBinary(x *ast.BinaryOperationExpr, s *scope) (expr.Expr, error) {
	switch x.Op {
	case opcode.LogicAnd, opcode.LogicOr:
		name := "AND"
		if x.Op == opcode.LogicOr {
			name = "OR"
		}
		l, err := b.bindBool(x.L, s, name)
		if err != nil {
			return nil, err
		}
		r, err := b.bindBool(x.R, s, name)
		if err != nil {
			return nil, err
		}
		// a AND b AND c is one AND, as PostgreSQL's grammar makes it
		// (makeAndExpr): a left operand that is an AND (OR) written as
		// one gives its arguments; any other, a BETWEEN say, stays whole.
		args := []expr.Expr{l, r}
		if inner, ok := unparen(x.L).(*ast.BinaryOperationExpr); ok && inner.Op == x.Op {
			switch lx := l.(type) {
			case *expr.And:
				if x.Op == opcode.LogicAnd {
					args = append(slices.Clone(lx.Args), r)
				}
			case *expr.Or:
				if x.Op == opcode.LogicOr {
					args = append(slices.Clone(lx.Args), r)
				}
			}
		}
		if x.Op == opcode.LogicAnd {
			return expr.NewAnd(args...), nil
		}
		return expr.NewOr(args...), nil
	case opcode.NullEQ:
		if lf, ok := rowCtorFields(x.L); ok {
			if rf, ok := rowCtorFields(x.R); ok {
				return b.bindRowCompare(x.Op, lf, rf, s)
			}
		}
		l, r, err := b.bindPair(x.L, x.R, s)
		if err != nil {
			return nil, err
		}
		if l, r, err = b.typeUnknowns("=", l, r); err != nil {
			return nil, err
		}
		ct, ok := expr.ComparisonType(l.Type(), r.Type())
		if !ok {
			return nil, pgerror.New(pgerror.CodeUndefinedFunction, "operator does not exist: %s = %s", l.Type(), r.Type())
		}
		if l, err = b.coerceTo(l, expr.ComparedAs(l.Type(), ct)); err != nil {
			return nil, err
		}
		if r, err = b.coerceTo(r, expr.ComparedAs(r.Type(), ct)); err != nil {
			return nil, err
		}
		return &expr.NullSafeEq{L: l, R: r}, nil
	}
	op, ok := binaryOps[x.Op]
	if !ok {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "operator %s is not supported", x.Op)
	}
	if call, ok := quantifiedArray(x.R); ok && expr.IsComparison(op) {
		return b.bindArrayCompare(op, x.L, call, s)
	}
	if lf, ok := rowCtorFields(x.L); ok && expr.IsComparison(op) {
		if rf, ok := rowCtorFields(x.R); ok {
			return b.bindRowCompare(x.Op, lf, rf, s)
		}
	}
	l, r, err := b.bindPair(x.L, x.R, s)
	if err != nil {
		return nil, err
	}
	return b.binary(op, l, r)
}

// binary resolves op after giving unknown-typed operands the other side's
// type (text when both are unknown).
func (b *Binder) binary(op string, l, r expr.Expr) (expr.Expr, error) {
	l, r, err := b.typeUnknowns(op, l, r)
	if err != nil {
		return nil, err
	}
	return expr.NewBinary(op, l, r)
}

// typeUnknowns gives the operands of op that are untyped literals (NULL,
// '...') the type PostgreSQL's operator resolution gives them: the other
// operand's, or text when both are unknown.
func (b *Binder) typeUnknowns(op string, l, r expr.Expr) (expr.Expr, expr.Expr, error) {
	var err error
	lu, ru := l.Type().Family == types.Unknown, r.Type().Family == types.Unknown
	switch {
	case lu && ru:
		if l, err = b.coerce(l, types.TText); err != nil {
			return nil, nil, err
		}
		if r, err = b.coerce(r, types.TText); err != nil {
			return nil, nil, err
		}
	case lu:
		if op == "+" && r.Type().Family == types.Date {
			return nil, nil, ambiguousOperator(op, l.Type(), r.Type())
		}
		if l, err = b.coerce(l, unknownPeer(op, r.Type())); err != nil {
			return nil, nil, err
		}
	case ru:
		if op == "+" && l.Type().Family == types.Date {
			return nil, nil, ambiguousOperator(op, l.Type(), r.Type())
		}
		if r, err = b.coerce(r, unknownPeer(op, l.Type())); err != nil {
			return nil, nil, err
		}
	}
	return l, r, nil
}

// ambiguousOperator is PostgreSQL's error for an operator whose candidates
// an unknown operand cannot choose between: date + unknown could be date +
// integer, date + interval or date + time.
func ambiguousOperator(op string, l, r types.T) error {
	return pgerror.New(pgerror.CodeAmbiguousFunction, "operator is not unique: %s %s %s", l, op, r).
		WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.")
}

// unknownPeer is the type an unknown literal takes opposite a known operand.
func unknownPeer(op string, other types.T) types.T {
	if other.Family == types.Jsonb {
		if t, ok := expr.JSONOperandType(op); ok {
			return t
		}
	}
	if other.Family == types.Array {
		return other.WithoutMod() // so array || '{...}' is array_cat
	}
	if op == "||" && !other.IsString() && other.Family != types.Bytea {
		return types.TText
	}
	if op == "+" && (other.Family == types.Timestamp || other.Family == types.TimestampTZ || other.Family == types.Time) {
		// The only + of a timestamp or a time takes an interval; - takes
		// the same type (timestamp - timestamp) as the default below.
		return types.TInterval
	}
	if other.Family == types.Varchar {
		// varchar has no operators of its own; PostgreSQL resolves to text's.
		return types.TText
	}
	other.Mod = -1
	return other
}

// unparen strips the parentheses around n.
func unparen(n ast.ExprNode) ast.ExprNode {
	for {
		p, ok := n.(*ast.ParenthesesExpr)
		if !ok {
			return n
		}
		n = p.Expr
	}
}

func (b *Binder) bindPair(ln, rn ast.ExprNode, s *scope) (expr.Expr, expr.Expr, error) {
	l, err := b.bindExpr(ln, s)
	if err != nil {
		return nil, nil, err
	}
	r, err := b.bindExpr(rn, s)
	if err != nil {
		return nil, nil, err
	}
	return l, r, nil
}

func (b *Binder) bindUnary(x *ast.UnaryOperationExpr, s *scope) (expr.Expr, error) {
	switch x.Op {
	case opcode.Not, opcode.Not2:
		e, err := b.bindBool(x.V, s, "NOT")
		if err != nil {
			return nil, err
		}
		return expr.NewNot(e), nil
	case opcode.Plus:
		return b.bindExpr(x.V, s)
	case opcode.Minus:
		if lit, ok := x.V.(*parser.Literal); ok && lit.Type.IsNumeric() {
			return negateLiteral(lit)
		}
		e, err := b.bindExpr(x.V, s)
		if err != nil {
			return nil, err
		}
		if e, err = b.coerce(e, types.TNumeric); err != nil {
			return nil, err
		}
		zero, err := zeroOf(e.Type())
		if err != nil {
			return nil, err
		}
		return expr.NewBinary("-", zero, e)
	}
	return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "operator %s is not supported", x.Op)
}

// negateLiteral folds -literal, so that -2147483648 is an int4 as in
// PostgreSQL.
func negateLiteral(lit *parser.Literal) (expr.Expr, error) {
	v := lit.Value
	switch {
	case lit.Type.IsInteger():
		n := -v.Int()
		if lit.Type.Family == types.Int8 && n == -2147483648 {
			return expr.NewConst(types.NewInt(n), types.TInt4), nil
		}
		return expr.NewConst(types.NewInt(n), lit.Type), nil
	case lit.Type.Family == types.Numeric:
		d, err := expr.NumericSub(expr.DecimalFromInt(0), v.Decimal())
		if err != nil {
			return nil, err
		}
		if d.IsZero() {
			d = v.Decimal()
		}
		if lit.Type == types.TNumeric && d.Cmp(expr.DecimalFromInt(-9223372036854775808)) == 0 {
			return expr.NewConst(types.NewInt(-9223372036854775808), types.TInt8), nil
		}
		return expr.NewConst(types.NewDecimal(d), lit.Type), nil
	}
	return expr.NewConst(types.NewFloat(-v.Float()), lit.Type), nil
}

func zeroOf(t types.T) (expr.Expr, error) {
	switch {
	case t.IsInteger():
		return expr.NewConst(types.NewInt(0), t), nil
	case t.Family == types.Numeric:
		return expr.NewConst(types.NewDecimal(expr.DecimalFromInt(0)), types.TNumeric), nil
	case t.Family == types.Float4 || t.Family == types.Float8:
		// -0 - x is -x for every float, as float8um: -(0) is -0.
		return expr.NewConst(types.NewFloat(math.Copysign(0, -1)), t), nil
	case t.Family == types.Interval:
		return expr.NewConst(types.NewInterval(types.IntervalValue{}), t), nil
	}
	return nil, pgerror.New(pgerror.CodeUndefinedFunction, "operator does not exist: - %s", t).
		WithHint("No operator matches the given name and argument type. You might need to add an explicit type cast.")
}

func (b *Binder) bindArgs(args []ast.ExprNode, s *scope) ([]expr.Expr, error) {
	out := make([]expr.Expr, len(args))
	for i, a := range args {
		e, err := b.bindExpr(a, s)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

func (b *Binder) bindFuncCall(x *ast.FuncCallExpr, s *scope) (expr.Expr, error) {
	name := x.FnName.L
	switch name {
	case "pg_cast":
		return b.bindCast(x, s)
	case "pg_param":
		lit := x.Args[0].(*parser.Literal)
		idx := int(lit.Value.Int()) - 1
		if b.inlining != nil {
			return b.inlining.param(idx + 1)
		}
		b.SetNumParams(idx + 1)
		return &expr.Param{Idx: idx, T: b.params[idx]}, nil
	case "pg_nulls_first", "pg_nulls_last":
		return nil, pgerror.New(pgerror.CodeSyntaxError, "NULLS FIRST/LAST is only allowed in ORDER BY")
	case "pg_array":
		return b.bindArray(x.Args, s, types.TUnknown)
	case "pg_subscript", "pg_slice":
		return b.bindSubscript(x, s)
	case "pg_array_query":
		return b.bindArraySubquery(x.Args[0], s)
	case "pg_row":
		return b.bindRow(x.Args, s)
	case "pg_field":
		return b.bindFieldSel(x, s)
	case "pg_any", "pg_all":
		quant := map[string]string{"pg_any": "ANY", "pg_all": "ALL"}[name]
		return nil, pgerror.New(pgerror.CodeSyntaxError, "syntax error at or near \"%s\"", quant)
	case "grouping":
		return b.bindGrouping(x, s)
	}
	if expr.IsSetReturning(name) {
		return b.bindSetFunc(name, x.Args, s)
	}
	if name == "pg_filter" {
		// agg(...) FILTER (WHERE cond), see sql/parser.
		call, ok := aggregateCall(x.Args[0])
		if !ok {
			return nil, pgerror.New(pgerror.CodeWrongObjectType, "FILTER specified, but %s is not an aggregate function", columnName(x.Args[0]))
		}
		return b.bindAggregate(call, x.Args[1], s)
	}
	if call, ok := aggregateCall(x); ok {
		return b.bindAggregate(call, nil, s)
	}
	switch name {
	case "pg_distinct":
		return nil, pgerror.New(pgerror.CodeWrongObjectType, "DISTINCT specified, but %s is not an aggregate function", columnName(x.Args[0]))
	case "pg_agg_order":
		return nil, pgerror.New(pgerror.CodeWrongObjectType, "ORDER BY specified, but %s is not an aggregate function", columnName(x.Args[0]))
	case "pg_within_group":
		return nil, b.withinGroupOfFunc(x, s)
	}
	argNodes := x.Args
	if name == "coalesce" {
		defer b.noSRFs(srfsNotAllowed("COALESCE").WithHint(srfHint))()
	}
	if name == "trim" && len(argNodes) == 3 {
		argNodes = argNodes[:2] // the third is TiDB's TrimDirectionExpr
	}
	args, err := b.bindArgs(argNodes, s)
	if err != nil {
		return nil, err
	}
	if e, ok, err := b.bindUserFunc(x.Schema.O, x.FnName.O, args); ok {
		return e, err
	}
	if _, ok := catalogFuncs[name]; ok {
		return b.bindCatalogFunc(name, args)
	}
	if isSequenceCall(name) {
		return b.bindSequenceFunc(name, args)
	}
	switch name {
	case "current_schema", "current_schemas":
		return b.bindSearchPathFunc(name, args)
	case "pg_database_size":
		return b.bindDatabaseSize(args)
	}
	switch name {
	case "pg_op":
		return b.bindOperator(args)
	case "trim":
		return b.bindTrim(x, args)
	case "coalesce", "greatest", "least":
		t, err := b.commonType(args, name)
		if err != nil {
			return nil, err
		}
		for i := range args {
			if args[i], err = b.coerceTo(args[i], t); err != nil {
				return nil, err
			}
		}
		if name == "coalesce" {
			return &expr.Coalesce{Args: args, T: t}, nil
		}
		return expr.NewFunc(name, args)
	case "nullif":
		if len(args) != 2 {
			return nil, pgerror.New(pgerror.CodeUndefinedFunction, "function nullif requires two arguments")
		}
		l, r, err := b.typeUnknowns("=", args[0], args[1])
		if err != nil {
			return nil, err
		}
		return expr.NewNullIf(l, r)
	case "pg_extract":
		name = "extract" // EXTRACT(field FROM x), see sql/parser
	case "position":
		// POSITION(a IN b) arrives as position(a, b).
		if len(args) == 2 {
			name, args = "strpos", []expr.Expr{args[1], args[0]}
		}
	}
	for i := range args {
		if args[i].Type().Family == types.Unknown {
			if _, ok := args[i].(*expr.Param); ok {
				if args[i], err = b.coerce(args[i], types.TText); err != nil {
					return nil, err
				}
			}
		}
	}
	return expr.NewFunc(name, args)
}

// bindOperator binds pg_op('op', l, r) and pg_op('op', x): the operators
// of PostgreSQL the TiDB grammar lacks, carried by the SQL front.
func (b *Binder) bindOperator(args []expr.Expr) (expr.Expr, error) {
	op := args[0].(*expr.Const).V.Str()
	if len(args) == 3 {
		switch op {
		case "||", "@>", "<@", "&&", "->", "->>", "#>", "#>>", "?", "?|", "?&", "#-", "@?", "&", "|", "#", "<<", ">>":
			return b.binary(op, args[1], args[2])
		case "~", "~*", "!~", "!~*":
			l, err := b.coerce(args[1], types.TText)
			if err != nil {
				return nil, err
			}
			r, err := b.coerce(args[2], types.TText)
			if err != nil {
				return nil, err
			}
			return expr.NewRegexMatch(op, l, r)
		}
		return nil, pgerror.New(pgerror.CodeUndefinedFunction, "operator does not exist: %s %s %s", args[1].Type(), op, args[2].Type()).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
	}
	if x := args[1]; op == "~" && x.Type().IsInteger() {
		// ~x is x # -1, every bit flipped.
		return b.binary("#", x, expr.NewConst(types.NewInt(-1), x.Type().WithoutMod()))
	}
	return nil, pgerror.New(pgerror.CodeUndefinedFunction, "operator does not exist: %s %s", op, args[1].Type()).
		WithHint("No operator matches the given name and argument type. You might need to add an explicit type cast.")
}

// bindTrim maps TiDB's TRIM([BOTH|LEADING|TRAILING] [chars] FROM s), which
// arrives as trim(s, chars, direction), onto btrim, ltrim and rtrim.
func (b *Binder) bindTrim(x *ast.FuncCallExpr, args []expr.Expr) (expr.Expr, error) {
	name := "btrim"
	if len(x.Args) == 3 {
		if d, ok := x.Args[2].(*ast.TrimDirectionExpr); ok {
			switch d.Direction {
			case ast.TrimLeading:
				name = "ltrim"
			case ast.TrimTrailing:
				name = "rtrim"
			}
		}
	}
	for i := range args {
		var err error
		if args[i], err = b.coerce(args[i], types.TText); err != nil {
			return nil, err
		}
	}
	return expr.NewFunc(name, args)
}

func (b *Binder) bindCast(x *ast.FuncCallExpr, s *scope) (expr.Expr, error) {
	typeName := x.Args[1].(*parser.Literal).Value.Str()
	if lit, ok := x.Args[0].(*parser.Literal); ok && lit.Value.Kind() == types.KindString {
		switch typeName {
		case "regclass":
			return b.regclass(lit.Value.Str())
		case "regtype":
			return regtype(lit.Value.Str())
		case "regproc", "regprocedure":
			return b.regproc(lit.Value.Str(), typeName == "regprocedure")
		}
	}
	if oidAliasTypes[typeName] {
		typeName = "oid"
	}
	t, err := types.ParseTypeName(typeName)
	if err != nil {
		return nil, err
	}
	if call, ok := x.Args[0].(*ast.FuncCallExpr); ok && call.FnName.L == "pg_array" && t.Family == types.Array {
		return b.bindArray(call.Args, s, t)
	}
	e, err := b.bindExpr(x.Args[0], s)
	if err != nil {
		return nil, err
	}
	if p, ok := e.(*expr.Param); ok && p.T.Family == types.Unknown {
		return b.coerce(e, t)
	}
	return expr.CastTo(e, t)
}

// isCountStar reports whether a call is count(*), which TiDB parses as
// count(1); both count every row.
func isCountStar(name string, args []ast.ExprNode, distinct bool) bool {
	if name != "count" || len(args) != 1 || distinct {
		return false
	}
	lit, ok := args[0].(*parser.Literal)
	return ok && !lit.Value.IsNull()
}

func (b *Binder) bindCase(x *ast.CaseExpr, s *scope) (expr.Expr, error) {
	defer b.noSRFs(srfsNotAllowed("CASE").WithHint(srfHint))()
	var operand expr.Expr
	var err error
	if x.Value != nil {
		if operand, err = b.bindExpr(x.Value, s); err != nil {
			return nil, err
		}
	}
	c := &expr.Case{}
	for _, w := range x.WhenClauses {
		var cond expr.Expr
		if operand != nil {
			v, err := b.bindExpr(w.Expr, s)
			if err != nil {
				return nil, err
			}
			if cond, err = b.binary("=", operand, v); err != nil {
				return nil, err
			}
		} else if cond, err = b.bindBool(w.Expr, s, "CASE/WHEN"); err != nil {
			return nil, err
		}
		then, err := b.bindExpr(w.Result, s)
		if err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, cond)
		c.Thens = append(c.Thens, then)
	}
	results := append([]expr.Expr{}, c.Thens...)
	if x.ElseClause != nil {
		if c.Else, err = b.bindExpr(x.ElseClause, s); err != nil {
			return nil, err
		}
		results = append(results, c.Else)
	}
	if c.T, err = b.commonType(results, "CASE"); err != nil {
		return nil, err
	}
	for i := range c.Thens {
		if c.Thens[i], err = b.coerceTo(c.Thens[i], c.T); err != nil {
			return nil, err
		}
	}
	if c.Else != nil {
		if c.Else, err = b.coerceTo(c.Else, c.T); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (b *Binder) bindBetween(x *ast.BetweenExpr, s *scope) (expr.Expr, error) {
	v, err := b.bindExpr(x.Expr, s)
	if err != nil {
		return nil, err
	}
	lo, hi, err := b.bindPair(x.Left, x.Right, s)
	if err != nil {
		return nil, err
	}
	lop, hop := ">=", "<="
	if x.Not {
		lop, hop = "<", ">"
	}
	l, err := b.binary(lop, v, lo)
	if err != nil {
		return nil, err
	}
	h, err := b.binary(hop, v, hi)
	if err != nil {
		return nil, err
	}
	if x.Not {
		return expr.NewOr(l, h), nil
	}
	return expr.NewAnd(l, h), nil
}

func (b *Binder) bindIn(x *ast.PatternInExpr, s *scope) (expr.Expr, error) {
	if x.Sel != nil {
		sq, err := b.bindQuantified(x.Expr, x.Sel.(*ast.SubqueryExpr), "=", expr.SubAny, s)
		if err != nil {
			return nil, err
		}
		if x.Not {
			return &expr.Not{E: sq}, nil
		}
		return sq, nil
	}
	if l, ok := rowCtorFields(x.Expr); ok {
		return b.bindRowIn(l, x.List, x.Not, s)
	}
	v, err := b.bindExpr(x.Expr, s)
	if err != nil {
		return nil, err
	}
	list, err := b.bindArgs(x.List, s)
	if err != nil {
		return nil, err
	}
	t, err := b.commonType(append([]expr.Expr{v}, list...), "IN")
	if err != nil {
		return nil, err
	}
	// As in PostgreSQL, x compares with the items by the = operator for
	// its type and theirs (a date with timestamps uncast); the items take
	// the common type, but a lone one or one over columns compares as
	// x = item does.
	if v, err = b.coerceTo(v, expr.ComparedAs(v.Type(), t)); err != nil {
		return nil, err
	}
	for i := range list {
		it := t
		if _, isConst := list[i].(*expr.Const); len(list) == 1 || !isConst {
			it = expr.ComparedAs(list[i].Type(), t)
		}
		if list[i], err = b.coerceTo(list[i], it); err != nil {
			return nil, err
		}
	}
	return &expr.InList{E: v, List: list, Not: x.Not}, nil
}

func (b *Binder) bindLike(x *ast.PatternLikeOrIlikeExpr, s *scope) (expr.Expr, error) {
	v, p, err := b.bindPair(x.Expr, x.Pattern, s)
	if err != nil {
		return nil, err
	}
	if v, err = b.coerce(v, types.TText); err != nil {
		return nil, err
	}
	if p, err = b.coerce(p, types.TText); err != nil {
		return nil, err
	}
	if !v.Type().IsString() || !p.Type().IsString() {
		return nil, pgerror.New(pgerror.CodeUndefinedFunction, "operator does not exist: %s ~~ %s", v.Type(), p.Type()).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
	}
	l := &expr.Like{E: v, Pattern: p, CaseInsensitive: !x.IsLike, Not: x.Not}
	if x.Escape != '\\' {
		esc := ""
		if x.Escape != 0 {
			esc = string(rune(x.Escape))
		}
		l.Escape = expr.NewConst(types.NewString(esc), types.TText)
	}
	return l, nil
}

// bindSubquery binds a nested query used as an expression. EXISTS runs
// the simpler query existsQuery makes, once the query itself is bound (for
// its errors).
func (b *Binder) bindSubquery(q *ast.SubqueryExpr, s *scope, mode expr.SubqueryMode) (*expr.Subquery, error) {
	info := &subqueryInfo{}
	saved, savedForbidden := b.agg, b.aggForbidden
	b.agg, b.aggForbidden = nil, ""
	node, err := b.bindQuery(q.Query, s, info)
	if err == nil && mode == expr.SubExists {
		if simple, ok := existsQuery(q.Query); ok {
			info = &subqueryInfo{}
			node, err = b.bindQuery(simple, s, info)
		}
	}
	b.agg, b.aggForbidden = saved, savedForbidden
	if err != nil {
		return nil, err
	}
	cols := node.Columns()
	sq := &expr.Subquery{Mode: mode, Plan: &subPlan{node: node}, Correlated: info.correlated, T: types.TBool}
	if mode == expr.SubScalar {
		if len(cols) != 1 {
			return nil, pgerror.New(pgerror.CodeSyntaxError, "subquery must return only one column")
		}
		sq.T = cols[0].T
	}
	return sq, nil
}

// bindQuantified binds x op ANY/ALL (subquery), including IN.
func (b *Binder) bindQuantified(xn ast.ExprNode, q *ast.SubqueryExpr, op string, mode expr.SubqueryMode, s *scope) (expr.Expr, error) {
	x, err := b.bindExpr(xn, s)
	if err != nil {
		return nil, err
	}
	sq, err := b.bindSubquery(q, s, mode)
	if err != nil {
		return nil, err
	}
	cols := sq.Plan.(*subPlan).node.Columns()
	if len(cols) != 1 {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "subquery has too many columns")
	}
	if x, err = b.coerce(x, cols[0].T); err != nil {
		return nil, err
	}
	cmp, err := b.binary(op, &expr.ColRef{Idx: 0, T: x.Type()}, &expr.ColRef{Idx: 1, T: cols[0].T})
	if err != nil {
		return nil, err
	}
	sq.Test, sq.Cmp = x, cmp
	return sq, nil
}

func (b *Binder) bindCompareSubquery(x *ast.CompareSubqueryExpr, s *scope) (expr.Expr, error) {
	op, ok := binaryOps[x.Op]
	if !ok || !expr.IsComparison(op) {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "operator %s is not supported with ANY/ALL", x.Op)
	}
	q, ok := x.R.(*ast.SubqueryExpr)
	if !ok {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "ANY/ALL needs a subquery")
	}
	mode := expr.SubAny
	if x.All {
		mode = expr.SubAll
	}
	return b.bindQuantified(x.L, q, op, mode, s)
}

// commonType is PostgreSQL's select_common_type in outline: unknowns
// follow the others (text if all are unknown); numeric types widen; string
// types meet at text; dates meet timestamps.
func (b *Binder) commonType(es []expr.Expr, context string) (types.T, error) {
	var t types.T
	found := false
	for _, e := range es {
		et := e.Type()
		if et.Family == types.Unknown {
			continue
		}
		if !found {
			t, found = et, true
			continue
		}
		ct, ok := meetTypes(t, et)
		if !ok {
			return t, pgerror.New(pgerror.CodeDatatypeMismatch, "%s types %s and %s cannot be matched", context, t, et)
		}
		t = ct
	}
	if !found {
		return types.TText, nil
	}
	return t, nil
}

// meetTypes is the common type of two known types: numeric types widen,
// string types meet at text, dates meet timestamps, arrays meet at the
// array of their elements' common type.
func meetTypes(t, et types.T) (types.T, bool) {
	switch {
	case et == t:
		return t, true
	case et.WithoutMod() == t.WithoutMod():
		return t.WithoutMod(), true
	case et.Family == types.Array && t.Family == types.Array:
		elem, ok := meetTypes(t.ElemType(), et.ElemType())
		if !ok {
			return t, false
		}
		at, err := types.ArrayOf(elem)
		return at, err == nil
	case et.IsNumeric() && t.IsNumeric():
		return expr.NumericResultType(t, et), true
	case et.IsString() && t.IsString():
		return types.TText, true
	}
	ct, ok := expr.ComparisonType(t, et)
	return ct, ok && ct.Family != types.Unknown
}

// withinGroupOfFunc returns PostgreSQL's error for f(args) WITHIN GROUP
// (ORDER BY keys) of a function f that is no aggregate: f is looked up
// with the keys as more arguments.
func (b *Binder) withinGroupOfFunc(x *ast.FuncCallExpr, s *scope) error {
	if f, ok := x.Args[0].(*ast.FuncCallExpr); ok {
		args, err := b.bindArgs(f.Args, s)
		if err != nil {
			return err
		}
		keys, _, err := b.bindAggKeys(x.Args[1:], s)
		if err != nil {
			return err
		}
		if _, err := expr.NewFunc(f.FnName.L, append(args, keys...)); err != nil {
			return err
		}
	}
	return pgerror.New(pgerror.CodeWrongObjectType, "WITHIN GROUP specified, but %s is not an aggregate function", columnName(x.Args[0]))
}
