package expr

import (
	"strconv"

	"github.com/streamdb/streamdb/types"
)

// The pg_catalog functions that psql's describe commands and other
// clients call; many are constant (the planner answers those that
// depend on the catalog or the search_path, the session the privilege
// inquiries).
func init() {
	always := func(v types.Datum, t types.T, args ...types.Family) Overload {
		o := sig(t, func(*Ctx, []types.Datum) (types.Datum, error) { return v, nil }, args...)
		o.NonStrict = true
		return o
	}
	yes := types.NewBool(true)
	RegisterBuiltin("pg_type_is_visible", always(yes, types.TBool, types.Oid))
	for _, kind := range []string{"statistics_obj", "opclass", "opfamily", "conversion", "operator", "collation",
		"ts_config", "ts_dict", "ts_parser", "ts_template"} {
		RegisterBuiltin("pg_"+kind+"_is_visible", always(yes, types.TBool, types.Oid))
	}
	RegisterBuiltin("pg_get_function_sqlbody", always(types.Null, types.TText, types.Oid))
	RegisterBuiltin("pg_char_to_encoding", always(types.NewInt(6), types.TInt4, types.Name))
	// Tablespace sizes are not kept apart: unknown.
	RegisterBuiltin("pg_tablespace_size", always(types.Null, types.TInt8, types.Oid), always(types.Null, types.TInt8, types.Name))
	RegisterBuiltin("getdatabaseencoding", always(types.NewString("UTF8"), types.TName))
	RegisterBuiltin("shobj_description", always(types.Null, types.TText, types.Oid, types.Text))
	// Catalog expressions (pg_attrdef.adbin) are stored as SQL text.
	getExpr := func(_ *Ctx, a []types.Datum) (types.Datum, error) { return a[0], nil }
	RegisterBuiltin("pg_get_expr",
		sig(types.TText, getExpr, types.Text, types.Oid),
		sig(types.TText, getExpr, types.Text, types.Oid, types.Bool))
	RegisterBuiltin("pg_encoding_to_char", sig(types.TName, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		if a[0].Int() == utf8Encoding {
			return types.NewString("UTF8"), nil
		}
		return types.NewString(""), nil
	}, types.Int4))
	// Definitions of objects streamdb does not list in the catalogs
	// (pg_rewrite and pg_statistic_ext are empty; the planner answers
	// pg_get_viewdef, pg_get_indexdef, pg_get_constraintdef and the
	// functions' definitions).
	null := types.Null
	RegisterBuiltin("pg_get_ruledef",
		always(null, types.TText, types.Oid),
		always(null, types.TText, types.Oid, types.Bool))
	RegisterBuiltin("pg_get_statisticsobjdef_columns", always(null, types.TText, types.Oid))
	// streamdb has no logical replication.
	RegisterBuiltin("pg_relation_is_publishable", always(types.NewBool(false), types.TBool, types.Oid))
	// The tablespaces are built in (PostgreSQL gives them no location).
	RegisterBuiltin("pg_tablespace_location", always(types.NewString(""), types.TText, types.Oid))
	RegisterBuiltin("pg_size_pretty", sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.NewString(sizePretty(a[0].Int())), nil
	}, types.Int8))
	RegisterBuiltin("format_type", Overload{Args: []types.Family{types.Oid, types.Int4}, Ret: Returns(types.TText), NonStrict: true, Fn: formatType})
}

// utf8Encoding is PostgreSQL's number for the UTF8 encoding, the only one
// streamdb speaks.
const utf8Encoding = 6

// formatType is format_type(type_oid, typmod): the type's SQL name with
// its modifier (typmod as the wire and pg_attribute carry it; -1 or NULL
// for none, bpchar printing as bpchar with -1 and as character with NULL);
// "???" for an unknown OID, "-" for OID 0, NULL for a NULL OID.
func formatType(_ *Ctx, a []types.Datum) (types.Datum, error) {
	if a[0].IsNull() {
		return types.Null, nil
	}
	if a[0].Int() == 0 {
		return types.NewString("-"), nil
	}
	t, ok := types.FromOID(types.OID(a[0].Int()))
	if !ok {
		return types.NewString("???"), nil
	}
	mod := int64(-1)
	if !a[1].IsNull() {
		mod = a[1].Int()
	}
	return datumOf(types.NewString)(formatTypeMod(t, int32(mod), !a[1].IsNull()))
}

// formatTypeMod is PostgreSQL's format_type_extended: t's name with the
// typmod mod printed as the type's typmodout does (the numeric and
// floating-point types and boolean print none, types without a typmodout
// print (mod)); given is false for a NULL typmod. An array's typmod is its
// element's.
func formatTypeMod(t types.T, mod int32, given bool) (string, error) {
	if t.Family == types.Array {
		s, err := formatTypeMod(t.ElemType(), mod, given)
		return s + "[]", err
	}
	name := t.WithoutMod().String()
	if !given || mod < 0 {
		if t.Family == types.Bpchar && !given {
			return "character", nil
		}
		return name, nil
	}
	switch t.Family {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.Float4, types.Float8:
		return name, nil
	case types.Varchar, types.Bpchar, types.Numeric:
		// Their typmods are offset by VARHDRSZ; a length must be positive.
		if mod < varHdrSz || mod == varHdrSz && t.Family != types.Numeric {
			if t.Family == types.Bpchar {
				return "character", nil
			}
			return name, nil
		}
		t.Mod = mod - varHdrSz
	case types.Time, types.Timestamp, types.TimestampTZ:
		t.Mod = mod
	case types.Interval:
		if err := types.CheckIntervalMod(mod); err != nil {
			return "", err
		}
		t.Mod = mod
	default:
		return name + "(" + strconv.Itoa(int(mod)) + ")", nil
	}
	return t.String(), nil
}

// varHdrSz is PostgreSQL's VARHDRSZ, by which the typmods of character
// and numeric types are offset.
const varHdrSz = 4

// sizePretty is pg_size_pretty(bigint): bytes below 10 kB, then the
// largest unit that keeps the number below 20480, halves rounded away from
// zero.
func sizePretty(size int64) string {
	if size > -10*1024 && size < 10*1024 {
		return strconv.FormatInt(size, 10) + " bytes"
	}
	size /= 1 << 9 // in half kilobytes
	units := []string{"kB", "MB", "GB", "TB", "PB"}
	for _, u := range units[:len(units)-1] {
		if size > -(20*1024-1) && size < 20*1024-1 {
			return strconv.FormatInt(halfRounded(size), 10) + " " + u
		}
		size /= 1 << 10
	}
	return strconv.FormatInt(halfRounded(size), 10) + " PB"
}

// halfRounded halves x, rounding away from zero.
func halfRounded(x int64) int64 {
	if x < 0 {
		return (x - 1) / 2
	}
	return (x + 1) / 2
}
