package sql

import (
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

// TestRecoverInternal checks that a panic in a statement's work becomes an
// ERROR with SQLSTATE XX000 that aborts the transaction block, as
// PostgreSQL reports internal errors, instead of ending the connection.
func TestRecoverInternal(t *testing.T) {
	s := &Session{e: &Engine{opts: Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}, tx: 'T'}
	err := func() (err error) {
		defer s.recoverInternal(&err)
		var m map[string]int
		m["boom"]++ // a nil map write panics
		return nil
	}()
	var pe *pgerror.Error
	if !errors.As(s.fail(err), &pe) {
		t.Fatalf("got %v, want a *pgerror.Error", err)
	}
	if pe.Code != pgerror.CodeInternal || pe.Severity == "FATAL" {
		t.Errorf("got %s %s %q, want ERROR XX000", pe.Severity, pe.Code, pe.Message)
	}
	if s.tx != 'E' {
		t.Errorf("tx status %c, want E (the block is aborted)", s.tx)
	}
}
