package dataflow

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// ChangelogSpec ends the job of a subscription or a sink: it writes the
// changes of its input into a log table, per vnode and checkpoint epoch,
// for readers outside the dataflow (SUBSCRIBE, a sink's delivery) that
// follow the committed epochs at their own pace. A change's vnode is that
// of its stream key, so the log moves with its key groups at a rescale
// and the changes of one key stay in order. The log of a vnode for an
// epoch is one or more blocks (ChangelogKey), each holding the changes in
// arrival order (DecodeChangelog). Entries older than Retention are
// deleted; a crash loses none that were committed and keeps none that
// were not, like any state.
type ChangelogSpec struct {
	// TableID is the log table.
	TableID uint32
	// Key are the stream key's columns.
	Key []int
	// Types are the input's column types.
	Types []types.T
	// Retention is how long the log keeps an epoch's changes after its
	// barrier (0: for ever, or until delivered for a sink).
	Retention time.Duration
	// Sink, if set, opens the writer that delivers an actor's committed
	// changes to a sink's target; the log then keeps them until they are
	// delivered.
	Sink func() (SinkWriter, error)
}

// Build implements Spec.
func (s *ChangelogSpec) Build(env *Env) (Operator, error) {
	l := &changelog{spec: s, store: env.Store, groups: env.VNodeCount, owned: env.VNodes,
		blocks: make([]changeBlock, env.VNodeCount)}
	if s.Sink != nil {
		w, err := s.Sink()
		if err != nil {
			return nil, err
		}
		l.delivery = startDelivery(env, s.TableID, w)
	}
	return l, nil
}

// lazyState implements lazySpec: the log is written, never read here.
func (*ChangelogSpec) lazyState() bool { return true }

// Explain implements Spec.
func (s *ChangelogSpec) Explain() string {
	return fmt.Sprintf("Changelog table=%d key=%v retention=%v", s.TableID, s.Key, s.Retention)
}

// changelog is the operator of ChangelogSpec.
type changelog struct {
	spec   *ChangelogSpec
	store  *Store
	groups int
	owned  *Bitmap
	pk     []byte
	key    []byte
	writes writeBuf
	// blocks are the changes of the current epoch by vnode, touched the
	// vnodes that have some.
	blocks  []changeBlock
	touched []uint16
	// ticks are the checkpoint epochs seen and their times, oldest first,
	// back to the oldest the log may still hold; trimmed is the epoch
	// below which the log of the owned vnodes is deleted.
	ticks   []epochTime
	trimmed uint64
	// delivery delivers a sink's changes, nil for a subscription.
	delivery *delivery
	// lastTrim is the barrier time of the last trim of delivered changes.
	lastTrim int64
}

// epochTime is a checkpoint epoch and its barrier's time.
type epochTime struct {
	epoch uint64
	time  int64
}

// changeBlock is a block of changes being gathered: its ops and its rows
// as AppendRow encodes them, and how many blocks of the vnode and epoch
// were written before it.
type changeBlock struct {
	ops     []byte
	rows    []byte
	written uint32
}

// Process implements Operator.
func (l *changelog) Process(_ int, c *Chunk, emit Emit) error {
	for i, row := range c.Rows {
		l.pk, _ = rowkey.AppendCols(l.pk[:0], row, l.spec.Key)
		vnode := rowkey.VNode(l.pk, l.groups)
		b := &l.blocks[vnode]
		if len(b.ops) == 0 && b.written == 0 {
			l.touched = append(l.touched, vnode)
		}
		b.ops = append(b.ops, byte(c.Ops[i]))
		b.rows = types.AppendRow(b.rows, row)
		if len(b.ops) >= maxBlockRows || len(b.rows) >= maxBlockBytes {
			l.flush(vnode, pendingEpoch)
		}
	}
	return emit(c)
}

// pendingEpoch and pendingTime stand for the epoch and the time of
// changes whose checkpoint barrier has not arrived yet: blocks wait in
// the write buffer with them and get the barrier's at the barrier
// (stamp).
const (
	pendingEpoch = math.MaxUint64
	pendingTime  = math.MaxUint64
)

// flush adds vnode's gathered block to the writes under epoch.
func (l *changelog) flush(vnode uint16, epoch uint64) {
	b := &l.blocks[vnode]
	if len(b.ops) == 0 {
		return
	}
	l.key = ChangelogKey(l.key[:0], l.spec.TableID, vnode, epoch, b.written)
	value := binary.BigEndian.AppendUint64(nil, pendingTime)
	value = binary.AppendUvarint(value, uint64(len(b.ops)))
	value = append(value, b.ops...)
	value = append(value, b.rows...)
	l.writes.putValue(l.key, value)
	b.ops, b.rows = b.ops[:0], b.rows[:0]
	b.written++
}

