package dataflow

import (
	"context"
	"log/slog"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// TestEvaluatorRowErrors checks that every error an expression raises for a
// row's values becomes NULL and is counted, whatever its SQLSTATE, and
// that an ended context or a missing counter returns it.
func TestEvaluatorRowErrors(t *testing.T) {
	num := &expr.ColRef{Idx: 0, T: types.TNumeric}
	i4 := &expr.ColRef{Idx: 1, T: types.TInt4}
	txt := &expr.ColRef{Idx: 2, T: types.TText}
	row := []types.Datum{types.NewDecimal(&apd.Decimal{Form: apd.NaN}), types.NewInt(0), types.NewString("x")}
	must := func(e expr.Expr, err error) expr.Expr {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	cases := []struct {
		name string
		e    expr.Expr
		code string
	}{
		{"NaN to smallint", &expr.Cast{E: num, To: types.TInt2}, pgerror.CodeFeatureNotSupported},
		{"division by zero", must(expr.NewBinary("/", expr.NewConst(types.NewInt(1), types.TInt4), i4)), pgerror.CodeDivisionByZero},
		{"text to integer", &expr.Cast{E: txt, To: types.TInt4}, pgerror.CodeInvalidTextRepresentation},
		{"string too long", must(expr.NewFunc("repeat", []expr.Expr{txt, expr.NewConst(types.NewInt(1<<30), types.TInt4)})), pgerror.CodeProgramLimitExceeded},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := c.e.Eval(expr.NewCtx(context.Background(), nil), row); pgerror.Code(err) != c.code {
				t.Fatalf("the expression raises %v, want SQLSTATE %s", err, c.code)
			}
			errs := NewRowErrors(slog.New(slog.DiscardHandler))
			ev := &Evaluator{Ctx: expr.NewCtx(context.Background(), nil), Errors: errs}
			if v, err := ev.Eval(c.e, row); err != nil || !v.IsNull() {
				t.Errorf("Eval = %v, %v; want NULL", v, err)
			}
			if errs.Count() != 1 {
				t.Errorf("%d errors counted, want 1", errs.Count())
			}
			if _, err := (&Evaluator{Ctx: ev.Ctx}).Eval(c.e, row); err == nil {
				t.Error("without a counter the error is not returned")
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := (&Evaluator{Ctx: expr.NewCtx(ctx, nil), Errors: errs}).Eval(c.e, row); err == nil {
				t.Error("after the context ended the error is not returned")
			}
		})
	}
}
