package expr

import (
	"context"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Sequences is what the sequence functions ask of the node and the
// session: sequences are named by relation OID.
type Sequences interface {
	// NextVal advances the sequence and returns its value, which becomes
	// the session's currval and lastval.
	NextVal(ctx context.Context, id uint32) (int64, error)
	// CurrVal returns the session's last nextval of the sequence (55000
	// if none).
	CurrVal(id uint32) (int64, error)
	// LastVal returns the session's last nextval of any sequence.
	LastVal() (int64, error)
	// SetVal sets the sequence's last value and is_called.
	SetVal(ctx context.Context, id uint32, value int64, called bool) error
	// Row returns the sequence's last_value, log_cnt and is_called, as
	// SELECT * FROM it shows them.
	Row(id uint32) (last, logCnt int64, called bool, err error)
}

// SequenceFuncs are the functions of sequences: volatile, and not
// available in a materialized view's dataflow.
var SequenceFuncs = map[string]bool{"nextval": true, "currval": true, "lastval": true, "setval": true}

// sequencesOf returns the statement's sequences, or 0A000 without any.
func sequencesOf(c *Ctx, name string) (Sequences, error) {
	if c == nil || c.Sequences == nil {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "%s() is not available here: it needs a client session", name)
	}
	return c.Sequences, nil
}

func init() {
	seqFn := func(name string, fn func(c *Ctx, s Sequences, a []types.Datum) (int64, error)) builtinFn {
		return func(c *Ctx, a []types.Datum) (types.Datum, error) {
			s, err := sequencesOf(c, name)
			if err != nil {
				return types.Null, err
			}
			v, err := fn(c, s, a)
			if err != nil {
				return types.Null, err
			}
			return types.NewInt(v), nil
		}
	}
	RegisterBuiltin("nextval", volatile(sig(types.TInt8, seqFn("nextval", func(c *Ctx, s Sequences, a []types.Datum) (int64, error) {
		return s.NextVal(c.Context, uint32(a[0].Int()))
	}), types.Oid)))
	RegisterBuiltin("currval", volatile(sig(types.TInt8, seqFn("currval", func(_ *Ctx, s Sequences, a []types.Datum) (int64, error) {
		return s.CurrVal(uint32(a[0].Int()))
	}), types.Oid)))
	RegisterBuiltin("lastval", volatile(sig(types.TInt8, seqFn("lastval", func(_ *Ctx, s Sequences, _ []types.Datum) (int64, error) {
		return s.LastVal()
	}))))
	setval := seqFn("setval", func(c *Ctx, s Sequences, a []types.Datum) (int64, error) {
		called := len(a) < 3 || a[2].Bool()
		return a[1].Int(), s.SetVal(c.Context, uint32(a[0].Int()), a[1].Int(), called)
	})
	RegisterBuiltin("setval", volatile(sig(types.TInt8, setval, types.Oid, types.Int8)), volatile(sig(types.TInt8, setval, types.Oid, types.Int8, types.Bool)))
	// pg_sequence_last_value is the last value handed out, NULL before
	// the first.
	RegisterBuiltin("pg_sequence_last_value", volatile(sig(types.TInt8, func(c *Ctx, a []types.Datum) (types.Datum, error) {
		s, err := sequencesOf(c, "pg_sequence_last_value")
		if err != nil {
			return types.Null, err
		}
		last, _, called, err := s.Row(uint32(a[0].Int()))
		if err != nil || !called {
			return types.Null, err
		}
		return types.NewInt(last), nil
	}, types.Oid)))
}
