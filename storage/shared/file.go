package shared

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cockroachdb/errors/oserror"
	"github.com/cockroachdb/pebble/v2/objstorage/remote"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// tmpMarker separates an object's name from the random suffix of the
// temporary file that receives its bytes until the writer's Close.
const tmpMarker = ".tmp-"

// tmpSuffixLen is the length of that random suffix, in hex digits.
const tmpSuffixLen = 16

// fileStore is a remote.Storage over a directory. It wraps Pebble's LocalFS,
// whose CreateObject writes in place, so that an object appears atomically:
// its bytes go to a temporary file that Close fsyncs and renames into place.
// Object names are flat: they may not contain '/'.
type fileStore struct {
	dir   string
	fs    vfs.FS
	inner remote.Storage
}

var _ remote.Storage = (*fileStore)(nil)

// openFile opens (creating it if missing) the directory store at dir.
func openFile(dir string) (*fileStore, error) {
	dir = filepath.Clean(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("shared: cannot create storage directory %s (check the path and its permissions): %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("shared: cannot open storage directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("shared: storage path %s is not a directory", dir)
	}
	return &fileStore{dir: dir, fs: vfs.Default, inner: remote.NewLocalFS(dir, vfs.Default)}, nil
}

// checkName rejects names that are not a single path element.
func (s *fileStore) checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("shared: invalid object name %q: file store names must be non-empty and contain no '/'", name)
	}
	return nil
}

// isTmpName reports whether name is that of a temporary file of an object
// being written.
func isTmpName(name string) bool {
	i := strings.LastIndex(name, tmpMarker)
	if i < 0 {
		return false
	}
	suffix := name[i+len(tmpMarker):]
	if len(suffix) != tmpSuffixLen {
		return false
	}
	_, err := hex.DecodeString(suffix)
	return err == nil
}

// Close is part of remote.Storage.
func (s *fileStore) Close() error {
	return s.inner.Close()
}

// ReadObject is part of remote.Storage.
func (s *fileStore) ReadObject(ctx context.Context, name string) (remote.ObjectReader, int64, error) {
	if err := s.checkName(name); err != nil {
		return nil, 0, err
	}
	return s.inner.ReadObject(ctx, name)
}

// CreateObject is part of remote.Storage. The object appears, replacing any
// object of the same name, only when the writer's Close returns nil.
func (s *fileStore) CreateObject(name string) (io.WriteCloser, error) {
	if err := s.checkName(name); err != nil {
		return nil, err
	}
	if isTmpName(name) {
		return nil, fmt.Errorf("shared: invalid object name %q: names ending in %q and %d hex digits are reserved for temporary files", name, tmpMarker, tmpSuffixLen)
	}
	var rnd [tmpSuffixLen / 2]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	tmp := filepath.Join(s.dir, name+tmpMarker+hex.EncodeToString(rnd[:]))
	f, err := s.fs.Create(tmp, vfs.WriteCategoryUnspecified)
	if err != nil {
		return nil, fmt.Errorf("shared: create object %s: %w", name, err)
	}
	return &fileWriter{store: s, f: f, tmp: tmp, final: filepath.Join(s.dir, name)}, nil
}

// List is part of remote.Storage. Temporary files of objects being written
// are not listed.
func (s *fileStore) List(prefix, delimiter string) ([]string, error) {
	all, err := s.inner.List("", "")
	if err != nil {
		return nil, err
	}
	names := all[:0]
	for _, name := range all {
		if !isTmpName(name) {
			names = append(names, name)
		}
	}
	return listNames(names, prefix, delimiter), nil
}

// Delete is part of remote.Storage. Deleting a missing object is not an
// error, as on S3.
func (s *fileStore) Delete(name string) error {
	if err := s.checkName(name); err != nil {
		return err
	}
	if err := s.inner.Delete(name); err != nil && !oserror.IsNotExist(err) {
		return err
	}
	return nil
}

// Size is part of remote.Storage.
func (s *fileStore) Size(name string) (int64, error) {
	if err := s.checkName(name); err != nil {
		return 0, err
	}
	return s.inner.Size(name)
}

// IsNotExistError is part of remote.Storage.
func (s *fileStore) IsNotExistError(err error) bool {
	return err != nil && s.inner.IsNotExistError(err)
}

// syncDir makes renames and removals in the store's directory durable.
func (s *fileStore) syncDir() error {
	d, err := s.fs.OpenDir(s.dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// fileWriter writes an object to a temporary file and renames it into place
// on Close.
type fileWriter struct {
	store    *fileStore
	f        vfs.File
	tmp      string
	final    string
	writeErr error // first error from Write; Close then publishes nothing
	closed   bool
}

// Write is part of io.Writer.
func (w *fileWriter) Write(p []byte) (int, error) {
	if w.closed {
		return 0, fmt.Errorf("shared: write to closed object writer for %s", w.final)
	}
	if w.writeErr != nil {
		return 0, w.writeErr
	}
	n, err := w.f.Write(p)
	if err != nil {
		w.writeErr = err
	}
	return n, err
}

// Close fsyncs the temporary file and renames it to the object's name. If a
// Write failed, or any step of Close fails, the temporary file is removed and
// the object is left as it was.
func (w *fileWriter) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.writeErr
	if err == nil {
		err = w.f.Sync()
	}
	err = errors.Join(err, w.f.Close())
	if err == nil {
		err = w.store.fs.Rename(w.tmp, w.final)
	}
	if err != nil {
		_ = w.store.fs.Remove(w.tmp)
		return fmt.Errorf("shared: write object %s: %w", w.final, err)
	}
	if err := w.store.syncDir(); err != nil {
		return fmt.Errorf("shared: sync directory after writing %s: %w", w.final, err)
	}
	return nil
}
