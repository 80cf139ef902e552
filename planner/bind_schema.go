package planner

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// bindSearchPathFunc binds current_schema() (the first existing schema
// of the search_path, NULL if none) and current_schemas(implicit) (all of
// them, after pg_catalog when implicit is true).
func (b *Binder) bindSearchPathFunc(name string, args []expr.Expr) (expr.Expr, error) {
	schemas := b.cat.ExistingSchemas(b.searchPath)
	if name == "current_schema" {
		if len(args) != 0 {
			return nil, pgerror.New(pgerror.CodeUndefinedFunction, "function current_schema with %d arguments does not exist", len(args))
		}
		if len(schemas) == 0 {
			return expr.NewConst(types.Null, types.TName), nil
		}
		return expr.NewConst(dStr(schemas[0]), types.TName), nil
	}
	if len(args) != 1 {
		return nil, pgerror.New(pgerror.CodeUndefinedFunction, "function current_schemas with %d arguments does not exist", len(args))
	}
	implicit, err := b.coerceTo(args[0], types.TBool)
	if err != nil {
		return nil, err
	}
	nameArray, _ := types.ArrayOf(types.TName)
	with := make([]types.Datum, 0, len(schemas)+1)
	with = append(with, dStr(meta.PgCatalogSchema))
	for _, s := range schemas {
		with = append(with, dStr(s))
	}
	without := expr.NewConst(types.NewArray(with[1:]), nameArray)
	return &expr.Case{Whens: []expr.Expr{implicit}, Thens: []expr.Expr{expr.NewConst(types.NewArray(with), nameArray)}, Else: without, T: nameArray}, nil
}
