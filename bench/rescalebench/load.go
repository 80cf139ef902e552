package rescalebench

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/bench/benchkit"
)

// The table and the view: every key's pad stays in the view's state
// three times over (the multiset max keeps of a table with deletes, the
// group's max, the view's row), so the state grows fast with few rows.
const (
	createTable = "CREATE TABLE t (k int8, v int8, pad varchar)"
	createView  = "CREATE MATERIALIZED VIEW " + viewName + " AS SELECT k, count(*) AS n, sum(v) AS s, max(pad) AS m FROM t GROUP BY k"
)

// padLen is the length of each loaded row's random pad.
const padLen = 100

// viewBytesPerRow is a first guess of the view's state per loaded row;
// the load measures and tops up what the guess missed.
const viewBytesPerRow = 250

// copyRows is the number of rows of one COPY; copyConns COPYs run at once.
const (
	copyRows  = 100_000
	copyConns = 2
)

// loaded describes the loaded table and view.
type loaded struct {
	// Keys is the number of keys, 0 to Keys-1, one row each.
	Keys int64
	// StateBytes is at least the view's state: what Pebble's SSTs grew to
	// beyond all of the table's files (its rows still in the WAL too)
	// while the view was built and more rows came into it. Writes not yet
	// flushed from the memtables are not counted.
	StateBytes int64
	// Took is how long the load took.
	Took time.Duration
}

// load creates the table and the view and loads the table with keys of
// one row each until the view's state reaches stateBytes: first rows for
// a guess of the size into the table alone (binary COPY), then the view
// over them, then, as long as the view's state falls short, more rows
// through the view. dirs are the servers' data directories; progress goes
// to errOut.
func load(ctx context.Context, connString string, dirs []string, stateBytes int64, errOut io.Writer) (loaded, error) {
	start := time.Now()
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return loaded{}, fmt.Errorf("connect to the server: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, createTable); err != nil {
		return loaded{}, fmt.Errorf("create the table: %w", err)
	}
	keys := max(stateBytes/viewBytesPerRow, 1)
	if err := copyKeys(ctx, connString, 0, keys, "load t", errOut); err != nil {
		return loaded{}, err
	}
	table, err := pebbleBytes(dirs...)
	if err != nil {
		return loaded{}, err
	}
	// tableShare is the table's part of Pebble's files at n keys.
	tableShare := func(n int64) int64 { return table.all * n / keys }
	if err := buildView(ctx, conn, dirs, table.all, stateBytes, errOut); err != nil {
		return loaded{}, err
	}
	l := loaded{Keys: keys}
	for {
		files, err := pebbleBytes(dirs...)
		if err != nil {
			return loaded{}, err
		}
		l.StateBytes = files.sst - tableShare(l.Keys)
		if l.StateBytes >= stateBytes {
			break
		}
		// Guess the rows missing from the state per row so far, a tenth
		// more so that one round is likely enough.
		perRow := max(l.StateBytes/l.Keys, 1)
		more := max((stateBytes-l.StateBytes)/perRow*11/10, copyRows)
		fmt.Fprintf(errOut, "the view's state is %d MiB of %d MiB: loading %s more keys\n",
			l.StateBytes>>20, stateBytes>>20, benchkit.Thousands(more))
		if err := copyKeys(ctx, connString, l.Keys, l.Keys+more, "top up t", errOut); err != nil {
			return loaded{}, err
		}
		l.Keys += more
	}
	l.Took = time.Since(start)
	return l, nil
}

