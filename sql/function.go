package sql

import (
	"context"
	"slices"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// volatilities maps CREATE FUNCTION's volatility words to provolatile.
var volatilities = map[string]byte{"immutable": 'i', "stable": 's', "volatile": 'v', "": 'v'}

// createFunction runs CREATE [OR REPLACE] FUNCTION: a scalar SQL function
// whose body streamdb inlines where it is called.
func (s *Session) createFunction(ctx context.Context, x *parser.CreateFunction) (pgwire.Rows, error) {
	switch {
	case x.Language == "" && !x.Return:
		return nil, pgerror.New(pgerror.CodeInvalidFunctionDefinition, "no language specified")
	case !x.HasBody:
		return nil, pgerror.New(pgerror.CodeInvalidFunctionDefinition, "no function body specified")
	case x.Language != "" && x.Language != "sql":
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "LANGUAGE %s is not supported", x.Language).
			WithHint("Only LANGUAGE sql functions of one expression are supported.")
	case x.SetOf || x.Table:
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "set-returning SQL functions are not supported").
			WithHint("Only scalar SQL functions of one expression are supported.")
	}
	cat := s.e.Meta.Catalog()
	schema, err := s.createIn(cat, x.Name)
	if err != nil {
		return nil, err
	}
	f := &meta.Function{Schema: schema, Name: x.Name.Name, Body: x.Body, Return: x.Return,
		Volatility: volatilities[x.Volatility], Strict: x.Strict, Owner: s.currentRole()}
	if f.Returns, err = types.ParseTypeName(x.Returns); err != nil {
		return nil, err
	}
	for i, a := range x.Args {
		t, err := types.ParseTypeName(a.TypeName)
		if err != nil {
			return nil, err
		}
		if a.Name != "" && slices.ContainsFunc(x.Args[:i], func(o parser.FuncArg) bool { return o.Name == a.Name }) {
			return nil, pgerror.New(pgerror.CodeInvalidFunctionDefinition, "parameter name %q used more than once", a.Name)
		}
		if a.DefaultSQL == "" && i > 0 && x.Args[i-1].DefaultSQL != "" {
			return nil, pgerror.New(pgerror.CodeInvalidFunctionDefinition, "input parameters after one with a default value must also have defaults")
		}
		f.Args = append(f.Args, meta.Column{Name: a.Name, Type: t, Default: a.DefaultSQL})
	}
	if err := planner.CheckFunction(cat, s.searchPath(), f); err != nil {
		return nil, err
	}
	if err := s.e.Meta.CreateFunction(ctx, f, x.OrReplace); err != nil {
		return nil, err
	}
	return done("CREATE FUNCTION"), nil
}

// dropFunctions runs DROP FUNCTION: with CASCADE the views calling a
// function go with it, and their jobs stop.
func (s *Session) dropFunctions(ctx context.Context, x *parser.DropFunction) (pgwire.Rows, error) {
	for _, ref := range x.Functions {
		cat := s.e.Meta.Catalog()
		var argTypes []types.T
		if ref.Args != nil {
			argTypes = []types.T{}
			for _, a := range ref.Args {
				t, err := types.ParseTypeName(a.TypeName)
				if err != nil {
					return nil, err
				}
				argTypes = append(argTypes, t)
			}
		}
		schema := ref.Name.Schema
		if schema == "" {
			schema, _ = s.creationSchema(cat, ref.Name)
			if fns := cat.ResolveFunctions(s.searchPath(), "", ref.Name.Name); len(fns) > 0 {
				schema = fns[0].Schema
			}
		}
		for _, f := range cat.FunctionsMatching(schema, ref.Name.Name, argTypes) {
			if !cat.Owns(s.currentRole(), f.OwnerID()) {
				return nil, meta.MustOwn("function", f.Signature())
			}
		}
		unlock := s.e.stream.LockJobs()
		dropped, err := s.e.Meta.DropFunction(ctx, schema, ref.Name.Name, argTypes, x.IfExists, x.Cascade)
		if err == nil {
			err = s.e.dropped(ctx, dropped)
		}
		unlock()
		if err != nil {
			return nil, err
		}
	}
	return done("DROP FUNCTION"), nil
}
