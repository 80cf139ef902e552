package rescalebench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// The writers: writers connections each INSERT batchRows rows at a time,
// the first bumping the counter, the others adding to random loaded keys
// (so every vnode's state is touched).
const (
	writers   = 8
	batchRows = 16
)

// pollEvery is how often the poller reads the counter.
const pollEvery = 5 * time.Millisecond

// counterKey returns the key whose group counts the writers' statements:
// the negative key nearest 0 in vnode 0, so that (no loaded key being
// negative) its row is the first of the view's table and the poller's
// read of it stops there instead of scanning the view.
func counterKey() int64 {
	for k := int64(-1); ; k-- {
		if rowkey.VNode(types.AppendKey(nil, types.NewInt(k), false), rowkey.VNodes) == 0 {
			return k
		}
	}
}

// insertStatement is the writers' INSERT of batchRows rows, the keys its
// parameters.
func insertStatement() string {
	values := make([]string, batchRows)
	for i := range values {
		values[i] = fmt.Sprintf("($%d, 1, '')", i+1)
	}
	return "INSERT INTO t (k, v, pad) VALUES " + strings.Join(values, ", ")
}

// pollQuery reads the counter.
const pollQuery = "SELECT n FROM " + viewName + " WHERE k = $1 LIMIT 1"

// workload runs the writers and the poller from start until stop, and
// keeps what they saw.
type workload struct {
	connString string
	// keys are the loaded keys, 0 to keys-1.
	keys    int64
	counter int64

	quit chan struct{}
	wg   sync.WaitGroup
	// rate is the writers' rate in rows per second (0: as fast as they go).
	rate float64
	// skipTo, in Unix nanoseconds, is when a writer behind its schedule
	// skips to (0: none).
	skipTo atomic.Int64
	// started counts the statements sent, acked those acknowledged, failed
	// those that returned an error.
	started, acked, failed atomic.Int64

	mu  sync.Mutex
	obs observed
	// err is the first error that stopped a writer or the poller.
	err error
}

// newWorkload returns a stopped workload over keys loaded keys.
func newWorkload(connString string, keys int64) *workload {
	return &workload{connString: connString, keys: keys, counter: counterKey()}
}

// start connects the writers and the poller and starts them: the writers
// at rate rows per second in all, as fast as they can for rate 0.
func (w *workload) start(ctx context.Context, rate float64) error {
	conns := make([]*pgx.Conn, writers+1)
	for i := range conns {
		c, err := pgx.Connect(ctx, w.connString)
		if err != nil {
			for _, c := range conns[:i] {
				c.Close(context.Background())
			}
			return fmt.Errorf("connect the writers: %w", err)
		}
		conns[i] = c
	}
	w.quit, w.rate = make(chan struct{}), rate
	var interval time.Duration
	if rate > 0 {
		interval = time.Duration(float64(time.Second) * writers * batchRows / rate)
	}
	begin := time.Now()
	for i, c := range conns[:writers] {
		w.wg.Go(func() {
			defer c.Close(context.Background())
			w.write(ctx, c, uint64(i), begin.Add(interval*time.Duration(i)/writers), interval)
		})
	}
	w.wg.Go(func() {
		defer conns[writers].Close(context.Background())
		w.poll(ctx, conns[writers])
	})
	return nil
}

// skipBacklog makes the writers skip the statements they are behind
// their schedule by at t: a backlog from one rescale does not reach into
// the next one's measurements.
func (w *workload) skipBacklog(t time.Time) { w.skipTo.Store(t.UnixNano()) }

// stop stops the writers and the poller and waits until their last
// statements returned.
func (w *workload) stop() {
	close(w.quit)
	w.wg.Wait()
}

// fail keeps err as the workload's error unless it has one.
func (w *workload) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

