package types

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

var (
	nan    = math.NaN()
	posInf = math.Inf(1)
	negInf = math.Inf(-1)
)

const maxFloat64 = math.MaxFloat64

// floatTypeName is PostgreSQL's name of the float type of the given bit size.
func floatTypeName(bits int) string {
	if bits == 32 {
		return "real"
	}
	return "double precision"
}

// appendFloat appends PostgreSQL's float output with extra_float_digits > 0:
// the shortest text that reads back to the same value (for float4, the same
// 32-bit value), in exponent notation outside the range printf's %g would
// print plainly (exponent < -4 or >= 15 digits for float8, 6 for float4).
func appendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case f != f:
		return append(dst, "NaN"...)
	case f > maxFloat64:
		return append(dst, "Infinity"...)
	case f < -maxFloat64:
		return append(dst, "-Infinity"...)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, bits)
	exp := 0
	i := bytes.LastIndexByte(e, 'e') + 2 // past "e+" or "e-"
	for _, c := range e[i:] {
		exp = exp*10 + int(c-'0')
	}
	if e[i-1] == '-' {
		exp = -exp
	}
	limit := 15
	if bits == 32 {
		limit = 6
	}
	if exp < -4 || exp >= limit {
		return append(dst, e...)
	}
	return strconv.AppendFloat(dst, f, 'f', -1, bits)
}

// parseFloat is float4in/float8in: surrounding spaces, NaN and the
// infinities in any case, and an error for values that overflow or
// underflow the type.
func parseFloat(s string, bits int) (float64, error) {
	typ := floatTypeName(bits)
	t := trimSpace(s)
	switch strings.ToLower(t) {
	case "nan":
		return nan, nil
	case "infinity", "+infinity", "inf", "+inf":
		return posInf, nil
	case "-infinity", "-inf":
		return negInf, nil
	}
	if t == "" || strings.ContainsAny(t, "_nNiI") {
		return 0, errSyntax(typ, s)
	}
	f, err := strconv.ParseFloat(t, bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, errFloatRange(t, typ)
		}
		return 0, errSyntax(typ, s)
	}
	if f == 0 && hasNonZeroMantissa(t) {
		return 0, errFloatRange(t, typ)
	}
	return f, nil
}

// hasNonZeroMantissa reports whether a decimal float literal has a nonzero
// digit before its exponent, i.e. whether reading it as zero is underflow.
func hasNonZeroMantissa(t string) bool {
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") {
		t = t[2:]
		for i := 0; i < len(t) && t[i] != 'p' && t[i] != 'P'; i++ {
			if t[i] != '0' && t[i] != '.' {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(t) && t[i] != 'e' && t[i] != 'E'; i++ {
		if t[i] >= '1' && t[i] <= '9' {
			return true
		}
	}
	return false
}

// trimSpace removes the characters C's isspace accepts from both ends.
func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
