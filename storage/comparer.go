package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// comparerName is persisted by Pebble; a store written with one comparer
// cannot be opened with another.
const comparerName = "streamdb.epoch_suffix.v1"

// Comparer orders Pebble keys by user key (bytewise), then newest epoch
// first. Split separates the epoch suffix so that bloom filters and
// SeekPrefixGE work on user keys. See key.go for the encoding.
var Comparer = &pebble.Comparer{
	Name:                 comparerName,
	Split:                split,
	Compare:              compare,
	Equal:                bytes.Equal,
	ComparePointSuffixes: bytes.Compare,
	CompareRangeSuffixes: bytes.Compare,
	AbbreviatedKey:       abbreviatedKey,
	Separator:            separator,
	Successor:            successor,
	ImmediateSuccessor:   immediateSuccessor,
	FormatKey:            func(k []byte) fmt.Formatter { return formattedKey(k) },
	ValidateKey:          validateKey,
}

// compare compares prefixes bytewise, then suffixes. The sentinel makes the
// bytewise order of prefixes that of user keys.
func compare(a, b []byte) int {
	an, bn := split(a), split(b)
	if c := bytes.Compare(a[:an], b[:bn]); c != 0 {
		return c
	}
	return bytes.Compare(a[an:], b[bn:])
}

// abbreviatedKey returns the first 8 bytes of the prefix, zero-padded.
func abbreviatedKey(k []byte) uint64 {
	p := k[:split(k)]
	if len(p) >= 8 {
		return binary.BigEndian.Uint64(p)
	}
	var v uint64
	for _, c := range p {
		v = v<<8 | uint64(c)
	}
	return v << (8 * (8 - len(p)))
}

// separator shortens the user key of a between the user keys of a and b and
// returns it as a bare key, or a itself when it cannot do better.
func separator(dst, a, b []byte) []byte {
	ak, aok := userKey(a)
	bk, bok := userKey(b)
	if !aok || !bok || len(ak) == 0 || len(bk) == 0 || bytes.Equal(ak, bk) {
		return append(dst, a...)
	}
	n := len(dst)
	dst = pebble.DefaultComparer.Separator(dst, ak, bk)
	if bytes.Equal(dst[n:], ak) {
		return append(dst[:n], a...)
	}
	return append(dst, sentinel)
}

// successor returns a short bare key >= a.
func successor(dst, a []byte) []byte {
	if len(a) == 0 {
		return append(dst, sentinel)
	}
	ak, ok := userKey(a)
	if !ok {
		return append(dst, a...)
	}
	n := len(dst)
	dst = pebble.DefaultComparer.Successor(dst, ak)
	if bytes.Equal(dst[n:], ak) {
		return append(dst[:n], a...)
	}
	return append(dst, sentinel)
}

// immediateSuccessor returns the smallest bare key after the bare key a: the
// user key extended by a zero byte.
func immediateSuccessor(dst, a []byte) []byte {
	return append(append(dst, a...), sentinel)
}

func validateKey(k []byte) error {
	if _, ok := userKey(k); !ok {
		return fmt.Errorf("storage: malformed key %x", k)
	}
	return nil
}

// formattedKey prints a key as table/vnode/pk@epoch for Pebble's logs and
// tools.
type formattedKey []byte

// Format implements fmt.Formatter.
func (k formattedKey) Format(s fmt.State, _ rune) {
	uk, ok := userKey(k)
	if !ok || len(uk) < 6 {
		fmt.Fprintf(s, "%x", []byte(k))
		return
	}
	fmt.Fprintf(s, "t%d/v%d/%x", binary.BigEndian.Uint32(uk), binary.BigEndian.Uint16(uk[4:]), uk[6:])
	if split(k) < len(k) {
		fmt.Fprintf(s, "@%d", versionEpoch(k))
	}
}
