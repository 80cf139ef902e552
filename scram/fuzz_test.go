package scram

import (
	"errors"
	"testing"
)

// FuzzSCRAM runs the server side of an exchange on arbitrary
// client-first and client-final messages, with and without channel
// binding: it must never panic, every error is a *ProtocolError or
// ErrFailed, and no proof is accepted (the server nonce is random).
func FuzzSCRAM(f *testing.F) {
	for _, s := range []struct {
		mech         string
		first, final string
		tls          bool
	}{
		{Mechanism, "n,,n=,r=fyko+d2lbbFgONRv9qkxdawL", "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=", false},
		{MechanismPlus, "p=tls-server-end-point,,n=,r=abc", "c=cD10bHMtc2VydmVyLWVuZC1wb2ludCws,r=abc,p=AAAA", true},
		{Mechanism, "y,,n=user,r=x,ext=1", "c=eSws,r=x,x=y,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", false},
		{Mechanism, "n,a=admin,n=,r=x", "", false},
		{"PLAIN", "n,,n=,r=x", "c=biws,r=x,p=", true},
	} {
		f.Add(s.mech, []byte(s.first), []byte(s.final), s.tls)
	}
	v := NewVerifier("pencil")
	cbind := make([]byte, 32)
	f.Fuzz(func(t *testing.T, mech string, first, final []byte, tls bool) {
		var cb []byte
		if tls {
			cb = cbind
		}
		s := NewServer(v, true, cb)
		checkErr := func(step string, err error) {
			var pe *ProtocolError
			if !errors.As(err, &pe) && !errors.Is(err, ErrFailed) {
				t.Fatalf("%s: error %T %v is neither a ProtocolError nor ErrFailed", step, err, err)
			}
		}
		if _, err := s.First(mech, first); err != nil {
			checkErr("client-first", err)
			return
		}
		out, err := s.Final(final)
		if err == nil {
			t.Fatalf("a proof was accepted: client-first %q, client-final %q, server-final %q", first, final, out)
		}
		checkErr("client-final", err)
	})
}
