package types

import (
	"sort"
	"strconv"

	"github.com/streamdb/streamdb/pgerror"
)

// JSON is a parsed jsonb value, what the jsonb operators and functions
// work on; a jsonb datum holds its canonical text (JSON.Datum).
type JSON struct{ v jsonValue }

// ParseJSON parses a jsonb datum's text.
func ParseJSON(s string) (JSON, error) {
	p := jsonParser{s: s}
	p.skipSpace()
	v, err := p.value(0)
	return JSON{v}, err
}

// JSONString, JSONNull, JSONBool and JSONNumber make scalars (a number's
// text must be numeric's).
func JSONString(s string) JSON { return JSON{jsonValue{kind: '"', str: s}} }
func JSONNull() JSON           { return JSON{jsonValue{kind: 'n'}} }
func JSONNumber(s string) JSON { return JSON{jsonValue{kind: '0', str: s}} }
func JSONBool(b bool) JSON {
	if b {
		return JSON{jsonValue{kind: 't'}}
	}
	return JSON{jsonValue{kind: 'f'}}
}

// JSONArray makes an array of elems.
func JSONArray(elems []JSON) JSON {
	v := jsonValue{kind: '[', elems: make([]jsonValue, len(elems))}
	for i, e := range elems {
		v.elems[i] = e.v
	}
	return JSON{v}
}

// JSONObject makes an object of keys and vals, in jsonb's key order (a
// later duplicate key wins).
func JSONObject(keys []string, vals []JSON) JSON {
	v := jsonValue{kind: '{', pairs: make([]jsonMember, len(keys))}
	for i := range keys {
		v.pairs[i] = jsonMember{keys[i], vals[i].v}
	}
	v.pairs = canonicalPairs(v.pairs)
	return JSON{v}
}

// canonicalPairs orders members as jsonb does (keys by length, then
// bytes) and keeps the last of duplicate keys.
func canonicalPairs(pairs []jsonMember) []jsonMember {
	sort.SliceStable(pairs, func(a, b int) bool {
		ka, kb := pairs[a].key, pairs[b].key
		if len(ka) != len(kb) {
			return len(ka) < len(kb)
		}
		return ka < kb
	})
	out := pairs[:0]
	for i, m := range pairs {
		if i+1 < len(pairs) && pairs[i+1].key == m.key {
			continue
		}
		out = append(out, m)
	}
	return out
}

// Datum returns the jsonb datum of j.
func (j JSON) Datum() Datum { return NewJSON(string(j.v.appendText(nil))) }

// TypeName is jsonb_typeof: object, array, string, number, boolean or
// null.
func (j JSON) TypeName() string { return jsonKindName(j.v.kind) }

// IsObject and IsArray report j's kind.
func (j JSON) IsObject() bool { return j.v.kind == '{' }
func (j JSON) IsArray() bool  { return j.v.kind == '[' }

// Text is ->>'s text of j: a string unquoted, NULL for null (ok false),
// any other value as its jsonb text.
func (j JSON) Text() (string, bool) {
	switch j.v.kind {
	case '"':
		return j.v.str, true
	case 'n':
		return "", false
	}
	return string(j.v.appendText(nil)), true
}

// Field returns the value of an object's key (-> text).
func (j JSON) Field(key string) (JSON, bool) {
	if j.v.kind != '{' {
		return JSON{}, false
	}
	for _, m := range j.v.pairs {
		if m.key == key {
			return JSON{m.val}, true
		}
	}
	return JSON{}, false
}

// Elem returns an array's element i, counted from the end when negative
// (-> int).
func (j JSON) Elem(i int) (JSON, bool) {
	if j.v.kind != '[' {
		return JSON{}, false
	}
	if i < 0 {
		i += len(j.v.elems)
	}
	if i < 0 || i >= len(j.v.elems) {
		return JSON{}, false
	}
	return JSON{j.v.elems[i]}, true
}

// Path follows path through objects' keys and arrays' indexes (#>).
func (j JSON) Path(path []string) (JSON, bool) {
	cur := j
	for _, step := range path {
		var ok bool
		if cur.v.kind == '[' {
			i, err := strconv.Atoi(step)
			if err != nil {
				return JSON{}, false
			}
			cur, ok = cur.Elem(i)
		} else {
			cur, ok = cur.Field(step)
		}
		if !ok {
			return JSON{}, false
		}
	}
	return cur, true
}

// Elems returns an array's elements.
func (j JSON) Elems() []JSON {
	out := make([]JSON, len(j.v.elems))
	for i, e := range j.v.elems {
		out[i] = JSON{e}
	}
	return out
}

// Keys returns an object's keys, in jsonb's order.
func (j JSON) Keys() []string {
	out := make([]string, len(j.v.pairs))
	for i, m := range j.v.pairs {
		out[i] = m.key
	}
	return out
}

