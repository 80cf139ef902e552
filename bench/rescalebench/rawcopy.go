package rescalebench

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// minRawCopy is the least the raw copy measures, for a steady rate.
const minRawCopy = 64 << 20

// rawCopyRate copies about bytes of the SSTs in the data directory from
// as plain files into a scratch directory in the data directory to,
// syncing each, and returns the rate in MB/s (1e6 bytes): what moving the
// same state between the two nodes' disks costs without streamdb. The
// scratch directory is removed afterwards.
func rawCopyRate(from, to string, bytes int64) (float64, error) {
	scratch, err := os.MkdirTemp(to, "rawcopy-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(scratch)
	var copied int64
	start := time.Now()
	err = filepath.WalkDir(filepath.Join(from, "state"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".sst" || copied >= bytes {
			// Pebble deletes files as it compacts: one gone is skipped.
			return nil
		}
		n, err := copyFile(path, filepath.Join(scratch, d.Name()))
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		copied += n
		return nil
	})
	took := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("raw copy from %s: %w", from, err)
	}
	if copied == 0 {
		return 0, fmt.Errorf("raw copy from %s: no SSTs to copy", from)
	}
	return float64(copied) / 1e6 / took.Seconds(), nil
}

// copyFile copies src to dst and syncs dst, returning the bytes copied.
func copyFile(src, dst string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}
