package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// inlining is a SQL function whose body is being bound: its parameters,
// $n or by name, stand for the call's argument expressions.
type inlining struct {
	fn    *meta.Function
	args  []expr.Expr
	outer *inlining
}

// param returns the argument for $n.
func (f *inlining) param(n int) (expr.Expr, error) {
	if n < 1 || n > len(f.args) {
		return nil, pgerror.New(pgerror.CodeUndefinedParameterRef, "there is no parameter $%d", n)
	}
	return f.args[n-1], nil
}

// named returns the argument of the parameter called name (qualified by
// the function's name, or not), if any.
func (f *inlining) named(qual, name string) (expr.Expr, bool) {
	if qual != "" && qual != f.fn.Name {
		return nil, false
	}
	i := slices.IndexFunc(f.fn.Args, func(a meta.Column) bool { return a.Name == name })
	if i < 0 {
		return nil, false
	}
	return f.args[i], true
}

// errBody is the 0A000 error for a function body streamdb cannot inline.
func errBody(what string) error {
	return pgerror.New(pgerror.CodeFeatureNotSupported, "%s is not supported in a SQL function", what).
		WithHint("A SQL function's body must be a single SELECT of one expression without FROM, or RETURN expression.")
}

// functionBody parses f's body into the one expression it computes.
func functionBody(f *meta.Function) (ast.ExprNode, error) {
	text := f.Body
	if f.Return {
		text = "SELECT " + text
	}
	stmts, err := parser.Parse(text)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, errBody("a body of other than one statement")
	}
	sel, ok := stmts[0].AST.(*ast.SelectStmt)
	switch {
	case !ok:
		return nil, errBody("a body other than SELECT")
	case sel.From != nil:
		return nil, errBody("SELECT ... FROM")
	case sel.Where != nil || sel.GroupBy != nil || sel.Having != nil || sel.OrderBy != nil || sel.Limit != nil ||
		sel.Distinct || sel.WindowSpecs != nil || sel.With != nil || sel.Kind != ast.SelectStmtKindSelect:
		return nil, errBody("a SELECT with clauses")
	case len(sel.Fields.Fields) != 1 || sel.Fields.Fields[0].WildCard != nil:
		return nil, pgerror.New(pgerror.CodeInvalidFunctionDefinition, "return type mismatch in function declared to return %s", f.Returns).
			WithDetail("Final statement must return exactly one column.")
	}
	return sel.Fields.Fields[0].Expr, nil
}

// CheckFunction validates the function f about to be created: its body
// must be one that streamdb inlines, its defaults must fit their
// parameters, and its result must convert to f.Returns (42P13).
func CheckFunction(cat *meta.Catalog, searchPath []string, f *meta.Function) error {
	b := NewBinder(cat, nil)
	b.SetSearchPath(searchPath)
	args := make([]expr.Expr, len(f.Args))
	for i, a := range f.Args {
		args[i] = &expr.Param{Idx: i, T: a.Type}
		if a.Default != "" {
			if _, err := b.argDefault(f, i); err != nil {
				return err
			}
		}
	}
	_, err := b.inline(f, args)
	return err
}

// argDefault binds the default of f's parameter i, converted to its type.
func (b *Binder) argDefault(f *meta.Function, i int) (expr.Expr, error) {
	stmts, err := parser.Parse("SELECT " + f.Args[i].Default)
	if err != nil {
		return nil, err
	}
	sel, ok := stmts[0].AST.(*ast.SelectStmt)
	if !ok || len(stmts) != 1 || len(sel.Fields.Fields) != 1 {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "invalid default for parameter %d of function %s", i+1, f.Name)
	}
	e, err := b.bindExpr(sel.Fields.Fields[0].Expr, &scope{})
	if err != nil {
		return nil, err
	}
	if !assignable(e.Type(), f.Args[i].Type) && e.Type().Family != types.Unknown {
		return nil, pgerror.New(pgerror.CodeDatatypeMismatch, "argument of function default value must be type %s, not type %s", f.Args[i].Type, e.Type())
	}
	return b.coerceTo(e, f.Args[i].Type)
}