// Exists is ?: whether a key of an object, a string element of an array,
// or a string scalar is s.
func (j JSON) Exists(s string) bool {
	switch j.v.kind {
	case '{':
		_, ok := j.Field(s)
		return ok
	case '[':
		for _, e := range j.v.elems {
			if e.kind == '"' && e.str == s {
				return true
			}
		}
		return false
	case '"':
		return j.v.str == s
	}
	return false
}

// Contains is @>: whether b's structure and values are within j's, as
// jsonb containment defines it (an array contains a scalar it holds; an
// object contains the pairs of an object it holds).
func (j JSON) Contains(b JSON) bool { return contains(j.v, b.v, true) }

func contains(a, b jsonValue, top bool) bool {
	switch {
	case a.kind == '{' && b.kind == '{':
		for _, m := range b.pairs {
			v, ok := JSON{a}.Field(m.key)
			if !ok || !contains(v.v, m.val, false) {
				return false
			}
		}
		return true
	case a.kind == '[' && b.kind == '[':
		for _, be := range b.elems {
			found := false
			for _, ae := range a.elems {
				if (ae.kind == '[' || ae.kind == '{') == (be.kind == '[' || be.kind == '{') && contains(ae, be, false) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	case a.kind == '[' && top && b.kind != '[' && b.kind != '{':
		for _, ae := range a.elems {
			if equalJSON(ae, b) {
				return true
			}
		}
		return false
	}
	return equalJSON(a, b)
}

// equalJSON reports whether two values are equal as jsonb compares them.
func equalJSON(a, b jsonValue) bool {
	return string(a.appendText(nil)) == string(b.appendText(nil))
}

// Concat is ||: two objects merge (b's keys win), two arrays append, and
// a scalar or object joins an array as one element.
func Concat(a, b JSON) JSON {
	switch {
	case a.v.kind == '{' && b.v.kind == '{':
		pairs := append(append([]jsonMember(nil), a.v.pairs...), b.v.pairs...)
		return JSON{jsonValue{kind: '{', pairs: canonicalPairs(pairs)}}
	}
	as, bs := asElems(a.v), asElems(b.v)
	return JSON{jsonValue{kind: '[', elems: append(append([]jsonValue(nil), as...), bs...)}}
}

func asElems(v jsonValue) []jsonValue {
	if v.kind == '[' {
		return v.elems
	}
	return []jsonValue{v}
}

// DeleteKey is - text: an object without key, an array without its
// string elements equal to key.
func (j JSON) DeleteKey(key string) (JSON, error) {
	switch j.v.kind {
	case '{':
		out := jsonValue{kind: '{'}
		for _, m := range j.v.pairs {
			if m.key != key {
				out.pairs = append(out.pairs, m)
			}
		}
		return JSON{out}, nil
	case '[':
		out := jsonValue{kind: '['}
		for _, e := range j.v.elems {
			if e.kind != '"' || e.str != key {
				out.elems = append(out.elems, e)
			}
		}
		return JSON{out}, nil
	}
	return JSON{}, pgerror.New(pgerror.CodeInvalidParameterValue, "cannot delete from scalar")
}

// DeleteIndex is - int: an array without element i (from the end when
// negative).
func (j JSON) DeleteIndex(i int) (JSON, error) {
	switch j.v.kind {
	case '[':
	case '{':
		return JSON{}, pgerror.New(pgerror.CodeInvalidParameterValue, "cannot delete from object using integer index")
	default:
		return JSON{}, pgerror.New(pgerror.CodeInvalidParameterValue, "cannot delete from scalar")
	}
	n := len(j.v.elems)
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return j, nil
	}
	out := jsonValue{kind: '[', elems: append(append([]jsonValue(nil), j.v.elems[:i]...), j.v.elems[i+1:]...)}
	return JSON{out}, nil
}

// DeletePath is #-: j without the value at path.
func (j JSON) DeletePath(path []string) (JSON, error) {
	if j.v.kind != '{' && j.v.kind != '[' {
		return JSON{}, pgerror.New(pgerror.CodeInvalidParameterValue, "cannot delete path in scalar")
	}
	v, err := setPath(j.v, path, nil, false)
	return JSON{v}, err
}

// Set is jsonb_set: j with the value at path replaced by val, or added
// (as a key, or an element past an array's end) if create and only the
// last step is missing.
func (j JSON) Set(path []string, val JSON, create bool) (JSON, error) {
	if j.v.kind != '{' && j.v.kind != '[' {
		return JSON{}, pgerror.New(pgerror.CodeInvalidParameterValue, "cannot set path in scalar")
	}
	v, err := setPath(j.v, path, &val.v, create)
	return JSON{v}, err
}

// setPath returns v with path's target replaced by val (deleted when val
// is nil).
func setPath(v jsonValue, path []string, val *jsonValue, create bool) (jsonValue, error) {
	if len(path) == 0 {
		return v, nil
	}
	step, last := path[0], len(path) == 1
	switch v.kind {
	case '{':
		out := jsonValue{kind: '{', pairs: append([]jsonMember(nil), v.pairs...)}
		for i, m := range out.pairs {
			if m.key != step {
				continue
			}
			if last {
				if val == nil {
					out.pairs = append(out.pairs[:i], out.pairs[i+1:]...)
				} else {
					out.pairs[i].val = *val
				}
				return out, nil
			}
			sub, err := setPath(m.val, path[1:], val, create)
			out.pairs[i].val = sub
			return out, err
		}
		if last && val != nil && create {
			out.pairs = canonicalPairs(append(out.pairs, jsonMember{step, *val}))
		}
		return out, nil
	case '[':
		i, err := strconv.Atoi(step)
		if err != nil {
			return v, pgerror.New(pgerror.CodeInvalidTextRepresentation, "path element at position %d is not an integer: \"%s\"", 1, step)
		}
		out := jsonValue{kind: '[', elems: append([]jsonValue(nil), v.elems...)}
		n := len(out.elems)
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			if last && val != nil && create {
				if i < 0 {
					out.elems = append([]jsonValue{*val}, out.elems...)
				} else {
					out.elems = append(out.elems, *val)
				}
			}
			return out, nil
		}
		if last {
			if val == nil {
				out.elems = append(out.elems[:i], out.elems[i+1:]...)
			} else {
				out.elems[i] = *val
			}
			return out, nil
		}
		sub, err := setPath(out.elems[i], path[1:], val, create)
		out.elems[i] = sub
		return out, err
	}
	return v, nil
}

