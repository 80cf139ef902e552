package dataflow

import (
	"bytes"
	"cmp"
	"context"
	"time"

	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// DefaultBackfillBatch is how many snapshot rows one backfill actor reads
// per barrier unless Runtime.BackfillBatch says otherwise.
const DefaultBackfillBatch = 20000

// backfill feeds a new job the current contents of an upstream relation,
// then its changes, without blocking the upstream's writers (DESIGN.md §5).
// It scans the upstream's rows in storage-key order; pos is the last key
// emitted. Changes of an epoch are held until its barrier: then the next
// batch of the snapshot as of the previous (committed) epoch is emitted,
// followed by the held changes whose keys are <= pos; changes beyond pos
// are dropped, since a later snapshot read includes them. Once the scan
// reaches the end, changes pass straight through.
//
// A relation stored in row blocks (append-only: its changes are new rows)
// is read as of one epoch, the first one read, and its changes since pass
// straight through: block keys cannot be compared with a row's key.
//
// Once done it tells the actor that its input is loaded (Loaded), after
// the last snapshot rows and before the barrier that ends their epoch.
type backfill struct {
	ctx    context.Context
	table  *TableRef
	engine storage.Reader
	wait   func(context.Context, uint64) error
	// owns filters snapshot rows to those routed to this actor.
	owns func(row []types.Datum) bool
	pos  []byte
	done bool
	// snapshot is the epoch a row-block relation is read as of (0 until
	// the first read).
	snapshot uint64
	// started is set once the job's first barrier (the one that adds it)
	// has passed.
	started bool
	held    []*Chunk
	key     []byte
	// scratch is the row a stored row is decoded into.
	scratch []types.Datum
	// finished is called once when the backfill completes.
	finished func()
	// more asks for the next barrier at once while the scan goes on.
	more func()
	// batch is how many snapshot rows a barrier reads.
	batch int
	// loaded tells the actor that the backfill is done (setLoadedOut).
	loaded func() error
	// pin keeps the versions of this node's store that reads at an epoch
	// need for a while (storage.Engine.PinFor); unpin releases the pin of
	// the epoch the next read is as of.
	pin   func(epoch uint64) (func(), error)
	unpin func()
}

// backfillHold is how long a backfill's pin lasts unless renewed: it is
// renewed at every barrier, and goes by itself if the actor stops.
const backfillHold = time.Minute

// hold pins epoch, which the next read is as of, in place of the pin
// before; epoch 0 releases the pin.
func (bf *backfill) hold(epoch uint64) error {
	var unpin func()
	if epoch > 0 {
		var err error
		if unpin, err = bf.pin(epoch); err != nil {
			return err
		}
	}
	if bf.unpin != nil {
		bf.unpin()
	}
	bf.unpin = unpin
	return nil
}

// setLoadedOut implements loadSource.
func (bf *backfill) setLoadedOut(out func() error) { bf.loaded = out }

func (bf *backfill) rowKey(row []types.Datum) []byte {
	bf.key = rowkey.Table(bf.key[:0], bf.table.ID, bf.table.PK, row)
	return bf.key
}

// Process implements Operator.
func (bf *backfill) Process(_ int, c *Chunk, emit Emit) error {
	if bf.done {
		return emit(c)
	}
	bf.held = append(bf.held, c)
	return nil
}

// Watermark implements watermarker: watermarks pass once the backfill is
// done (snapshot rows may lie below them).
func (bf *backfill) Watermark(_ int, w Watermark, _ Emit, out WatermarkEmit) error {
	if !bf.done {
		return nil
	}
	return out(w)
}

// Barrier implements Operator.
func (bf *backfill) Barrier(b *Barrier, emit Emit) error {
	if bf.done {
		return nil
	}
	if !bf.started {
		// The epoch this first barrier ends holds upstream changes that
		// were sent before the job subscribed and are not committed yet:
		// the snapshot reads start at the next barrier, as of this one.
		bf.started = true
		bf.more()
		return bf.hold(b.Epoch)
	}
	if err := bf.wait(bf.ctx, b.Epoch-1); err != nil {
		return err
	}
	epoch := b.Epoch - 1
	if bf.table.RowBlocks {
		if bf.snapshot == 0 {
			bf.snapshot = epoch
		}
		epoch = bf.snapshot
	}
	if err := bf.readBatch(epoch, emit); err != nil {
		return err
	}
	held := bf.held
	bf.held = nil
	for _, c := range held {
		out := &Chunk{}
		for i, row := range c.Rows {
			if bf.done || bf.table.RowBlocks || bytes.Compare(bf.rowKey(row), bf.pos) <= 0 {
				out.Append(c.Ops[i], row)
			}
		}
		if out.Len() > 0 {
			if err := emit(fixPairs(out)); err != nil {
				return err
			}
		}
	}
	if !bf.done {
		bf.more()
		// A relation of row blocks goes on being read as of its snapshot.
		return bf.hold(cmp.Or(bf.snapshot, b.Epoch))
	}
	if err := bf.hold(0); err != nil {
		return err
	}
	if bf.finished != nil {
		bf.finished()
		bf.finished = nil
	}
	if bf.loaded != nil {
		return bf.loaded()
	}
	return nil
}

// readBatch emits the next snapshot rows as of epoch after pos.
func (bf *backfill) readBatch(epoch uint64, emit Emit) error {
	lower := storage.TablePrefix(bf.table.ID)
	if bf.pos != nil {
		lower = append(append([]byte(nil), bf.pos...), 0)
	}
	upper := storage.TablePrefix(bf.table.ID + 1)
	out := &Chunk{}
	n := 0
	var arena types.RowArena
	bf.done = true
	err := bf.engine.Scan(lower, upper, epoch, func(key, value []byte) error {
		if n >= bf.batch {
			bf.done = false
			return errStopScan
		}
		bf.pos = append(bf.pos[:0], key...)
		// keep emits an owned row; the chunk keeps it.
		keep := func(row []types.Datum) error {
			out.Append(Insert, row)
			if out.Len() >= MaxChunkRows {
				c := out
				out = &Chunk{}
				return emit(c)
			}
			return nil
		}
		if bf.table.RowBlocks {
			return types.DecodeRowBlockInto(value, bf.table.Types, &arena, func(row []types.Datum) error {
				n++
				if !bf.owns(row) {
					return nil
				}
				return keep(row)
			})
		}
		// Decoded into a scratch row first: most rows belong to other
		// actors, and only the owned ones are copied into the arena.
		var err error
		if bf.scratch, err = types.DecodeRow(value, bf.table.Types, bf.scratch); err != nil {
			return err
		}
		n++
		if !bf.owns(bf.scratch) {
			return nil
		}
		row := arena.Row(len(bf.scratch))
		copy(row, bf.scratch)
		return keep(row)
	})
	if err != nil && err != errStopScan {
		return err
	}
	if bf.pos == nil {
		bf.pos = []byte{}
	}
	if out.Len() > 0 {
		return emit(out)
	}
	return nil
}

type stopScan struct{}

func (stopScan) Error() string { return "stop scan" }

var errStopScan error = stopScan{}

// fixPairs turns a lone half of an update pair (its other half was
// filtered out) into a plain delete or insert.
func fixPairs(c *Chunk) *Chunk {
	for i, op := range c.Ops {
		switch op {
		case UpdateDelete:
			if i+1 >= len(c.Ops) || c.Ops[i+1] != UpdateInsert {
				c.Ops[i] = Delete
			}
		case UpdateInsert:
			if i == 0 || c.Ops[i-1] != UpdateDelete {
				c.Ops[i] = Insert
			}
		}
	}
	return c
}