// Barrier implements Operator: a checkpoint writes the epoch's blocks
// under its epoch and deletes what fell out of retention.
func (l *changelog) Barrier(b *Barrier, _ Emit) error {
	if !b.Checkpoint {
		return nil
	}
	for _, v := range l.touched {
		l.flush(v, pendingEpoch)
		l.blocks[v].written = 0
	}
	l.touched = l.touched[:0]
	l.stamp(b)
	if err := l.trim(b); err != nil {
		return err
	}
	l.writes.stage(l.store, b.Epoch)
	if l.delivery != nil {
		l.delivery.stage(b.Epoch)
	}
	return nil
}

// close implements closer: a sink's delivery stops.
func (l *changelog) close() {
	if l.delivery != nil {
		l.delivery.close()
	}
}

// stamp gives the blocks written during the epoch the epoch and time of
// its checkpoint barrier b, in place: the epoch is the 12 bytes before
// the end of a block's key, the time the first 8 of its value.
func (l *changelog) stamp(b *Barrier) {
	for _, w := range l.writes.writes {
		at := len(w.Key) - 12
		if w.Value != nil && binary.BigEndian.Uint64(w.Key[at:]) == pendingEpoch {
			binary.BigEndian.PutUint64(w.Key[at:], b.Epoch)
			binary.BigEndian.PutUint64(w.Value, uint64(b.Time))
		}
	}
}

// trimEvery is how often, in barrier time, the log looks for entries out
// of retention.
const trimEvery = 5 * time.Second

// trim deletes, about every trimEvery, the entries of the owned vnodes
// that are no longer needed: a sink's once delivered, a subscription's
// once older than the retention (those of the epochs up to the newest
// whose barrier is at least Retention old).
func (l *changelog) trim(b *Barrier) error {
	if l.delivery != nil {
		below := l.delivery.delivered.Load() + 1
		if below <= l.trimmed+1 || b.Time-l.lastTrim < trimEvery.Microseconds() {
			return nil
		}
		l.lastTrim = b.Time
		return l.trimBelow(below)
	}
	if l.spec.Retention <= 0 {
		return nil
	}
	l.ticks = append(l.ticks, epochTime{b.Epoch, b.Time})
	cut := b.Time - l.spec.Retention.Microseconds()
	n := 0
	for n < len(l.ticks) && l.ticks[n].time <= cut {
		n++
	}
	if n == 0 || b.Time-l.ticks[0].time < (l.spec.Retention+trimEvery).Microseconds() {
		return nil
	}
	below := l.ticks[n-1].epoch + 1
	l.ticks = append(l.ticks[:0], l.ticks[n:]...)
	return l.trimBelow(below)
}

// trimBelow deletes the entries of the owned vnodes of the epochs below
// below, leaving a marker for readers that still wanted them.
func (l *changelog) trimBelow(below uint64) error {
	var err error
	l.owned.Each(func(v int) {
		if err != nil {
			return
		}
		lower := ChangelogKey(nil, l.spec.TableID, uint16(v), l.trimmed, 0)
		upper := ChangelogKey(nil, l.spec.TableID, uint16(v), below, 0)
		err = l.store.Engine().Scan(lower, upper, math.MaxUint64, func(key, _ []byte) error {
			l.writes.del(key)
			return nil
		})
		// The marker tells a reader that wanted the deleted epochs.
		l.writes.putValue(ChangelogKey(l.key[:0], l.spec.TableID, uint16(v), below-1, trimmedBlock), []byte{1})
	})
	l.trimmed = below
	return err
}

// trimmedBlock is the block number of a vnode's trim marker, under the
// last epoch its log deleted: a reader whose range takes that epoch in
// missed some changes (ErrTrimmed).
const trimmedBlock = math.MaxUint32

// ChangelogKey appends to dst the key of block number block of vnode's
// changes in epoch, in log table: the vnode's entries sort by epoch, then
// block.
func ChangelogKey(dst []byte, table uint32, vnode uint16, epoch uint64, block uint32) []byte {
	dst = storage.AppendKey(dst, table, vnode, nil)
	dst = binary.BigEndian.AppendUint64(dst, epoch)
	return binary.BigEndian.AppendUint32(dst, block)
}

// ChangelogEpoch returns the epoch of a log key (as ChangelogKey made it).
func ChangelogEpoch(key []byte) uint64 {
	return binary.BigEndian.Uint64(key[len(key)-12:])
}