// StripNulls is jsonb_strip_nulls: objects lose their null members, at
// any depth.
func (j JSON) StripNulls() JSON { return JSON{stripNulls(j.v)} }

func stripNulls(v jsonValue) jsonValue {
	switch v.kind {
	case '{':
		out := jsonValue{kind: '{'}
		for _, m := range v.pairs {
			if m.val.kind != 'n' {
				out.pairs = append(out.pairs, jsonMember{m.key, stripNulls(m.val)})
			}
		}
		return out
	case '[':
		out := jsonValue{kind: '[', elems: make([]jsonValue, len(v.elems))}
		for i, e := range v.elems {
			out.elems[i] = stripNulls(e)
		}
		return out
	}
	return v
}

// ToJSON is to_jsonb of a value of type t: numbers and booleans as
// themselves, arrays as arrays, jsonb as itself, NULL as null, and any
// other value as the string of its text (timestamps in ISO 8601 with a
// T, as PostgreSQL writes them).
func ToJSON(d Datum, t T) (JSON, error) {
	switch {
	case d.IsNull():
		return JSONNull(), nil
	case d.kind == KindJSON:
		return ParseJSON(d.s)
	case d.kind == KindBool:
		return JSONBool(d.Bool()), nil
	case d.kind == KindInt, d.kind == KindDecimal:
		return JSONNumber(string(FormatText(nil, t, d))), nil
	case d.kind == KindFloat:
		f := d.Float()
		if f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308 {
			return JSONString(string(FormatText(nil, t, d))), nil
		}
		return JSONNumber(string(FormatText(nil, t, d))), nil
	case d.kind == KindArray:
		elems := d.Array()
		out := make([]JSON, len(elems))
		for i, e := range elems {
			var err error
			if out[i], err = ToJSON(e, t.ElemType()); err != nil {
				return JSON{}, err
			}
		}
		// A multidimensional array nests, innermost dimension first.
		for j := d.ArrayNDims() - 1; j > 0; j-- {
			w := int(d.ArrayDim(j).Len)
			rows := make([]JSON, 0, len(out)/w)
			for k := 0; k < len(out); k += w {
				rows = append(rows, JSONArray(out[k:k+w]))
			}
			out = rows
		}
		return JSONArray(out), nil
	case d.kind == KindRecord:
		vals := d.Record()
		keys, out := make([]string, len(vals)), make([]JSON, len(vals))
		for i, v := range vals {
			keys[i] = "f" + itoa(i+1)
			if fs := t.Fields(); i < len(fs) {
				keys[i] = fs[i].Name
			}
			var err error
			if out[i], err = ToJSON(v, fieldType(t, i, v)); err != nil {
				return JSON{}, err
			}
		}
		return JSONObject(keys, out), nil
	case d.kind == KindTimestamp || d.kind == KindTimestampTZ:
		s := FormatText(nil, t, d)
		if len(s) > 10 && s[10] == ' ' {
			s[10] = 'T'
		}
		if d.kind == KindTimestampTZ && len(s) > 3 && string(s[len(s)-3:]) == "+00" {
			s = append(s, ":00"...)
		}
		return JSONString(string(s)), nil
	}
	return JSONString(string(FormatText(nil, t, d))), nil
}
