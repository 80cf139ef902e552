package dataflow

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"time"

	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// SplitReader generates the rows of one split of a source in offset order
// (connector.Split).
type SplitReader interface {
	// Next writes the next rows into the caller's rows and returns how
	// many; 0 once Done.
	Next(rows [][]types.Datum) int
	// Offset is the position of the next row, the value to checkpoint.
	Offset() int64
	// SetOffset resumes at a checkpointed offset.
	SetOffset(offset int64)
	// Done reports whether the split has no more rows.
	Done() bool
	// Pace is how long after the last SetOffset the rows generated since
	// may be emitted. A negative Pace marks a live split, fed from outside:
	// its rows are emitted as soon as Next returns them, it is never
	// re-positioned, and when Next has none it is asked again after -Pace.
	Pace() time.Duration
}

// ChangeReader is a SplitReader of a keyed source (SourceSpec.Keyed) whose
// rows are changes by primary key, read from an external system in the
// background: rows may not be buffered yet while the split is not Done.
type ChangeReader interface {
	SplitReader
	// NextChanges writes the next changes into the caller's rows and
	// whether each is a delete by key (only the key columns of a deleted
	// row count) into deletes, and returns how many; 0 while none is
	// buffered (poll again after a while) or once Done. A column of an
	// upsert may be types.Unchanged: the table keeps its stored value. A
	// delete whose every column is types.Unchanged is a truncate: every
	// row of the table goes, as of that change.
	NextChanges(rows [][]types.Datum, deletes []bool) int
	// Open starts reading in the background until ctx ends.
	Open(ctx context.Context)
	// Committed reports that offset, one the reader returned from
	// Offset, is durable in streamdb: the external system may forget what
	// comes before it.
	Committed(offset int64)
}

// SourceSpec generates the rows of a connector's splits: the head of a
// fragment without inputs, each of whose actors owns the splits listed in
// its Env.Splits and gets barriers from the barrier manager directly.
// Output rows are the Width generated columns, then a hidden row id, the
// stream key, derived from (split, offset) as offset*Splits + split, so
// that a replay after recovery produces the same ids. The stream is
// append-only. At each checkpoint the offset of every split is stored in
// StateTable (key: the split number), from which a restarted job resumes:
// nothing is lost or emitted twice across recoveries.
type SourceSpec struct {
	// Name names the source in EXPLAIN.
	Name string
	// Splits is the number of splits of the source.
	Splits int
	// NewSplits returns the splits numbered splits, positioned at their
	// first rows, which one actor reads together (and closes, if they are
	// io.Closers, when it drops them).
	NewSplits func(splits []int) []SplitReader
	// Width is the number of generated columns.
	Width int
	// StateTable holds the splits' offsets.
	StateTable uint32
	// Keyed: the splits' readers are ChangeReaders whose rows are changes
	// by the primary key of the generated columns; the output has no
	// hidden row id, and is not append-only (an upserting
	// MaterializeSpec makes the changes exact).
	Keyed bool
}

// Build implements Spec: it positions the actor's splits at their
// committed offsets (recovery removed uncommitted ones before actors start).
func (s *SourceSpec) Build(env *Env) (Operator, error) {
	op := &source{spec: s, store: env.Store, one: make([][]types.Datum, 1), wait: env.WaitCommitted, align: env.align.join()}
	env.aligned = op.align
	op.ctx, op.cancel = context.WithCancel(env.Ctx)
	readers := s.NewSplits(env.Splits)
	for i, id := range env.Splits {
		op.splits = append(op.splits, &sourceSplit{id: int64(id), reader: readers[i], key: offsetKey(s.StateTable, id, s.Splits, env.VNodeCount)})
	}
	for _, sp := range op.splits {
		off, ok, err := splitOffset(env.Store.Engine(), sp.key, math.MaxUint64)
		if err != nil {
			op.close()
			return nil, fmt.Errorf("source %s: %w", s.Name, err)
		}
		if ok {
			sp.reader.SetOffset(off)
		}
		sp.saved = sp.reader.Offset()
		if s.Keyed {
			if sp.changes, ok = sp.reader.(ChangeReader); !ok {
				op.close()
				return nil, fmt.Errorf("source %s: split %d does not read changes", s.Name, sp.id)
			}
			sp.changes.Open(op.ctx)
		}
	}
	return op, nil
}