// ErrTrimmed is returned by ReadChangelog when the range asked for
// reaches back into epochs the log no longer holds.
var ErrTrimmed = errors.New("changelog: the epochs asked for are out of retention")

// ChangeBlock is one block of a log's changes.
type ChangeBlock struct {
	Epoch uint64
	// Time is the epoch's barrier time, microseconds since the Unix
	// epoch.
	Time  int64
	VNode uint16
	// Value is the encoded block (DecodeChangelog).
	Value []byte
}

// ReadChangelog returns the blocks of log table, in epochs (after, upto]
// of vnodes [0, vnodes), as r holds them at epoch at (a committed one, not
// before upto: a log's blocks never change once committed, so a reader
// outside the job reads at the newest committed epoch, whose owners hold
// the vnodes now), ordered by epoch, then vnode, then block; ErrTrimmed if
// retention deleted some of them.
func ReadChangelog(r storage.Reader, table uint32, vnodes int, after, upto, at uint64) ([]ChangeBlock, error) {
	return readChangelog(r, table, FullBitmap(vnodes), after, upto, at, false)
}

// readChangelog is ReadChangelog over the vnodes of owned; with
// pastTrimmed, a trim marker is no error: the blocks start after it (a
// sink's log trims what was delivered).
func readChangelog(r storage.Reader, table uint32, owned *Bitmap, after, upto, at uint64, pastTrimmed bool) ([]ChangeBlock, error) {
	var out []ChangeBlock
	var err error
	owned.Each(func(v int) {
		if err != nil {
			return
		}
		lower := ChangelogKey(nil, table, uint16(v), after+1, 0)
		upper := ChangelogKey(nil, table, uint16(v), upto+1, 0)
		err = r.Scan(lower, upper, at, func(key, value []byte) error {
			if binary.BigEndian.Uint32(key[len(key)-4:]) == trimmedBlock {
				if pastTrimmed {
					return nil
				}
				return ErrTrimmed
			}
			if len(value) < 8 {
				return fmt.Errorf("changelog block: %d bytes", len(value))
			}
			out = append(out, ChangeBlock{Epoch: ChangelogEpoch(key), Time: int64(binary.BigEndian.Uint64(value)), VNode: uint16(v), Value: bytes.Clone(value)})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b ChangeBlock) int { return cmp.Compare(a.Epoch, b.Epoch) })
	return out, nil
}

// DecodeChangelog calls fn with each change of a log block, in order; the
// row is valid during the call only.
func DecodeChangelog(value []byte, rowTypes []types.T, fn func(op Op, row []types.Datum) error) error {
	if len(value) < 8 {
		return fmt.Errorf("changelog block: %d bytes", len(value))
	}
	value = value[8:]
	n, w := binary.Uvarint(value)
	if w <= 0 || uint64(len(value)-w) < n {
		return fmt.Errorf("changelog block: bad header")
	}
	ops := value[w : w+int(n)]
	i := 0
	err := types.DecodeRowBlock(value[w+int(n):], rowTypes, func(row []types.Datum) error {
		if i >= len(ops) {
			return fmt.Errorf("changelog block: more rows than ops")
		}
		op := Op(ops[i])
		i++
		return fn(op, row)
	})
	if err == nil && i != len(ops) {
		err = fmt.Errorf("changelog block: %d ops for %d rows", len(ops), i)
	}
	return err
}

// errEndScan ends a scan early.
var errEndScan = errors.New("end of scan")

// ChangelogTrimmed returns the newest epoch after epoch after up to which
// the retention deleted some of the log's changes, as r holds it at epoch
// upto (a committed one), or after if none was deleted. Each trim deletes
// a vnode's log from the previous trim on and leaves its marker, so the
// markers are a vnode's first entries past after: the scan stops at the
// first change.
func ChangelogTrimmed(r storage.Reader, table uint32, vnodes int, after, upto uint64) (uint64, error) {
	to := after
	for v := range vnodes {
		lower := ChangelogKey(nil, table, uint16(v), after+1, 0)
		upper := ChangelogKey(nil, table, uint16(v), upto+1, 0)
		err := r.Scan(lower, upper, upto, func(key, _ []byte) error {
			if binary.BigEndian.Uint32(key[len(key)-4:]) != trimmedBlock {
				return errEndScan
			}
			to = max(to, ChangelogEpoch(key))
			return nil
		})
		if err != nil && err != errEndScan {
			return 0, err
		}
	}
	return to, nil
}
