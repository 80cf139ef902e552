package raftstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/raft"
)

// logFormat is the version byte that starts every encoded entry.
const logFormat = 1

// encodeLog appends the encoding of l to dst:
//
//	format u8 | index u64 | term u64 | type u8 | appended-at unix-nanos i64
//	| uvarint len | data | uvarint len | extensions
//
// A zero AppendedAt is stored as 0.
func encodeLog(dst []byte, l *raft.Log) []byte {
	dst = append(dst, logFormat)
	dst = binary.BigEndian.AppendUint64(dst, l.Index)
	dst = binary.BigEndian.AppendUint64(dst, l.Term)
	dst = append(dst, byte(l.Type))
	var at int64
	if !l.AppendedAt.IsZero() {
		at = l.AppendedAt.UnixNano()
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(at))
	dst = binary.AppendUvarint(dst, uint64(len(l.Data)))
	dst = append(dst, l.Data...)
	dst = binary.AppendUvarint(dst, uint64(len(l.Extensions)))
	return append(dst, l.Extensions...)
}

var errCorrupt = errors.New("corrupt encoding")

// decodeLog decodes b into l; l's byte slices are copies.
func decodeLog(b []byte, l *raft.Log) error {
	const fixed = 1 + 8 + 8 + 1 + 8
	if len(b) < fixed {
		return errCorrupt
	}
	if b[0] != logFormat {
		return fmt.Errorf("unknown format %d", b[0])
	}
	l.Index = binary.BigEndian.Uint64(b[1:])
	l.Term = binary.BigEndian.Uint64(b[9:])
	l.Type = raft.LogType(b[17])
	l.AppendedAt = time.Time{}
	if at := int64(binary.BigEndian.Uint64(b[18:])); at != 0 {
		l.AppendedAt = time.Unix(0, at)
	}
	b = b[fixed:]
	var err error
	if l.Data, b, err = decodeBytes(b); err != nil {
		return err
	}
	if l.Extensions, b, err = decodeBytes(b); err != nil {
		return err
	}
	if len(b) != 0 {
		return errCorrupt
	}
	return nil
}

// decodeBytes decodes a uvarint-length-prefixed byte string; nil when empty.
func decodeBytes(b []byte) (val, rest []byte, err error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) {
		return nil, nil, errCorrupt
	}
	b = b[w:]
	if n == 0 {
		return nil, b, nil
	}
	return append([]byte(nil), b[:n]...), b[n:], nil
}
