package parser

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/streamdb/streamdb/types"
)

// The TiDB parser builds literals through these hooks; ours type them the
// PostgreSQL way. The translator never emits hex or bit literals, so those
// hooks only guard against surprises.
func init() {
	ast.NewValueExpr = func(value any, _, _ string) ast.ValueExpr {
		if l, ok := value.(*Literal); ok {
			return l
		}
		l := &Literal{projectionOffset: -1}
		l.SetValue(value)
		return l
	}
	ast.NewParamMarkerExpr = func(offset int) ast.ParamMarkerExpr {
		return &paramMarker{Literal: Literal{projectionOffset: -1, Type: types.TUnknown}, offset: offset}
	}
	ast.NewDecimal = func(s string) (any, error) {
		d, _, err := apd.NewFromString(s)
		return d, err
	}
	ast.NewHexLiteral = func(s string) (any, error) {
		return nil, fmt.Errorf("hexadecimal literal %s is not supported", s)
	}
	ast.NewBitLiteral = func(s string) (any, error) {
		return nil, fmt.Errorf("bit literal %s is not supported", s)
	}
}

// Literal is a constant in a translated AST, typed the PostgreSQL way:
// integers are int4 when they fit in 32 bits, else int8, else numeric;
// decimal literals are numeric keeping their scale; strings are
// unknown-typed (resolved by context in the binder) with a string Value;
// NULL is a NULL Value of unknown type; TRUE and FALSE are bool.
type Literal struct {
	ast.TexprNode
	// Value is the literal's value.
	Value types.Datum
	// Type is the literal's PostgreSQL type; it shadows TexprNode's MySQL type.
	Type types.T

	projectionOffset int
}

var (
	_ ast.ValueExpr       = (*Literal)(nil)
	_ ast.ParamMarkerExpr = (*paramMarker)(nil)
)

// SetValue implements ast.ValueExpr: it sets Value and Type from a Go value
// as the TiDB parser produces them.
func (l *Literal) SetValue(v any) {
	switch v := v.(type) {
	case nil:
		l.Value, l.Type = types.Null, types.TUnknown
	case bool:
		l.Value, l.Type = types.NewBool(v), types.TBool
	case int64:
		l.setInt(v)
	case int:
		l.setInt(int64(v))
	case uint64:
		if v <= math.MaxInt64 {
			l.setInt(int64(v))
			return
		}
		d := new(apd.Decimal)
		d.Coeff.SetUint64(v)
		l.Value, l.Type = types.NewDecimal(d), types.TNumeric
	case *apd.Decimal:
		if i, err := v.Int64(); err == nil && v.Exponent == 0 {
			l.setInt(i)
			return
		}
		l.Value, l.Type = types.NewDecimal(v), types.TNumeric
	case float64:
		d, _, err := apd.NewFromString(strconv.FormatFloat(v, 'g', -1, 64))
		if err != nil {
			l.Value, l.Type = types.NewFloat(v), types.TFloat8
			return
		}
		l.Value, l.Type = types.NewDecimal(d), types.TNumeric
	case string:
		l.Value, l.Type = types.NewString(v), types.TUnknown
	case []byte:
		l.Value, l.Type = types.NewBytes(v), types.TBytea
	default:
		panic(fmt.Sprintf("parser: unexpected literal value %T", v))
	}
}

func (l *Literal) setInt(v int64) {
	l.Value = types.NewInt(v)
	if v >= math.MinInt32 && v <= math.MaxInt32 {
		l.Type = types.TInt4
	} else {
		l.Type = types.TInt8
	}
}

// GetValue implements ast.ValueExpr. It returns the Go value: nil, bool,
// int64, *apd.Decimal, string or []byte. The TiDB grammar relies on int64
// for ORDER BY / GROUP BY positions.
func (l *Literal) GetValue() any {
	switch l.Value.Kind() {
	case types.KindNull:
		return nil
	case types.KindBool:
		return l.Value.Bool()
	case types.KindInt:
		return l.Value.Int()
	case types.KindDecimal:
		return l.Value.Decimal()
	case types.KindFloat:
		return l.Value.Float()
	case types.KindBytes:
		return []byte(l.Value.Str())
	}
	return l.Value.Str()
}

// GetDatumString implements ast.ValueExpr.
func (l *Literal) GetDatumString() string { return l.GetString() }

// GetString implements ast.ValueExpr: the string value, or "" if the
// literal is not a string.
func (l *Literal) GetString() string {
	if l.Value.Kind() == types.KindString || l.Value.Kind() == types.KindBytes {
		return l.Value.Str()
	}
	return ""
}

// GetProjectionOffset implements ast.ValueExpr.
func (l *Literal) GetProjectionOffset() int { return l.projectionOffset }

// SetProjectionOffset implements ast.ValueExpr.
func (l *Literal) SetProjectionOffset(offset int) { l.projectionOffset = offset }

// Accept implements ast.Node.
func (l *Literal) Accept(v ast.Visitor) (ast.Node, bool) {
	n, _ := v.Enter(l) // a literal has no children to skip
	return v.Leave(n)
}

// Restore implements ast.Node, printing a PostgreSQL literal.
func (l *Literal) Restore(ctx *format.RestoreCtx) error {
	ctx.WritePlain(l.pgText())
	return nil
}

// Format implements ast.ExprNode.
func (l *Literal) Format(w io.Writer) { _, _ = io.WriteString(w, l.pgText()) }

// pgText returns the literal as PostgreSQL SQL text.
func (l *Literal) pgText() string {
	switch l.Value.Kind() {
	case types.KindNull:
		return "NULL"
	case types.KindBool:
		if l.Value.Bool() {
			return "TRUE"
		}
		return "FALSE"
	case types.KindInt:
		return strconv.FormatInt(l.Value.Int(), 10)
	case types.KindDecimal:
		return l.Value.Decimal().Text('f')
	case types.KindFloat:
		return strconv.FormatFloat(l.Value.Float(), 'g', -1, 64)
	case types.KindBytes:
		return fmt.Sprintf(`'\x%x'::bytea`, l.Value.Str())
	}
	return quoteString(l.Value.Str())
}

// quoteString returns s as a standard SQL string literal.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// paramMarker is TiDB's `?`, which the translator emits only for side
// expressions in LIMIT and OFFSET and window frame offsets (TiDB takes
// nothing else there); parsing
// then puts the expression back by the marker's offset in the translated
// text.
type paramMarker struct {
	Literal
	offset int
}

// SetOrder implements ast.ParamMarkerExpr.
func (*paramMarker) SetOrder(int) {}

// Accept implements ast.Node (not promoted from Literal, so that visitors
// keep the marker).
func (m *paramMarker) Accept(v ast.Visitor) (ast.Node, bool) {
	n, _ := v.Enter(m)
	return v.Leave(n)
}