// Explain implements Spec.
func (s *SourceSpec) Explain() string {
	return fmt.Sprintf("Source %s splits=%d offsets=%d", s.Name, s.Splits, s.StateTable)
}

// offsetTypes are the types of an offsets row: the split's offset.
var offsetTypes = []types.T{types.TInt8}

// SplitOffset returns the offset of split (of splits) stored in the
// source state table table of a job of rowkey.VNodes vnodes as of epoch
// (a committed one, for a reader outside the job); ok is false while none
// is stored: the split stands at its first row.
func SplitOffset(st storage.Reader, table uint32, split, splits int, epoch uint64) (offset int64, ok bool, err error) {
	return splitOffset(st, offsetKey(table, split, splits, rowkey.VNodes), epoch)
}

// splitOffset reads the offset stored at key as of epoch.
func splitOffset(st storage.Reader, key []byte, epoch uint64) (offset int64, ok bool, err error) {
	v, ok, err := st.Get(key, epoch)
	if err != nil || !ok {
		return 0, false, err
	}
	row, err := types.DecodeRow(v, offsetTypes, nil)
	if err != nil {
		return 0, false, fmt.Errorf("split offset: %w", err)
	}
	return row[0].Int(), true, nil
}

// offsetKey is the state key of the offset of split (of splits) in a job
// of vnodes vnodes, under the vnode the split goes with.
func offsetKey(table uint32, split, splits, vnodes int) []byte {
	v := splitVNode(split, splits, vnodes)
	return storage.AppendKey(nil, table, uint16(v), types.AppendKey(nil, types.NewInt(int64(split)), false))
}

// maxCatchUp bounds how far behind its pace a split may fall (while its
// source has no consumer, say) and still catch up with a burst.
const maxCatchUp = time.Second

// sourceSplit is one split an actor reads.
type sourceSplit struct {
	id     int64
	reader SplitReader
	key    []byte
	// saved is the offset last written to state.
	saved int64
	// start is when the reader was last positioned: its Pace counts from
	// then; zero until it first generates.
	start time.Time
	// changes is the reader of a keyed source's split.
	changes ChangeReader
}

// source is the operator of SourceSpec. Its actor calls generate whenever
// no barrier is waiting, so barriers are never starved; it reads its
// splits in turn, a chunk at a time, each at its pace.
type source struct {
	spec   *SourceSpec
	store  *Store
	splits []*sourceSplit
	next   int // the split to read next
	out    chunkOut
	one    [][]types.Datum
	writes writeBuf
	// deleted is the delete flag of a change read into one.
	deleted []bool
	// ctx ends the change readers (cancel, at close); wait waits for an
	// epoch to commit.
	ctx    context.Context
	cancel context.CancelFunc
	wait   func(ctx context.Context, epoch uint64) error
	// align holds the actor back while its watermark runs ahead of its
	// job's other actors (align.go; nil: not aligned).
	align *alignMember
}

// Process implements Operator: a source has no input rows.
func (o *source) Process(_ int, c *Chunk, emit Emit) error { return emit(c) }

// Barrier implements Operator: a checkpoint stores the offsets that moved.
func (o *source) Barrier(b *Barrier, _ Emit) error {
	if !b.Checkpoint {
		return nil
	}
	for _, sp := range o.splits {
		if off := sp.reader.Offset(); off != sp.saved {
			o.writes.put(sp.key, []types.Datum{types.NewInt(off)})
			sp.saved = off
		}
	}
	o.writes.stage(o.store, b.Epoch)
	if o.spec.Keyed {
		o.confirmOnCommit(b.Epoch)
	}
	return nil
}

// confirmOnCommit tells the change readers, once epoch is committed, that
// the offsets they had at its checkpoint are durable.
func (o *source) confirmOnCommit(epoch uint64) {
	offsets := make([]int64, len(o.splits))
	for i, sp := range o.splits {
		offsets[i] = sp.saved
	}
	splits := o.splits
	go func() {
		if o.wait(o.ctx, epoch) != nil {
			return
		}
		for i, sp := range splits {
			sp.changes.Committed(offsets[i])
		}
	}()
}

