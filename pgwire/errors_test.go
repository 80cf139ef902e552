package pgwire

import (
	"context"
	"errors"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

func TestCallError(t *testing.T) {
	live := context.Background()
	canceled, cancel := context.WithCancelCause(live)
	cancel(errQueryCanceled())
	plainCanceled, cancel2 := context.WithCancel(live)
	cancel2()
	sessionErr := pgerror.New(pgerror.CodeDivisionByZero, "division by zero")
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want string
	}{
		{"no error", canceled, nil, ""},
		{"session error kept", live, sessionErr, pgerror.CodeDivisionByZero},
		{"context error after cancel request", canceled, context.Canceled, pgerror.CodeQueryCanceled},
		{"any error after cancel request", canceled, sessionErr, pgerror.CodeQueryCanceled},
		{"cancelled without a pgerror cause", plainCanceled, context.Canceled, pgerror.CodeInternal},
		{"plain error", live, errors.New("x"), pgerror.CodeInternal},
	}
	for _, tc := range tests {
		if got := pgerror.Code(callError(tc.ctx, tc.err)); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestErrorResponse(t *testing.T) {
	e := &pgerror.Error{Code: "XX000", Message: "a\x00b", Position: -1}
	got := errorResponse(e)
	if got.Severity != "ERROR" || got.SeverityUnlocalized != "ERROR" || got.Message != `a\0b` || got.Position != 0 {
		t.Errorf("got %+v", got)
	}
	if f := fatal(e); f.Severity != "FATAL" || e.Severity != "" {
		t.Errorf("fatal must copy: %+v, original %+v", f, e)
	}
}