// firstError returns the error that stopped a writer or the poller.
func (w *workload) firstError() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// write runs one writer on conn: its statements are due at due and every
// interval after (back to back for interval 0) until quit.
func (w *workload) write(ctx context.Context, conn *pgx.Conn, seed uint64, due time.Time, interval time.Duration) {
	rng := rand.New(rand.NewPCG(seed, 0xb0b))
	insert := insertStatement()
	args := make([]any, batchRows)
	args[0] = w.counter
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		if interval == 0 {
			due = time.Now()
		} else if skip := time.Unix(0, w.skipTo.Load()); due.Before(skip) {
			due = due.Add((skip.Sub(due) + interval - 1) / interval * interval)
		}
		if wait := time.Until(due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-w.quit:
				return
			case <-timer.C:
			}
		}
		select {
		case <-w.quit:
			return
		default:
		}
		for i := 1; i < batchRows; i++ {
			args[i] = rng.Int64N(w.keys)
		}
		w.started.Add(1)
		sent := time.Now()
		_, err := conn.Exec(ctx, insert, args...)
		s := sample{due: due, sent: sent, done: time.Now(), rows: batchRows, failed: err != nil}
		if err != nil {
			w.failed.Add(1)
		} else {
			w.acked.Add(1)
		}
		w.mu.Lock()
		w.obs.samples = append(w.obs.samples, s)
		w.mu.Unlock()
		if err != nil && (ctx.Err() != nil || conn.IsClosed()) {
			w.fail(fmt.Errorf("a writer stopped: %w", err))
			return
		}
		due = due.Add(interval)
	}
}

// poll reads the counter every pollEvery on conn until quit, keeping the
// times it changed.
func (w *workload) poll(ctx context.Context, conn *pgx.Conn) {
	var last int64 = -1
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		var n int64
		began := time.Now()
		err := conn.QueryRow(ctx, pollQuery, w.counter).Scan(&n)
		now := time.Now()
		if errors.Is(err, pgx.ErrNoRows) {
			err = nil
		}
		if err != nil {
			w.fail(fmt.Errorf("the poller stopped: %w", err))
			return
		}
		w.mu.Lock()
		w.obs.reads = append(w.obs.reads, span{began, now})
		if n != last {
			w.obs.changes = append(w.obs.changes, now)
			last = n
		}
		w.mu.Unlock()
		select {
		case <-w.quit:
			return
		case <-tick.C:
		}
	}
}

// observed is what the writers and the poller saw.
type observed struct {
	samples []sample
	// changes are the times the poller saw the counter change.
	changes []time.Time
	// reads are the poller's reads, from start to end.
	reads []span
}

// snapshot returns a copy of what the workload observed so far.
func (w *workload) snapshot() observed {
	w.mu.Lock()
	defer w.mu.Unlock()
	return observed{slices.Clone(w.obs.samples), slices.Clone(w.obs.changes), slices.Clone(w.obs.reads)}
}

// checkCounter reads the counter on conn and checks it against the
// statements: at least those acknowledged before the read, at most those
// sent by its end.
func (w *workload) checkCounter(ctx context.Context, conn *pgx.Conn) error {
	least := w.acked.Load()
	var n int64
	err := conn.QueryRow(ctx, pollQuery, w.counter).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("read the counter: %w", err)
	}
	if most := w.started.Load(); n < least || n > most {
		return fmt.Errorf("the view counts %d statements of the writers, but %d were acknowledged before and %d sent by the end of the read: rows were lost or counted twice", n, least, most)
	}
	return nil
}

// checkTotals checks, once the writers stopped, that the view holds
// every row: the counter counts the acknowledged statements, the groups'
// counts add up to the loaded keys and the writers' rows (a failed
// statement may have counted or not).
func (w *workload) checkTotals(ctx context.Context, conn *pgx.Conn) error {
	acked, failed := w.acked.Load(), w.failed.Load()
	var n, total int64
	if err := conn.QueryRow(ctx, pollQuery, w.counter).Scan(&n); err != nil {
		return fmt.Errorf("read the counter: %w", err)
	}
	if err := conn.QueryRow(ctx, "SELECT sum(n)::int8 FROM "+viewName).Scan(&total); err != nil {
		return fmt.Errorf("add up the view's counts: %w", err)
	}
	if n < acked || n > acked+failed {
		return fmt.Errorf("at the end the view counts %d statements of the writers, %d were acknowledged and %d failed: rows were lost or counted twice", n, acked, failed)
	}
	if least := w.keys + acked*batchRows; total < least || total > least+failed*batchRows {
		return fmt.Errorf("at the end the view's counts add up to %d rows, want %d loaded and %d written (%d more in failed statements): rows were lost or counted twice",
			total, w.keys, acked*batchRows, failed*batchRows)
	}
	return nil
}