// buildView creates the view over the loaded table, showing how far
// Pebble's SSTs grew beyond tableBytes (in MiB) against the target
// stateBytes.
func buildView(ctx context.Context, conn *pgx.Conn, dirs []string, tableBytes, stateBytes int64, errOut io.Writer) error {
	bar := benchkit.NewProgress(errOut, "build v", "MiB")
	defer bar.Finish()
	done := make(chan struct{})
	var wg sync.WaitGroup
	start := time.Now()
	wg.Go(func() {
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if files, err := pebbleBytes(dirs...); err == nil {
					bar.Update(max(files.sst-tableBytes, 0)>>20, stateBytes>>20, time.Since(start))
				}
			}
		}
	})
	_, err := conn.Exec(ctx, createView)
	close(done)
	wg.Wait()
	if err != nil {
		return fmt.Errorf("create the view: %w", err)
	}
	return nil
}

// progressEvery is how often the load's progress is redrawn.
const progressEvery = 500 * time.Millisecond

// copyKeys loads keys from to to-1 into t, one row each, by binary COPYs
// of copyRows rows on copyConns connections at once.
func copyKeys(ctx context.Context, connString string, from, to int64, label string, errOut io.Writer) error {
	bar := benchkit.NewProgress(errOut, label, "rows")
	defer bar.Finish()
	var next, copied atomic.Int64
	next.Store(from)
	start := time.Now()
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for c := range copyConns {
		wg.Go(func() {
			err := copyChunks(ctx, connString, uint64(c), &next, to, func(n int64) {
				mu.Lock()
				defer mu.Unlock()
				bar.Update(copied.Add(n), to-from, time.Since(start))
			})
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return fmt.Errorf("load the table: %w", errs[0])
	}
	return nil
}

// copyChunks runs on its own connection the COPYs of the chunks of
// copyRows keys it takes from next until to, calling copied after each.
func copyChunks(ctx context.Context, connString string, seed uint64, next *atomic.Int64, to int64, copied func(int64)) error {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	rows := newPadRows(seed)
	for {
		first := next.Add(copyRows) - copyRows
		if first >= to {
			return nil
		}
		rows.reset(first, min(first+copyRows, to))
		n, err := conn.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"k", "v", "pad"}, rows)
		if err != nil {
			return err
		}
		copied(n)
	}
}

// padRows is a pgx.CopyFromSource of rows (k, v, pad) for keys in order,
// v and pad random.
type padRows struct {
	next, end int64
	rng       *rand.Rand
	pad       []byte
	row       []any
}

// alphabet is what pads are made of.
const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// newPadRows returns rows whose random values come from seed.
func newPadRows(seed uint64) *padRows {
	return &padRows{rng: rand.New(rand.NewPCG(seed, 0x5eed)), pad: make([]byte, padLen), row: make([]any, 3)}
}

// reset makes the rows those of keys from to to-1.
func (p *padRows) reset(from, to int64) { p.next, p.end = from, to }

// Next implements pgx.CopyFromSource.
func (p *padRows) Next() bool { return p.next < p.end }

// Values implements pgx.CopyFromSource.
func (p *padRows) Values() ([]any, error) {
	for i := range p.pad {
		p.pad[i] = alphabet[p.rng.IntN(len(alphabet))]
	}
	p.row[0], p.row[1], p.row[2] = p.next, p.rng.Int64N(1000), string(p.pad)
	p.next++
	return p.row, nil
}

// Err implements pgx.CopyFromSource.
func (p *padRows) Err() error { return nil }

// pebbleFiles are sizes of Pebble's files.
type pebbleFiles struct {
	// sst is the size of the SSTs, all of every file (the WAL's too).
	sst, all int64
}

// pebbleBytes measures Pebble's files in the servers' data directories
// dirs, summed.
func pebbleBytes(dirs ...string) (pebbleFiles, error) {
	var n pebbleFiles
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(dir, "state"), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			// Pebble deletes files as it compacts: one gone since the
			// listing counts nothing.
			if info, err := d.Info(); err == nil {
				n.all += info.Size()
				if filepath.Ext(path) == ".sst" {
					n.sst += info.Size()
				}
			}
			return nil
		})
		if err != nil {
			return n, fmt.Errorf("measure the state in %s: %w", dir, err)
		}
	}
	return n, nil
}
