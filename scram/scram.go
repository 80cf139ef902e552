// Package scram implements SCRAM-SHA-256 (RFC 5802, RFC 7677) as
// PostgreSQL uses it: password verifiers in PostgreSQL's format
// (SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>) and the
// server side of the exchange, with tls-server-end-point channel binding
// (SCRAM-SHA-256-PLUS). It holds no passwords: a verifier is all the
// server keeps.
package scram

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// Mechanism names as PostgreSQL announces them in AuthenticationSASL.
const (
	Mechanism     = "SCRAM-SHA-256"
	MechanismPlus = "SCRAM-SHA-256-PLUS"
)

// Iterations is the PBKDF2 iteration count of new verifiers, PostgreSQL's
// default (scram_iterations).
const Iterations = 4096

const saltLen = 16

// Verifier is what the server keeps of a password.
type Verifier struct {
	Iterations int
	Salt       []byte
	StoredKey  []byte
	ServerKey  []byte
}

// NewVerifier derives a verifier of password with a fresh random salt.
func NewVerifier(password string) Verifier {
	salt := make([]byte, saltLen)
	rand.Read(salt)
	return derive(password, salt, Iterations)
}

// derive computes the verifier of password with salt and iterations.
func derive(password string, salt []byte, iterations int) Verifier {
	salted := saltedPassword(password, salt, iterations)
	clientKey := mac(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	return Verifier{Iterations: iterations, Salt: salt, StoredKey: stored[:], ServerKey: mac(salted, "Server Key")}
}

// saltedPassword is RFC 5802's SaltedPassword: PBKDF2 with HMAC-SHA-256.
func saltedPassword(password string, salt []byte, iterations int) []byte {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		// Only FIPS mode refuses these parameters.
		panic(err)
	}
	return salted
}

// String returns v in PostgreSQL's format, as pg_authid.rolpassword holds
// it.
func (v Verifier) String() string {
	enc := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("%s$%d:%s$%s:%s", Mechanism, v.Iterations, enc(v.Salt), enc(v.StoredKey), enc(v.ServerKey))
}

// IsVerifier reports whether s looks like a SCRAM-SHA-256 verifier rather
// than a password (as PostgreSQL decides whether CREATE ROLE ... PASSWORD
// got a pre-hashed one).
func IsVerifier(s string) bool { return strings.HasPrefix(s, Mechanism+"$") }

// Parse reads a verifier in PostgreSQL's format.
func Parse(s string) (Verifier, error) {
	bad := func(why string) (Verifier, error) {
		return Verifier{}, fmt.Errorf("malformed SCRAM-SHA-256 verifier: %s", why)
	}
	rest, ok := strings.CutPrefix(s, Mechanism+"$")
	if !ok {
		return bad("it must start with " + Mechanism + "$")
	}
	params, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return bad("expected <iterations>:<salt>$<StoredKey>:<ServerKey>")
	}
	iter, salt64, ok1 := strings.Cut(params, ":")
	stored64, server64, ok2 := strings.Cut(keys, ":")
	if !ok1 || !ok2 {
		return bad("expected <iterations>:<salt>$<StoredKey>:<ServerKey>")
	}
	var v Verifier
	var err error
	if v.Iterations, err = strconv.Atoi(iter); err != nil || v.Iterations < 1 {
		return bad("the iteration count must be a positive integer")
	}
	dec := base64.StdEncoding.DecodeString
	if v.Salt, err = dec(salt64); err != nil || len(v.Salt) == 0 {
		return bad("the salt is not base64")
	}
	if v.StoredKey, err = dec(stored64); err != nil || len(v.StoredKey) != sha256.Size {
		return bad("StoredKey is not a base64 SHA-256 digest")
	}
	if v.ServerKey, err = dec(server64); err != nil || len(v.ServerKey) != sha256.Size {
		return bad("ServerKey is not a base64 SHA-256 digest")
	}
	return v, nil
}

// Encode returns the verifier to store for what CREATE/ALTER ROLE ...
// PASSWORD got: a SCRAM-SHA-256 verifier is checked and kept as it is, a
// password is hashed.
func Encode(passwordOrVerifier string) (string, error) {
	if !IsVerifier(passwordOrVerifier) {
		return NewVerifier(passwordOrVerifier).String(), nil
	}
	if _, err := Parse(passwordOrVerifier); err != nil {
		return "", err
	}
	return passwordOrVerifier, nil
}

func mac(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}
