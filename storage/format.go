package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FormatVersion is the version of what the state store holds: the key
// layout and the encodings of stored values. A store written in another
// format is refused rather than misread.
//
//   - 1 (unmarked): timestamps as microseconds since 1970.
//   - 2: timestamps as microseconds since 2000-01-01, PostgreSQL's epoch
//     (its whole range fits in 64 bits); streaming sum/avg of intervals
//     keep exact sums.
const FormatVersion = 2

// formatFile holds FormatVersion in the store's directory.
const formatFile = "STREAMDB_FORMAT"

// checkFormat refuses a store in dir written in another format and marks a
// new one with FormatVersion. fresh reports whether dir holds no store yet.
func checkFormat(dir string, fresh bool) error {
	path := filepath.Join(dir, formatFile)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist) && fresh:
		return os.WriteFile(path, []byte(strconv.Itoa(FormatVersion)+"\n"), 0o644)
	case errors.Is(err, os.ErrNotExist):
		return formatError(dir, 1)
	case err != nil:
		return fmt.Errorf("read the store's format: %w", err)
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("the store's format file %s is damaged: %q", path, b)
	}
	if v != FormatVersion {
		return formatError(dir, v)
	}
	return nil
}

func formatError(dir string, v int) error {
	return fmt.Errorf("the state store in %s is in format %d and this streamdb reads format %d: start it with the streamdb release that wrote it to export the data (COPY or a client), then load it into a fresh --data-dir", dir, v, FormatVersion)
}

// hasStore reports whether dir holds a Pebble store.
func hasStore(dir string) (bool, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "MANIFEST-*"))
	return len(matches) > 0, err
}
