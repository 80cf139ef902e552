// Package raftstore implements hashicorp/raft's LogStore and StableStore on a
// node-local Pebble database, with the semantics of raft-boltdb: every write
// is synced, indexes are dense from FirstIndex to LastIndex (0 and 0 when the
// log is empty), and a missing stable key is the error "not found".
//
// A node keeps its log in a key space of its state store (Within), so that
// the log shares the state's WAL: the sync of the entry that commits an
// epoch also makes every state write before it durable, and an epoch costs
// one fsync, not two. Open gives a store its own database (tests, tools,
// and the layout that Adopt moves into the state store).
package raftstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"

	"github.com/cockroachdb/pebble/v2"
	"github.com/hashicorp/raft"
	"github.com/streamdb/streamdb/storage"
)

// ErrKeyNotFound is returned by Get and GetUint64 for a missing key. Raft
// recognizes it by its message.
var ErrKeyNotFound = errors.New("not found")

// Key spaces: log entries under 'l' + big-endian index, so that byte order
// is index order; stable keys under 's' + key.
const (
	logPrefix    = 'l'
	logPrefixEnd = logPrefix + 1
	stablePrefix = 's'
)

// Store is a raft LogStore and StableStore. It is safe for concurrent use.
type Store struct {
	db *storage.DB
	// Every key is prefix | space | payload | suffix (see Within).
	prefix, suffix []byte
	// owned is set when Close closes db (Open).
	owned bool
}

var (
	_ raft.LogStore    = (*Store)(nil)
	_ raft.StableStore = (*Store)(nil)
)

// Open opens, creating it if needed, the store in dir. logger receives
// Pebble's messages; nil means slog.Default().
func Open(dir string, logger *slog.Logger) (*Store, error) {
	if logger == nil {
		logger = slog.Default()
	}
	db, err := storage.OpenDB(dir, &pebble.Options{
		FormatMajorVersion: pebble.FormatNewest,
		Logger:             storage.PebbleLogger{L: logger},
	})
	if err != nil {
		return nil, err
	}
	return &Store{db: db, owned: true}, nil
}

// Within returns the store whose keys are those of db between prefix and
// suffix, which frame them apart from the database's other keys and as
// its comparer requires (the state store's: storage.Engine.RaftKeys).
// Closing it leaves db open.
func Within(db *storage.DB, prefix, suffix []byte) *Store {
	return &Store{db: db, prefix: prefix, suffix: suffix}
}

// Close closes the store, and its database if it is its own.
func (s *Store) Close() error {
	if !s.owned {
		return nil
	}
	return s.db.Close()
}

// key returns the key of payload in space.
func (s *Store) key(space byte, payload []byte) []byte {
	k := make([]byte, 0, len(s.prefix)+1+len(payload)+len(s.suffix))
	k = append(append(append(k, s.prefix...), space), payload...)
	return append(k, s.suffix...)
}

func (s *Store) logKey(index uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], index)
	return s.key(logPrefix, b[:])
}

