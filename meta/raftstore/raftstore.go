// Package raftstore implements hashicorp/raft's LogStore and StableStore on a
// node-local Pebble database, with the semantics of raft-boltdb: every write
// is synced, indexes are dense from FirstIndex to LastIndex (0 and 0 when the
// log is empty), and a missing stable key is the error "not found".
package raftstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"

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
	return &Store{db: db}, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

func logKey(index uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{logPrefix}, index)
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
		LowerBound: []byte{logPrefix},
		UpperBound: []byte{logPrefixEnd},
	})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	if !position(it) {
		return 0, it.Error()
	}
	return binary.BigEndian.Uint64(it.Key()[1:]), nil
}

// GetLog reads the entry at index into log, or returns raft.ErrLogNotFound.
func (s *Store) GetLog(index uint64, log *raft.Log) error {
	v, closer, err := s.db.Get(logKey(index))
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
		if err := b.Set(logKey(l.Index), buf, nil); err != nil {
			return err
		}
	}
	return b.Commit(pebble.Sync)
}

// DeleteRange deletes the entries from min to max inclusive, durably.
func (s *Store) DeleteRange(min, max uint64) error {
	end := []byte{logPrefixEnd}
	if max < ^uint64(0) {
		end = logKey(max + 1)
	}
	return s.db.DeleteRange(logKey(min), end, pebble.Sync)
}

// Set stores a key, durably.
func (s *Store) Set(key, val []byte) error {
	return s.db.Set(append([]byte{stablePrefix}, key...), val, pebble.Sync)
}

// Get returns the value of a key, or ErrKeyNotFound.
func (s *Store) Get(key []byte) ([]byte, error) {
	v, closer, err := s.db.Get(append([]byte{stablePrefix}, key...))
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
