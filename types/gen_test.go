package types

import (
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/cockroachdb/apd/v3"
	"pgregory.net/rapid"
)

// testFamilies are the families the property tests cover: each scalar
// type and its array type.
var testFamilies = func() []T {
	scalars := []T{TBool, TInt2, TInt4, TInt8, TOid, TFloat4, TFloat8, TNumeric, TText, TVarchar,
		TBpchar, TName, TBytea, TDate, TTime, TTimestamp, TTimestampTZ, TInterval, TJsonb}
	out := append([]T(nil), scalars...)
	for _, t := range scalars {
		a, err := ArrayOf(t)
		if err != nil {
			panic(err)
		}
		out = append(out, a)
	}
	return out
}()

// genDatum generates non-NULL values of type t, biased to edge cases.
func genDatum(t T) *rapid.Generator[Datum] {
	switch t.Family {
	case Bool:
		return rapid.Map(rapid.Bool(), NewBool)
	case Int2:
		return rapid.Map(rapid.Int16(), func(i int16) Datum { return NewInt(int64(i)) })
	case Int4:
		return rapid.Map(rapid.Int32(), func(i int32) Datum { return NewInt(int64(i)) })
	case Int8:
		return rapid.Map(rapid.Int64(), NewInt)
	case Oid:
		return rapid.Map(rapid.Uint32(), func(i uint32) Datum { return NewInt(int64(i)) })
	case Float4:
		return rapid.Map(genFloat(), func(f float64) Datum { return NewFloat(float64(float32(f))) })
	case Float8:
		return rapid.Map(genFloat(), NewFloat)
	case Numeric:
		return genNumeric()
	case Text, Varchar, Name:
		return rapid.Map(genText(), func(s string) Datum {
			if t.Family == Name {
				s = truncateName(s)
			}
			return NewString(s)
		})
	case Bpchar:
		return rapid.Map(genText(), func(s string) Datum { return NewString(strings.TrimRight(s, " ")) })
	case Bytea:
		return rapid.Map(rapid.SliceOf(rapid.Byte()), NewBytes)
	case Date:
		return rapid.Map(genInstant(minDateDays, endDateDays-1, 20000), NewDate)
	case Time:
		return rapid.Map(rapid.Int64Range(0, usecsPerDay), NewTime)
	case Timestamp:
		return rapid.Map(genInstant(minTimestamp, endTimestamp-1, 2e15), NewTimestamp)
	case TimestampTZ:
		return rapid.Map(genInstant(minTimestamp, endTimestamp-1, 2e15), NewTimestampTZ)
	case Interval:
		return rapid.Custom(func(rt *rapid.T) Datum {
			return NewInterval(IntervalValue{
				Months: rapid.OneOf(rapid.Int32Range(-30, 30), rapid.Int32()).Draw(rt, "months"),
				Days:   rapid.OneOf(rapid.Int32Range(-40, 40), rapid.Int32()).Draw(rt, "days"),
				Micros: rapid.OneOf(rapid.Int64Range(-2*usecsPerDay, 2*usecsPerDay), rapid.Int64()).Draw(rt, "micros"),
			})
		})
	case Jsonb:
		return rapid.Custom(func(rt *rapid.T) Datum {
			s, err := parseJSONB(genJSON(rt, 0))
			if err != nil {
				panic(err)
			}
			return NewJSON(s)
		})
	case Array:
		elem := rapid.OneOf(genDatum(t.ElemType()), rapid.Just(Null))
		return rapid.Map(rapid.SliceOfN(elem, 0, 5), NewArray)
	}
	panic("no generator for " + t.String())
}

func genFloat() *rapid.Generator[float64] {
	return rapid.OneOf(
		rapid.Float64(),
		rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e15, 1e-5, math.MaxFloat64,
			math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN()}),
		rapid.Map(rapid.Int64Range(-1e6, 1e6), func(i int64) float64 { return float64(i) / 8 }),
	)
}

