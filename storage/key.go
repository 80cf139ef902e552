package storage

import "encoding/binary"

// SystemTableID is the table id under which node-local system keys (the last
// written epoch, id sequences) are stored, with the same layout as table
// state.
const SystemTableID uint32 = 0

// RaftTableID is the table id under which the node's Raft log keeps its
// entries in the state store (Engine.RaftKeys), as bare keys: version
// collection, migrations and restores, which read tables by id, never
// meet them.
const RaftTableID uint32 = 1<<32 - 1

// Physical encoding of keys in Pebble. A user key (what AppendKey builds) is
//
//	table_id u32 | vnode u16 | pk
//
// and Pebble stores each version of it as
//
//	user key | 0x00 | ^epoch u64 | 0x09
//
// all big-endian. The 0x00 sentinel ends the prefix and the trailing byte is
// the length of the suffix (the inverted epoch plus the length byte), so that
// Split can tell a bare prefix (ending in 0x00; used by Pebble internally and
// as iterator bounds) from a versioned key (ending in 0x09). Inverting the
// epoch makes the newest version of a key sort first. This layout is
// permanent once data exists.
const (
	sentinel  byte = 0x00
	suffixLen      = 9 // 8-byte inverted epoch + the length byte itself
	// keyOverhead is what a versioned key adds to its user key.
	keyOverhead = 1 + suffixLen
)

// AppendKey appends the user key of a row (without epoch) to dst: table_id,
// vnode and the memcomparable primary key, big-endian.
func AppendKey(dst []byte, tableID uint32, vnode uint16, pk []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, tableID)
	dst = binary.BigEndian.AppendUint16(dst, vnode)
	return append(dst, pk...)
}

// TablePrefix returns the prefix shared by every user key of a table.
func TablePrefix(tableID uint32) []byte {
	return binary.BigEndian.AppendUint32(nil, tableID)
}

// appendVersioned appends the Pebble key of version epoch of key.
func appendVersioned(dst, key []byte, epoch uint64) []byte {
	dst = append(dst, key...)
	dst = append(dst, sentinel)
	dst = binary.BigEndian.AppendUint64(dst, ^epoch)
	return append(dst, suffixLen)
}

// appendBound appends the bare Pebble key of a user key, which sorts before
// every version of that key and after every smaller user key: the form of
// iterator and range-deletion bounds.
func appendBound(dst, key []byte) []byte {
	return append(append(dst, key...), sentinel)
}

// split returns the length of the prefix of a Pebble key: the user key plus
// its sentinel.
func split(k []byte) int {
	n := len(k)
	if n > suffixLen && k[n-1] == suffixLen {
		return n - suffixLen
	}
	return n
}

// userKey returns the user key of a Pebble key, and false if k is not a
// well-formed key of this encoding.
func userKey(k []byte) ([]byte, bool) {
	p := split(k)
	if p == 0 || k[p-1] != sentinel {
		return nil, false
	}
	return k[:p-1], true
}

// versionEpoch returns the epoch of a versioned Pebble key.
func versionEpoch(k []byte) uint64 {
	return ^binary.BigEndian.Uint64(k[len(k)-suffixLen:])
}
