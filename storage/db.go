package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// DB is a raw Pebble database that holds the lock on its directory. Engine
// builds on it; other node-local stores (the Raft log) use it directly.
type DB struct {
	*pebble.DB
	lock *pebble.Lock
}

// OpenDB opens, creating it if needed, the Pebble database in dir. It takes
// the directory lock itself (setting opts.Lock) so that a directory held by
// another process is reported as such.
func OpenDB(dir string, opts *pebble.Options) (*DB, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	lock, err := pebble.LockDirectory(dir, vfs.Default)
	if err != nil {
		if pathErr := (*fs.PathError)(nil); errors.As(err, &pathErr) {
			return nil, fmt.Errorf("lock data directory %s: %w", dir, err)
		}
		return nil, fmt.Errorf("data directory %s is in use by another streamdb process (lock file %s): %w",
			dir, filepath.Join(dir, "LOCK"), err)
	}
	opts.Lock = lock
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open store %s: %w", dir, err), lock.Close())
	}
	return &DB{DB: db, lock: lock}, nil
}

// Close closes the database and releases its directory lock.
func (d *DB) Close() error {
	err := d.DB.Close()
	return errors.Join(err, d.lock.Close())
}

// PebbleLogger adapts a slog.Logger to Pebble's logger interface.
type PebbleLogger struct{ L *slog.Logger }

// Infof implements pebble.Logger. Pebble's informational messages (WAL
// replay, for example) are logged at debug level.
func (p PebbleLogger) Infof(format string, args ...any) {
	p.L.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}

// Errorf implements pebble.Logger.
func (p PebbleLogger) Errorf(format string, args ...any) {
	p.L.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

// Fatalf implements pebble.Logger: it logs and panics, since Pebble expects
// it not to return.
func (p PebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.L.Error(msg, "component", "pebble")
	panic("pebble: " + msg)
}