// genNumeric generates numerics from decimal text, so they carry a scale.
func genNumeric() *rapid.Generator[Datum] {
	return rapid.Custom(func(rt *rapid.T) Datum {
		switch rapid.IntRange(0, 20).Draw(rt, "special") {
		case 0:
			return NewDecimal(&apd.Decimal{Form: apd.NaN})
		case 1:
			return NewDecimal(&apd.Decimal{Form: apd.Infinite})
		case 2:
			return NewDecimal(&apd.Decimal{Form: apd.Infinite, Negative: true})
		}
		digits := rapid.StringMatching(`[0-9]{1,40}`).Draw(rt, "digits")
		text := digits
		if point := rapid.IntRange(0, len(digits)).Draw(rt, "point"); point < len(digits) {
			text = digits[:point] + "." + digits[point:]
		}
		if rapid.Bool().Draw(rt, "neg") {
			text = "-" + text
		}
		if rapid.IntRange(0, 4).Draw(rt, "exp") == 0 {
			text += "e" + strconv.Itoa(rapid.IntRange(-30, 30).Draw(rt, "e"))
		}
		d, err := parseNumeric(text)
		if err != nil {
			panic(err)
		}
		return NewDecimal(d)
	})
}

// genText generates valid UTF-8 without NUL, with shared prefixes and
// trailing spaces likely.
func genText() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.StringMatching(`[ab ]{0,6}`),
		rapid.StringOf(rapid.RuneFrom(nil, unicode.L, unicode.N, unicode.P, unicode.S, unicode.Zs)),
	)
}

func genInstant(lo, hi, near int64) *rapid.Generator[int64] {
	return rapid.OneOf(
		rapid.Int64Range(lo, hi),
		rapid.Int64Range(-near, near),
		rapid.SampledFrom([]int64{lo, hi, 0, -1, DateTimeInfinity, DateTimeNegInfinity}),
	)
}

// genJSON draws JSON text with duplicate keys, escapes and odd numbers.
func genJSON(rt *rapid.T, depth int) string {
	kind := rapid.IntRange(0, 6).Draw(rt, "kind")
	if depth > 2 && kind < 2 {
		kind += 2
	}
	switch kind {
	case 0:
		n := rapid.IntRange(0, 4).Draw(rt, "len")
		parts := make([]string, n)
		for i := range parts {
			key := rapid.StringMatching(`[ab"\\é]{0,3}`).Draw(rt, "key")
			parts[i] = strconv.Quote(key) + " : " + genJSON(rt, depth+1)
		}
		return "{" + strings.Join(parts, ",") + "}"
	case 1:
		n := rapid.IntRange(0, 4).Draw(rt, "len")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = genJSON(rt, depth+1)
		}
		return "[" + strings.Join(parts, ",\n") + "]"
	case 2:
		return strconv.Quote(rapid.StringMatching(`[a\t\n"\\/é]{0,5}`).Draw(rt, "str"))
	case 3:
		return rapid.StringMatching(`-?(0|[1-9][0-9]{0,20})(\.[0-9]{1,5})?([eE][+-]?[0-9]{1,2})?`).Draw(rt, "num")
	}
	return rapid.SampledFrom([]string{"true", "false", "null"}).Draw(rt, "lit")
}

// identical reports whether two datums are the same value in every detail
// (numeric scale, float sign of zero, interval fields).
func identical(a, b Datum) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case KindFloat:
		return a.i == b.i || a.Float() != a.Float() && b.Float() != b.Float()
	case KindDecimal:
		return a.Decimal().CmpTotal(b.Decimal()) == 0
	case KindArray:
		ae, be := a.Array(), b.Array()
		if len(ae) != len(be) || !SameDims(a, b) {
			return false
		}
		for i := range ae {
			if !identical(ae[i], be[i]) {
				return false
			}
		}
		return true
	}
	return a.i == b.i && a.j() == b.j() && a.s == b.s
}