// bindUserFunc binds a call of a SQL function of the catalog by inlining
// its body; ok is false when there is no such function to call and the
// name is left to the built-ins (also by a binder without a catalog).
func (b *Binder) bindUserFunc(schema, name string, args []expr.Expr) (e expr.Expr, ok bool, err error) {
	if b.cat == nil {
		return nil, false, nil
	}
	fns := b.cat.ResolveFunctions(b.searchPath, schema, name)
	if len(fns) == 0 && schema == "" {
		return nil, false, nil
	}
	var cands []*meta.Function
	var sigs [][]types.Family
	for _, f := range fns {
		required := len(f.Args)
		for required > 0 && f.Args[required-1].Default != "" {
			required--
		}
		if len(args) < required || len(args) > len(f.Args) {
			continue
		}
		sig := make([]types.Family, len(args))
		for i := range args {
			sig[i] = f.Args[i].Type.Family
		}
		cands, sigs = append(cands, f), append(sigs, sig)
	}
	i, err := expr.PickSignature(name, sigs, args)
	if err != nil {
		if schema == "" {
			return nil, false, nil // the built-ins may take it
		}
		return nil, true, err
	}
	f := cands[i]
	for k := len(args); k < len(f.Args); k++ {
		d, err := b.argDefault(f, k)
		if err != nil {
			return nil, true, err
		}
		args = append(args, d)
	}
	if !slices.Contains(b.functions, f.ID) {
		b.functions = append(b.functions, f.ID)
	}
	e, err = b.inline(f, args)
	return e, true, err
}

// inline binds f's body with args, cast to the parameters' types, for its
// parameters, and casts the result to f's return type; a STRICT function
// is NULL when an argument is.
func (b *Binder) inline(f *meta.Function, args []expr.Expr) (expr.Expr, error) {
	for fr := b.inlining; fr != nil; fr = fr.outer {
		if fr.fn.ID == f.ID {
			return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "SQL function %q calls itself", f.Name).
				WithHint("Recursive SQL functions are not supported.")
		}
	}
	body, err := functionBody(f)
	if err != nil {
		return nil, err
	}
	cast := make([]expr.Expr, len(args))
	var nulls []expr.Expr
	for i, a := range args {
		if cast[i], err = b.coerceTo(a, f.Args[i].Type); err != nil {
			return nil, err
		}
		if c, ok := cast[i].(*expr.Const); ok && c.V.IsNull() && f.Strict {
			return expr.NewConst(types.Null, f.Returns), nil
		} else if !ok {
			nulls = append(nulls, &expr.IsNull{E: cast[i]})
		}
	}
	outer := b.inlining
	b.inlining = &inlining{fn: f, args: cast, outer: outer}
	e, err := b.bindExpr(body, &scope{})
	b.inlining = outer
	if err != nil {
		return nil, err
	}
	if e.Type().Family == types.Unknown && !f.Return {
		// A SELECT's untyped output is text, as in PostgreSQL.
		if e, err = b.coerce(e, types.TText); err != nil {
			return nil, err
		}
	}
	if t := e.Type(); t != f.Returns {
		if t.Family != types.Unknown && !assignable(t, f.Returns) {
			return nil, pgerror.New(pgerror.CodeInvalidFunctionDefinition, "return type mismatch in function declared to return %s", f.Returns).
				WithDetail("Actual return type is %s.", t)
		}
		if e, err = b.coerceTo(e, f.Returns); err != nil {
			return nil, err
		}
	}
	if f.Strict && len(nulls) > 0 {
		return &expr.Case{Whens: []expr.Expr{expr.NewOr(nulls...)}, Thens: []expr.Expr{expr.NewConst(types.Null, f.Returns)}, Else: e, T: f.Returns}, nil
	}
	return e, nil
}

// Functions returns the ids of the SQL functions the statements bound so
// far call (inlined): the functions a view depends on.
func (b *Binder) Functions() []uint32 { return b.functions }

// functionDef is pg_get_functiondef's text of f.
func functionDef(f *meta.Function) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE OR REPLACE FUNCTION %s.%s(%s)\n RETURNS %s\n LANGUAGE sql\n",
		expr.QuoteIdent(f.Schema), expr.QuoteIdent(f.Name), functionArgs(f, true), f.Returns)
	var opts []string
	switch f.Volatility {
	case 'i':
		opts = append(opts, "IMMUTABLE")
	case 's':
		opts = append(opts, "STABLE")
	}
	if f.Strict {
		opts = append(opts, "STRICT")
	}
	if len(opts) > 0 {
		b.WriteString(" " + strings.Join(opts, " ") + "\n")
	}
	if f.Return {
		b.WriteString("RETURN " + f.Body + "\n")
	} else {
		b.WriteString("AS $function$" + f.Body + "$function$\n")
	}
	return b.String()
}

