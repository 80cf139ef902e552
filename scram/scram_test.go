package scram

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// client is the client side of an exchange, as libpq and pgx run it.
type client struct {
	password, nonce, gs2 string
	cbind                []byte
	first                string
}

func (c *client) firstMessage() []byte {
	c.first = "n=,r=" + c.nonce
	return []byte(c.gs2 + c.first)
}

func (c *client) finalMessage(t *testing.T, serverFirst []byte) (msg []byte, serverSig string) {
	t.Helper()
	var nonce, salt64, iter string
	for _, a := range strings.Split(string(serverFirst), ",") {
		switch a[:2] {
		case "r=":
			nonce = a[2:]
		case "s=":
			salt64 = a[2:]
		case "i=":
			iter = a[2:]
		}
	}
	if !strings.HasPrefix(nonce, c.nonce) || iter != "4096" {
		t.Fatalf("server-first %q", serverFirst)
	}
	salt, _ := base64.StdEncoding.DecodeString(salt64)
	v := derive(c.password, salt, Iterations)
	cb := base64.StdEncoding.EncodeToString(append([]byte(c.gs2), c.cbind...))
	withoutProof := "c=" + cb + ",r=" + nonce
	proof, sig := proofOf(c.password, v, c.first+","+string(serverFirst)+","+withoutProof)
	return []byte(withoutProof + ",p=" + proof), sig
}

// proofOf returns the client proof and the server signature of authMessage.
func proofOf(password string, v Verifier, authMessage string) (string, string) {
	salted := saltedPassword(password, v.Salt, v.Iterations)
	clientKey := mac(salted, "Client Key")
	proof := make([]byte, sha256.Size)
	subtle.XORBytes(proof, clientKey, mac(v.StoredKey, authMessage))
	return base64.StdEncoding.EncodeToString(proof), base64.StdEncoding.EncodeToString(mac(v.ServerKey, authMessage))
}

func TestRFC7677Vector(t *testing.T) {
	salt, _ := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	v := derive("pencil", salt, 4096)
	authMessage := "n=user,r=rOprNGfwEbeRWgbNEkqO," +
		"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096," +
		"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
	proof, sig := proofOf("pencil", v, authMessage)
	if proof != "dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=" || sig != "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=" {
		t.Fatalf("proof %s, server signature %s", proof, sig)
	}
}

func TestVerifierFormat(t *testing.T) {
	v := NewVerifier("secret")
	s := v.String()
	if !IsVerifier(s) || !strings.HasPrefix(s, "SCRAM-SHA-256$4096:") {
		t.Fatalf("verifier %q", s)
	}
	back, err := Parse(s)
	if err != nil || back.String() != s {
		t.Fatalf("Parse(%q) = %v, %v", s, back, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"plain password", ""},
		{s, s},
		{"SCRAM-SHA-256$x:abc$def:ghi", "malformed SCRAM-SHA-256 verifier"},
		{"SCRAM-SHA-256$4096:c2FsdA==$short:short", "malformed SCRAM-SHA-256 verifier"},
		{"SCRAM-SHA-256$4096", "malformed SCRAM-SHA-256 verifier"},
	} {
		got, err := Encode(tc.in)
		switch {
		case tc.want == "" && (err != nil || !IsVerifier(got)):
			t.Errorf("Encode(%q) = %q, %v; want a fresh verifier", tc.in, got, err)
		case strings.HasPrefix(tc.want, "malformed") && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Encode(%q) error %v; want %q", tc.in, err, tc.want)
		case strings.HasPrefix(tc.want, "SCRAM") && got != tc.want:
			t.Errorf("Encode(%q) = %q; want it kept", tc.in, got)
		}
	}
}

func TestExchange(t *testing.T) {
	v := NewVerifier("right")
	cbind := []byte("certificate hash")
	for _, tc := range []struct {
		name       string
		password   string
		known      bool
		serverCB   []byte
		mechanism  string
		gs2        string
		clientCB   []byte
		wantFirst  string // error of First
		wantFinal  error
		wantFinalS string // ProtocolError text of Final
	}{
		{name: "right password", password: "right", known: true, mechanism: Mechanism, gs2: "n,,"},
		{name: "wrong password", password: "wrong", known: true, mechanism: Mechanism, gs2: "n,,", wantFinal: ErrFailed},
		{name: "unknown user", password: "right", known: false, mechanism: Mechanism, gs2: "n,,", wantFinal: ErrFailed},
		{name: "channel binding", password: "right", known: true, serverCB: cbind, mechanism: MechanismPlus, gs2: "p=tls-server-end-point,,", clientCB: cbind},
		{name: "channel binding of another certificate", password: "right", known: true, serverCB: cbind, mechanism: MechanismPlus,
			gs2: "p=tls-server-end-point,,", clientCB: []byte("other"), wantFinalS: "SCRAM channel binding check failed"},
		{name: "TLS without binding", password: "right", known: true, serverCB: cbind, mechanism: Mechanism, gs2: "n,,"},
		{name: "downgrade", password: "right", known: true, serverCB: cbind, mechanism: Mechanism, gs2: "y,,", wantFirst: "negotiation error"},
		{name: "binding without TLS", password: "right", known: true, mechanism: MechanismPlus, gs2: "p=tls-server-end-point,,", wantFirst: "invalid SASL"},
		{name: "PLUS without p flag", password: "right", known: true, serverCB: cbind, mechanism: MechanismPlus, gs2: "n,,", wantFirst: "negotiation error"},
		{name: "authzid", password: "right", known: true, mechanism: Mechanism, gs2: "n,a=bob,", wantFirst: "authorization identity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv := v
			if !tc.known {
				sv = Mock("nobody", []byte("secret"))
			}
			s := NewServer(sv, tc.known, tc.serverCB)
			c := &client{password: tc.password, nonce: "clientnonce", gs2: tc.gs2, cbind: tc.clientCB}
			first, err := s.First(tc.mechanism, c.firstMessage())
			if tc.wantFirst != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantFirst) {
					t.Fatalf("First error %v; want %q", err, tc.wantFirst)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			msg, sig := c.finalMessage(t, first)
			final, err := s.Final(msg)
			var pe *ProtocolError
			switch {
			case tc.wantFinalS != "":
				if !errors.As(err, &pe) || !strings.Contains(pe.Msg, tc.wantFinalS) {
					t.Fatalf("Final error %v; want %q", err, tc.wantFinalS)
				}
			case tc.wantFinal != nil:
				if !errors.Is(err, tc.wantFinal) {
					t.Fatalf("Final error %v; want %v", err, tc.wantFinal)
				}
			case err != nil:
				t.Fatal(err)
			case string(final) != "v="+sig:
				t.Fatalf("server-final %q; want v=%s", final, sig)
			}
		})
	}
}

func TestMockIsStable(t *testing.T) {
	a, b := Mock("u", []byte("k")), Mock("u", []byte("k"))
	if a.String() != b.String() || a.String() == Mock("v", []byte("k")).String() {
		t.Fatal("a mock verifier must depend on the user only")
	}
}
