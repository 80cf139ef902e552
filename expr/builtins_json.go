package expr

import (
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// The jsonb operators and functions of PostgreSQL. Values are kept as
// canonical jsonb text and parsed where an operator looks inside.

// jsonOperators are the functions of the jsonb operators (by operator;
// -> and ->> pick the array form for an integer right operand), and
// whether their right operand is a text[] path or key list.
var jsonOperators = map[string]struct {
	fn, intFn string
	textArray bool
}{
	"->":  {fn: "jsonb_object_field", intFn: "jsonb_array_element"},
	"->>": {fn: "jsonb_object_field_text", intFn: "jsonb_array_element_text"},
	"#>":  {fn: "jsonb_extract_path", textArray: true},
	"#>>": {fn: "jsonb_extract_path_text", textArray: true},
	"@>":  {fn: "jsonb_contains"},
	"<@":  {fn: "jsonb_contained"},
	"?":   {fn: "jsonb_exists"},
	"?|":  {fn: "jsonb_exists_any", textArray: true},
	"?&":  {fn: "jsonb_exists_all", textArray: true},
	"||":  {fn: "jsonb_concat"},
	"-":   {fn: "jsonb_delete", intFn: "jsonb_delete"},
	"#-":  {fn: "jsonb_delete_path", textArray: true},
	"@?":  {fn: "jsonb_path_exists_opr"},
}

// JSONOperandType is the type an untyped literal takes as the other
// operand of jsonb operator op: text (a key), text[] (a path or key list)
// or jsonb; ok is false if op is no jsonb operator.
func JSONOperandType(op string) (t types.T, ok bool) {
	o, ok := jsonOperators[op]
	switch {
	case !ok:
		return types.TUnknown, false
	case o.textArray:
		return textArray, true
	case o.intFn != "" || op == "?" || op == "@?":
		return types.TText, true
	}
	return types.TJsonb, true
}

// jsonOperator resolves a jsonb operator (an operand of type jsonb, an
// unknown literal taken as jsonb): ok is false for other operands.
func jsonOperator(op string, l, r Expr) (Expr, bool, error) {
	o, known := jsonOperators[op]
	lt, rt := l.Type().Family, r.Type().Family
	if !known || lt != types.Jsonb && rt != types.Jsonb {
		return nil, false, nil
	}
	if lt == types.Unknown {
		l = castTo(l, types.TJsonb)
	}
	switch {
	case o.textArray:
		r = castTo(r, textArray)
	case (op == "@>" || op == "<@" || op == "||") && rt == types.Unknown:
		r = castTo(r, types.TJsonb)
	}
	name := o.fn
	if o.intFn != "" && r.Type().IsInteger() {
		name = o.intFn
	}
	e, err := NewFunc(name, []Expr{l, r})
	return e, true, err
}

func init() {
	jsonb := func(f func(j types.JSON, a []types.Datum) (types.Datum, error), args ...types.Family) Overload {
		return sig(types.TJsonb, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			j, err := types.ParseJSON(a[0].Str())
			if err != nil {
				return types.Null, err
			}
			return f(j, a)
		}, append([]types.Family{types.Jsonb}, args...)...)
	}
	withType := func(t types.T, o Overload) Overload {
		o.Ret = Returns(t)
		return o
	}
	asText := func(j types.JSON, ok bool) (types.Datum, error) {
		if !ok {
			return types.Null, nil
		}
		if s, ok := j.Text(); ok {
			return types.NewString(s), nil
		}
		return types.Null, nil
	}
	asJSON := func(j types.JSON, ok bool) (types.Datum, error) {
		if !ok {
			return types.Null, nil
		}
		return j.Datum(), nil
	}
	field := func(j types.JSON, a []types.Datum) (types.JSON, bool) { return j.Field(a[1].Str()) }
	elem := func(j types.JSON, a []types.Datum) (types.JSON, bool) { return j.Elem(int(a[1].Int())) }
	path := func(j types.JSON, a []types.Datum) (types.JSON, bool) { return j.Path(textElems(a[1:])) }

	RegisterBuiltin("jsonb_object_field", jsonb(func(j types.JSON, a []types.Datum) (types.Datum, error) { return asJSON(field(j, a)) }, types.Text))
	RegisterBuiltin("jsonb_array_element", jsonb(func(j types.JSON, a []types.Datum) (types.Datum, error) { return asJSON(elem(j, a)) }, types.Int4))
	RegisterBuiltin("jsonb_object_field_text", withType(types.TText, jsonb(func(j types.JSON, a []types.Datum) (types.Datum, error) { return asText(field(j, a)) }, types.Text)))
	RegisterBuiltin("jsonb_array_element_text", withType(types.TText, jsonb(func(j types.JSON, a []types.Datum) (types.Datum, error) { return asText(elem(j, a)) }, types.Int4)))
	for _, name := range []string{"jsonb_extract_path", "jsonb_extract_path_text"} {
		fn := func(j types.JSON, a []types.Datum) (types.Datum, error) { return asJSON(path(j, a)) }
		ret := types.TJsonb
		if name == "jsonb_extract_path_text" {
			fn, ret = func(j types.JSON, a []types.Datum) (types.Datum, error) { return asText(path(j, a)) }, types.TText
		}
		variadic := withType(ret, jsonb(fn, types.Text))
		variadic.Variadic = true
		RegisterBuiltin(name, withType(ret, jsonb(fn, types.Array)), variadic)
	}
	RegisterBuiltin("jsonb_typeof", withType(types.TText, jsonb(func(j types.JSON, _ []types.Datum) (types.Datum, error) {
		return types.NewString(j.TypeName()), nil
	})))
	RegisterBuiltin("jsonb_array_length", withType(types.TInt4, jsonb(func(j types.JSON, _ []types.Datum) (types.Datum, error) {
		if !j.IsArray() {
			return types.Null, pgerror.New(pgerror.CodeInvalidParameterValue, "cannot get array length of a non-array")
		}
		return types.NewInt(int64(len(j.Elems()))), nil
	})))
	other := func(a []types.Datum) (types.JSON, error) { return types.ParseJSON(a[1].Str()) }
	RegisterBuiltin("jsonb_contains", withType(types.TBool, jsonb(func(j types.JSON, a []types.Datum) (types.Datum, error) {
		b, err := other(a)
		return types.NewBool(j.Contains(b)), err
	}, types.Jsonb)))
	RegisterBuiltin("jsonb_contained", withType(types.TBool, jsonb(func(j types.JSON, a []types.Datum) (types.Datum, error) {
		b, err := other(a)
		return types.NewBool(b.Contains(j)), err
	}, types.Jsonb)))
	RegisterBuiltin("jsonb_exists", withType(types.TBool, jsonb(func(j types.JSON, a []types.Datum) (types.Datum, error) {
		return types.NewBool(j.Exists(a[1].Str())), nil
	}, types.Text)))
	for _, all := range []bool{false, true} {
		name := map[bool]string{false: "jsonb_exists_any", true: "jsonb_exists_all"}[all]
		RegisterBuiltin(name, withType(types.TBool, jsonb(func(j types.JSON, a []types.Datum) (types.Datum, error) {
			for _, k := range textElems(a[1:]) {
				if j.Exists(k) != all {
					return types.NewBool(!all), nil
				}
			}
			return types.NewBool(all), nil
		}, types.Array)))
	}
	RegisterBuiltin("jsonb_concat", jsonb(func(j types.JSON, a []types.Datum) (types.Datum, error) {
		b, err := other(a)
		return types.Concat(j, b).Datum(), err
	}, types.Jsonb))
	RegisterBuiltin("jsonb_delete",
		jsonb(func(j types.JSON, a []types.Datum) (types.Datum, error) {
			return datumOf(types.JSON.Datum)(j.DeleteKey(a[1].Str()))
		}, types.Text),
		jsonb(func(j types.JSON, a []types.Datum) (types.Datum, error) {
			return datumOf(types.JSON.Datum)(j.DeleteIndex(int(a[1].Int())))
		}, types.Int4),
		jsonb(func(j types.JSON, a []types.Datum) (types.Datum, error) {
			var err error
			for _, k := range textElems(a[1:]) {
				if j, err = j.DeleteKey(k); err != nil {
					return types.Null, err
				}
			}
			return j.Datum(), nil
		}, types.Array))
	RegisterBuiltin("jsonb_delete_path", jsonb(func(j types.JSON, a []types.Datum) (types.Datum, error) {
		return datumOf(types.JSON.Datum)(j.DeletePath(textElems(a[1:])))
	}, types.Array))
	set := func(j types.JSON, a []types.Datum) (types.Datum, error) {
		v, err := types.ParseJSON(a[2].Str())
		if err != nil {
			return types.Null, err
		}
		create := len(a) < 4 || a[3].Bool()
		return datumOf(types.JSON.Datum)(j.Set(textElems(a[1:2]), v, create))
	}
	RegisterBuiltin("jsonb_set", jsonb(set, types.Array, types.Jsonb), jsonb(set, types.Array, types.Jsonb, types.Bool))
	RegisterBuiltin("jsonb_strip_nulls", jsonb(func(j types.JSON, _ []types.Datum) (types.Datum, error) {
		return j.StripNulls().Datum(), nil
	}))
	RegisterBuiltin("jsonb_pretty", withType(types.TText, jsonb(func(j types.JSON, _ []types.Datum) (types.Datum, error) {
		return types.NewString(j.Datum().Str()), nil
	})))

	RegisterBuiltin("to_jsonb", Overload{Args: []types.Family{Any}, Ret: Returns(types.TJsonb),
		Typed: func(ts []types.T) func(*Ctx, []types.Datum) (types.Datum, error) {
			return func(_ *Ctx, a []types.Datum) (types.Datum, error) {
				return datumOf(types.JSON.Datum)(types.ToJSON(a[0], ts[0]))
			}
		}})
	RegisterBuiltin("jsonb_build_array", Overload{Args: []types.Family{Any}, Variadic: true, NonStrict: true, Ret: Returns(types.TJsonb),
		Typed: func(ts []types.T) func(*Ctx, []types.Datum) (types.Datum, error) {
			return func(_ *Ctx, a []types.Datum) (types.Datum, error) {
				elems, err := jsonValues(a, ts)
				return types.JSONArray(elems).Datum(), err
			}
		}})
	RegisterBuiltin("jsonb_build_object", Overload{Args: []types.Family{Any}, Variadic: true, NonStrict: true, Ret: Returns(types.TJsonb),
		Typed: func(ts []types.T) func(*Ctx, []types.Datum) (types.Datum, error) {
			return func(_ *Ctx, a []types.Datum) (types.Datum, error) {
				if len(a)%2 != 0 {
					return types.Null, pgerror.New(pgerror.CodeInvalidParameterValue, "argument list must have even number of elements").
						WithHint("The arguments of jsonb_build_object() must consist of alternating keys and values.")
				}
				keys := make([]string, 0, len(a)/2)
				vals, err := jsonValues(a, ts)
				if err != nil {
					return types.Null, err
				}
				for i := 0; i < len(a); i += 2 {
					if a[i].IsNull() {
						return types.Null, pgerror.New(pgerror.CodeInvalidParameterValue, "argument %d: key must not be null", i+1)
					}
					k, _ := vals[i].Text()
					keys = append(keys, k)
				}
				odd := make([]types.JSON, 0, len(a)/2)
				for i := 1; i < len(a); i += 2 {
					odd = append(odd, vals[i])
				}
				return types.JSONObject(keys, odd).Datum(), nil
			}
		}})
	// jsonb_object_of_pairs finishes jsonb_object_agg: an object of the
	// [key, value] pairs it gathered.
	RegisterBuiltin("jsonb_object_of_pairs", sig(types.TJsonb, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		pairs := a[0].Array()
		keys, vals := make([]string, len(pairs)), make([]types.JSON, len(pairs))
		for i, p := range pairs {
			j, err := types.ParseJSON(p.Str())
			if err != nil {
				return types.Null, err
			}
			k, _ := j.Elem(0)
			if k.TypeName() == "null" {
				return types.Null, pgerror.New(pgerror.CodeInvalidParameterValue, "field name must not be null")
			}
			keys[i], _ = k.Text()
			vals[i], _ = j.Elem(1)
		}
		return types.JSONObject(keys, vals).Datum(), nil
	}, types.Array))
	elems := func(text bool) func(*Ctx, []types.Datum) (SetIter, error) {
		return func(_ *Ctx, a []types.Datum) (SetIter, error) {
			j, err := types.ParseJSON(a[0].Str())
			if err != nil {
				return nil, err
			}
			if !j.IsArray() {
				return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "cannot extract elements from %s", articled(j.TypeName()))
			}
			es := j.Elems()
			vals := make([]types.Datum, len(es))
			for i, e := range es {
				if text {
					vals[i], _ = asText(e, true)
				} else {
					vals[i] = e.Datum()
				}
			}
			return valuesOf(vals), nil
		}
	}
	RegisterSetBuiltin("jsonb_array_elements", Overload{Args: []types.Family{types.Jsonb}, Ret: Returns(types.TJsonb), Set: elems(false)})
	RegisterSetBuiltin("jsonb_array_elements_text", Overload{Args: []types.Family{types.Jsonb}, Ret: Returns(types.TText), Set: elems(true)})
	RegisterSetBuiltin("jsonb_object_keys", Overload{Args: []types.Family{types.Jsonb}, Ret: Returns(types.TText),
		Set: func(_ *Ctx, a []types.Datum) (SetIter, error) {
			j, err := types.ParseJSON(a[0].Str())
			if err != nil {
				return nil, err
			}
			if !j.IsObject() {
				return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "cannot call jsonb_object_keys on %s", articled(j.TypeName()))
			}
			keys := j.Keys()
			vals := make([]types.Datum, len(keys))
			for i, k := range keys {
				vals[i] = types.NewString(k)
			}
			return valuesOf(vals), nil
		}})
	// jsonb_each(_text) yield records (key text, value jsonb|text).
	each := func(name string, text bool) Overload {
		valueType := types.TJsonb
		if text {
			valueType = types.TText
		}
		return Overload{Args: []types.Family{types.Jsonb}, Ret: Returns(types.RecordOf([]types.Field{{Name: "key", T: types.TText}, {Name: "value", T: valueType}})),
			Set: func(_ *Ctx, a []types.Datum) (SetIter, error) {
				j, err := types.ParseJSON(a[0].Str())
				if err != nil {
					return nil, err
				}
				if !j.IsObject() {
					return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "cannot call %s on a non-object", name)
				}
				keys := j.Keys()
				vals := make([]types.Datum, len(keys))
				for i, k := range keys {
					v, _ := j.Field(k)
					value := v.Datum()
					if text {
						value, _ = asText(v, true)
					}
					vals[i] = types.NewRecord([]types.Datum{types.NewString(k), value})
				}
				return valuesOf(vals), nil
			}}
	}
	RegisterSetBuiltin("jsonb_each", each("jsonb_each", false))
	RegisterSetBuiltin("jsonb_each_text", each("jsonb_each_text", true))
}

// articled is a jsonb type name with its article ("an array", "a
// scalar"), as PostgreSQL's messages name them.
func articled(typ string) string {
	switch typ {
	case "object":
		return "an object"
	case "array":
		return "an array"
	}
	return "a scalar"
}

// textElems returns the strings of a text[] argument (NULL elements
// skipped) or of variadic text arguments.
func textElems(a []types.Datum) []string {
	if len(a) == 1 && a[0].Kind() == types.KindArray {
		a = a[0].Array()
	}
	out := make([]string, 0, len(a))
	for _, d := range a {
		if !d.IsNull() {
			out = append(out, d.Str())
		}
	}
	return out
}

// jsonValues converts values of types ts to jsonb, as to_jsonb does.
func jsonValues(a []types.Datum, ts []types.T) ([]types.JSON, error) {
	out := make([]types.JSON, len(a))
	for i, d := range a {
		t := ts[min(i, len(ts)-1)]
		var err error
		if out[i], err = types.ToJSON(d, t); err != nil {
			return nil, err
		}
	}
	return out, nil
}