// functionArgs is pg_get_function_arguments's text of f's parameters
// (pg_get_function_identity_arguments's without defaults).
func functionArgs(f *meta.Function, defaults bool) string {
	parts := make([]string, len(f.Args))
	for i, a := range f.Args {
		parts[i] = a.Type.String()
		if a.Name != "" {
			parts[i] = expr.QuoteIdent(a.Name) + " " + parts[i]
		}
		if defaults && a.Default != "" {
			parts[i] += " DEFAULT " + a.Default
		}
	}
	return strings.Join(parts, ", ")
}

// functionRows are pg_proc's rows: the user functions.
func functionRows(cat *meta.Catalog) [][]types.Datum {
	var rows [][]types.Datum
	for _, f := range cat.Functions() {
		var argTypes, argNames []types.Datum
		named, defaults := false, 0
		for _, a := range f.Args {
			argTypes = append(argTypes, dType(a.Type))
			argNames = append(argNames, dStr(a.Name))
			named = named || a.Name != ""
			if a.Default != "" {
				defaults++
			}
		}
		names := dNull
		if named {
			names = types.NewArray(argNames)
		}
		src := f.Body
		if f.Return {
			src = ""
		}
		rows = append(rows, []types.Datum{dOID(f.ID), dStr(f.Name), dOID(namespaceOID(cat, f.Schema)), dOID(f.OwnerID()), dOID(sqlLanguageOID),
			types.NewFloat(100), types.NewFloat(0), dOID(0), dStr("f"), dFalse, dFalse,
			dBool(f.Strict), dFalse, dStr(string(f.Volatility)), dStr("u"), dInt(int64(len(f.Args))),
			dInt(int64(defaults)), dType(f.Returns), types.NewArray(argTypes), dNull, dNull,
			names, dStr(src), dNull, dNull, dNull})
	}
	return rows
}

// sqlLanguageOID is pg_language's oid of LANGUAGE sql.
const sqlLanguageOID = 14

// regproc resolves 'name'::regproc and 'name(types)'::regprocedure, a
// function name optionally schema-qualified, to the user function's OID.
func (b *Binder) regproc(text string, withArgs bool) (expr.Expr, error) {
	name, args, hasArgs := strings.Cut(text, "(")
	if hasArgs != withArgs {
		return nil, pgerror.New(pgerror.CodeInvalidTextRepresentation, "invalid input syntax for type %s: %q", map[bool]string{false: "regproc", true: "regprocedure"}[withArgs], text)
	}
	schema, fn, qualified := strings.Cut(name, ".")
	if !qualified {
		schema, fn = "", name
	}
	var argTypes []types.T
	if args = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(args), ")")); args != "" {
		for _, a := range strings.Split(args, ",") {
			t, err := types.ParseTypeName(strings.ToLower(strings.TrimSpace(a)))
			if err != nil {
				return nil, err
			}
			argTypes = append(argTypes, t)
		}
	}
	fns := b.cat.ResolveFunctions(b.searchPath, schema, unquote(fn))
	if withArgs {
		fns = slices.DeleteFunc(fns, func(f *meta.Function) bool {
			return meta.Signature(f.Name, f.ArgTypes()) != meta.Signature(f.Name, argTypes)
		})
	}
	switch {
	case len(fns) == 0 && withArgs:
		return nil, pgerror.New(pgerror.CodeUndefinedFunction, "function %s does not exist", text)
	case len(fns) == 0:
		return nil, pgerror.New(pgerror.CodeUndefinedFunction, "function %q does not exist", text)
	case len(fns) > 1:
		return nil, pgerror.New(pgerror.CodeAmbiguousFunction, "more than one function named %q", text)
	}
	return expr.NewConst(types.NewInt(int64(fns[0].ID)), types.TOid), nil
}

// unquote returns an identifier as written in a regproc or regclass
// literal: "Name" exactly, name lowercased.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return strings.ToLower(s)
}
