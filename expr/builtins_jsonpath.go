package expr

import (
	"github.com/streamdb/streamdb/types"
)

// The SQL/JSON path functions over the paths types.JSONPath evaluates:
// jsonb_path_query (a set), jsonb_path_query_first, jsonb_path_query_array,
// jsonb_path_exists and the operator @? (jsonb_path_exists_opr). Their
// optional third argument (variables) is accepted and unused, since
// paths have no variables; a true fourth (silent) turns the strict
// mode's structural errors into no items.
func init() {
	// query runs the path a[1] over a[0]; silent (or a true fourth
	// argument) makes an evaluation error no items, and errSilenced true.
	query := func(a []types.Datum, silent bool) (items []types.JSON, errSilenced bool, err error) {
		j, err := types.ParseJSON(a[0].Str())
		if err != nil {
			return nil, false, err
		}
		p, err := types.ParseJSONPath(a[1].Str())
		if err != nil {
			return nil, false, err
		}
		items, err = p.Query(j)
		if err != nil && (silent || len(a) > 3 && a[3].Bool()) {
			return nil, true, nil
		}
		return items, false, err
	}
	// overloads returns the forms (jsonb, path [, vars [, silent]]).
	overloads := func(ret types.T, fn func(c *Ctx, a []types.Datum) (types.Datum, error), set func(c *Ctx, a []types.Datum) (SetIter, error)) []Overload {
		var out []Overload
		args := []types.Family{types.Jsonb, types.Text, types.Jsonb, types.Bool}
		for n := 2; n <= 4; n++ {
			out = append(out, Overload{Args: args[:n], Ret: Returns(ret), Fn: fn, Set: set})
		}
		return out
	}
	RegisterSetBuiltin("jsonb_path_query", overloads(types.TJsonb, nil, func(_ *Ctx, a []types.Datum) (SetIter, error) {
		items, _, err := query(a, false)
		if err != nil {
			return nil, err
		}
		vals := make([]types.Datum, len(items))
		for i, it := range items {
			vals[i] = it.Datum()
		}
		return valuesOf(vals), nil
	})...)
	RegisterBuiltin("jsonb_path_query_first", overloads(types.TJsonb, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		items, _, err := query(a, false)
		if err != nil || len(items) == 0 {
			return types.Null, err
		}
		return items[0].Datum(), nil
	}, nil)...)
	RegisterBuiltin("jsonb_path_query_array", overloads(types.TJsonb, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		items, _, err := query(a, false)
		if err != nil {
			return types.Null, err
		}
		return types.JSONArray(items).Datum(), nil
	}, nil)...)
	exists := func(silent bool) func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			items, silenced, err := query(a, silent)
			if err != nil || silenced {
				return types.Null, err // an error silenced is unknown
			}
			return types.NewBool(len(items) > 0), nil
		}
	}
	RegisterBuiltin("jsonb_path_exists", overloads(types.TBool, exists(false), nil)...)
	RegisterBuiltin("jsonb_path_exists_opr", overloads(types.TBool, exists(true), nil)[0])
}