// generate emits one chunk of the next split whose rows are due and
// returns 0; if none is due, it returns how long until one is, or a
// negative duration once every split is done.
func (o *source) generate(emit Emit) (time.Duration, error) {
	if o.align.ahead() {
		return alignPoll, nil
	}
	wait, err := o.read(emit)
	o.align.setReading(wait == 0)
	return wait, err
}

// idle implements generator: no split is left to read.
func (o *source) idle() bool {
	for _, sp := range o.splits {
		if !sp.reader.Done() {
			return false
		}
	}
	return true
}

// read emits one chunk of the next split whose rows are due, as generate
// does.
func (o *source) read(emit Emit) (time.Duration, error) {
	now := time.Now()
	wait := time.Duration(-1)
	for range o.splits {
		sp := o.splits[o.next]
		o.next = (o.next + 1) % len(o.splits)
		if sp.reader.Done() {
			continue
		}
		if sp.changes != nil {
			if n, err := o.fillChanges(sp, emit); n > 0 || err != nil {
				return 0, err
			}
			if wait < 0 || changePoll < wait {
				wait = changePoll
			}
			continue
		}
		if pace := sp.reader.Pace(); pace < 0 {
			n, err := o.fill(sp, now, emit)
			if err != nil || n > 0 {
				return 0, err
			}
			if wait < 0 || -pace < wait {
				wait = -pace
			}
			continue
		}
		due := sp.start.Add(sp.reader.Pace())
		if sp.start.IsZero() || now.Sub(due) > maxCatchUp {
			sp.reader.SetOffset(sp.reader.Offset())
			sp.start, due = now, now
		}
		if d := due.Sub(now); d > 0 {
			if wait < 0 || d < wait {
				wait = d
			}
			continue
		}
		_, err := o.fill(sp, now, emit)
		return 0, err
	}
	return wait, nil
}

// fill emits up to MaxChunkRows rows of sp, stopping after the first row
// that is not due at now, and returns how many.
func (o *source) fill(sp *sourceSplit, now time.Time, emit Emit) (int, error) {
	w := o.spec.Width + 1
	n := int64(o.spec.Splits)
	paced := true
	i := 0
	for ; i < MaxChunkRows; i++ {
		off := sp.reader.Offset()
		row := o.out.row(w)
		o.one[0] = row
		if sp.reader.Next(o.one) == 0 {
			break
		}
		row[w-1] = types.NewInt(off*n + sp.id)
		if err := o.out.add(Insert, row, emit); err != nil {
			return i, err
		}
		if paced {
			pace := sp.reader.Pace()
			// A split whose first row costs no time is not paced.
			paced = pace > 0
			if sp.start.Add(pace).After(now) {
				i++
				break
			}
		}
	}
	return i, o.out.flush(emit)
}

// close implements closer: the change readers stop and the splits that
// are io.Closers close.
func (o *source) close() {
	o.cancel()
	o.align.leave()
	for _, sp := range o.splits {
		if c, ok := sp.reader.(io.Closer); ok {
			if err := c.Close(); err != nil {
				slog.Warn("closing a source split", "source", o.spec.Name, "split", sp.id, "err", err)
			}
		}
	}
}

// changePoll is how long a source waits before it polls change readers
// that had nothing buffered.
const changePoll = 5 * time.Millisecond

// fillChanges emits up to MaxChunkRows buffered changes of sp's change
// reader and returns how many.
func (o *source) fillChanges(sp *sourceSplit, emit Emit) (int, error) {
	if o.deleted == nil {
		o.deleted = make([]bool, 1)
	}
	n := 0
	for ; n < MaxChunkRows; n++ {
		row := o.out.row(o.spec.Width)
		o.one[0] = row
		if sp.changes.NextChanges(o.one, o.deleted) == 0 {
			break
		}
		if err := o.out.add(changeOp(row, o.deleted[0]), row, emit); err != nil {
			return n, err
		}
	}
	return n, o.out.flush(emit)
}

// changeOp is the op of a change read by a ChangeReader: Insert for an
// upsert, Delete for a delete by key, Truncate for a delete whose every
// column is types.Unchanged.
func changeOp(row []types.Datum, deleted bool) Op {
	if !deleted {
		return Insert
	}
	for _, d := range row {
		if !d.IsUnchanged() {
			return Delete
		}
	}
	return Truncate
}