// Adopt moves into s the entries of the store of its own in dir (a data
// directory of the layout before the log moved into the state store),
// durably, and then removes dir. Without dir it does nothing. A crash
// before dir is gone moves the same entries again at the next start.
func (s *Store) Adopt(dir string, logger *slog.Logger) error {
	// The store is renamed before it is removed, so that a crash while
	// removing it leaves no half store behind to adopt; what such a crash
	// left goes now.
	gone := dir + ".adopted"
	if err := os.RemoveAll(gone); err != nil {
		return err
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	old, err := Open(dir, logger)
	if err != nil {
		return err
	}
	if err := s.copyFrom(old); err != nil {
		return errors.Join(fmt.Errorf("move the Raft log of %s into the state store: %w", dir, err), old.Close())
	}
	if err := old.Close(); err != nil {
		return err
	}
	if err := os.Rename(dir, gone); err != nil {
		return err
	}
	return os.RemoveAll(gone)
}

// copyFrom writes every key of from into s, in one synced batch.
func (s *Store) copyFrom(from *Store) error {
	it, err := from.db.NewIter(nil)
	if err != nil {
		return err
	}
	b := s.db.NewBatch()
	defer b.Close()
	for it.First(); it.Valid(); it.Next() {
		k := it.Key()
		if err := b.Set(s.key(k[0], k[1:]), it.Value(), nil); err != nil {
			return errors.Join(err, it.Close())
		}
	}
	if err := it.Close(); err != nil {
		return err
	}
	return b.Commit(pebble.Sync)
}

// FirstIndex returns the first index written, or 0 when the log is empty.
func (s *Store) FirstIndex() (uint64, error) {
	return s.edgeIndex((*pebble.Iterator).First)
}

// LastIndex returns the last index written, or 0 when the log is empty.
func (s *Store) LastIndex() (uint64, error) {
	return s.edgeIndex((*pebble.Iterator).Last)
}

func (s *Store) edgeIndex(position func(*pebble.Iterator) bool) (uint64, error) {
	it, err := s.db.NewIter(&pebble.IterOptions{
		LowerBound: s.key(logPrefix, nil),
		UpperBound: s.key(logPrefixEnd, nil),
	})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	if !position(it) {
		return 0, it.Error()
	}
	k := it.Key()
	return binary.BigEndian.Uint64(k[len(s.prefix)+1 : len(k)-len(s.suffix)]), nil
}

// GetLog reads the entry at index into log, or returns raft.ErrLogNotFound.
func (s *Store) GetLog(index uint64, log *raft.Log) error {
	v, closer, err := s.db.Get(s.logKey(index))
	if errors.Is(err, pebble.ErrNotFound) {
		return raft.ErrLogNotFound
	}
	if err != nil {
		return err
	}
	defer closer.Close()
	if err := decodeLog(v, log); err != nil {
		return fmt.Errorf("raft log entry %d: %w", index, err)
	}
	return nil
}

// StoreLog writes one entry, durably.
func (s *Store) StoreLog(log *raft.Log) error {
	return s.StoreLogs([]*raft.Log{log})
}

// StoreLogs writes entries atomically and durably.
func (s *Store) StoreLogs(logs []*raft.Log) error {
	b := s.db.NewBatch()
	defer b.Close()
	var buf []byte
	for _, l := range logs {
		buf = encodeLog(buf[:0], l)
		if err := b.Set(s.logKey(l.Index), buf, nil); err != nil {
			return err
		}
	}
	return b.Commit(pebble.Sync)
}

// DeleteRange deletes the entries from min to max inclusive, durably.
func (s *Store) DeleteRange(min, max uint64) error {
	end := s.key(logPrefixEnd, nil)
	if max < ^uint64(0) {
		end = s.logKey(max + 1)
	}
	return s.db.DeleteRange(s.logKey(min), end, pebble.Sync)
}

// Set stores a key, durably.
func (s *Store) Set(key, val []byte) error {
	return s.db.Set(s.key(stablePrefix, key), val, pebble.Sync)
}

// Get returns the value of a key, or ErrKeyNotFound.
func (s *Store) Get(key []byte) ([]byte, error) {
	v, closer, err := s.db.Get(s.key(stablePrefix, key))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, ErrKeyNotFound
	}
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	return append([]byte(nil), v...), nil
}

// SetUint64 stores a uint64 value, durably.
func (s *Store) SetUint64(key []byte, val uint64) error {
	return s.Set(key, binary.BigEndian.AppendUint64(nil, val))
}

// GetUint64 returns a uint64 value, or ErrKeyNotFound.
func (s *Store) GetUint64(key []byte) (uint64, error) {
	v, err := s.Get(key)
	if err != nil {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("raft stable key %q: value of %d bytes is not a uint64", key, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}
