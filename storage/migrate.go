package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// VNodeRange names the keys of the vnodes [Lo, Hi) of one table: the unit
// a migration moves between nodes (DESIGN.md §6, §9).
type VNodeRange struct {
	Table  uint32
	Lo, Hi uint16
}

// String names r for messages.
func (r VNodeRange) String() string {
	return fmt.Sprintf("table %d vnodes [%d, %d)", r.Table, r.Lo, r.Hi)
}

// span returns the bare Pebble keys that bound r's versions.
func (r VNodeRange) span() pebble.KeyRange {
	return pebble.KeyRange{Start: appendBound(nil, AppendKey(nil, r.Table, r.Lo, nil)), End: appendBound(nil, AppendKey(nil, r.Table, r.Hi, nil))}
}

// ExportVNodes writes the state of r that a new owner needs to take it over
// at epoch to, given that it already holds r as of epoch from (0: nothing):
// for every key, its newest version at or before to, if that version is
// newer than from — values and deletions alike, each with its own epoch —
// in SSTs of about maxBytes each, passed to emit in key order (an SST's
// bytes are reused once emit returns: emit copies what it keeps). The
// first round of a pre-copy exports (0, e0], each later one and the
// switch the delta since the previous; a delta reads only the SST blocks
// that hold versions of its epochs (epochsProperty). Versions newer than
// to (uncommitted ones, or written while it runs) stay behind.
func (e *Engine) ExportVNodes(r VNodeRange, from, to uint64, maxBytes int, emit func(sst []byte) error) error {
	if r.Hi <= r.Lo {
		return fmt.Errorf("storage: export of an empty range (%s)", r)
	}
	return e.export(r.span(), from, to, maxBytes, func(s SST) error { return emit(s.Data) })
}

// SST is an exported SST of one table's versions, with the vnodes of its
// first and last keys.
type SST struct {
	// Data is valid while the emit it is passed to runs.
	Data   []byte
	Table  uint32
	Lo, Hi uint16
}

// ExportTables exports, as ExportVNodes does for one range, every table
// in the store: for every key, its newest version at or before to if
// that version is newer than from. Each SST holds one table's keys. A
// durable checkpoint uploads (previous checkpoint, to], or, for a new
// base, (0, to].
func (e *Engine) ExportTables(from, to uint64, maxBytes int, emit func(SST) error) error {
	var table uint32
	for {
		id, ok, err := e.nextTable(table)
		if err != nil || !ok {
			return err
		}
		if id == RaftTableID {
			// The last table, the node's own Raft log: no state.
			return nil
		}
		if err := e.export(tableSpan(id), from, to, maxBytes, emit); err != nil {
			return err
		}
		table = id + 1
	}
}

// nextTable returns the first table id >= from that has a key in the
// store.
func (e *Engine) nextTable(from uint32) (uint32, bool, error) {
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: appendBound(nil, TablePrefix(from))})
	if err != nil {
		return 0, false, err
	}
	defer it.Close()
	if !it.First() {
		return 0, false, it.Error()
	}
	return binary.BigEndian.Uint32(it.Key()), true, nil
}

// export writes the versions of span that ExportVNodes describes.
func (e *Engine) export(span pebble.KeyRange, from, to uint64, maxBytes int, emit func(SST) error) error {
	io := &pebble.IterOptions{LowerBound: span.Start, UpperBound: span.End}
	if from > 0 {
		// A delta reads only the blocks holding versions of its epochs.
		io.PointKeyFilters = []pebble.BlockPropertyFilter{epochsFilter(from, to)}
	}
	it, err := e.db.NewIter(io)
	if err != nil {
		return err
	}
	defer it.Close()
	w := e.newSSTWriter()
	var seek, last []byte
	for valid := it.First(); valid; {
		k := it.Key()
		p := split(k)
		switch {
		case p == len(k) || last != nil && string(k[:p-1]) == string(last):
			// A bare key, or an older version of the key just taken (most
			// keys have one version: Next is cheaper than NextPrefix).
			valid = it.Next()
			continue
		case versionEpoch(k) > to:
			seek = appendVersioned(seek[:0], k[:p-1], to)
			valid = it.SeekGE(seek)
			continue
		}
		last = append(last[:0], k[:p-1]...)
		if versionEpoch(k) > from {
			v, err := it.ValueAndErr()
			if err != nil {
				return err
			}
			if w.w != nil && w.size() >= blockCutBytes && vnodeBlock(k) != vnodeBlock(w.first) {
				// A reader of a few vnodes (a migration taking them from
				// a durable checkpoint) reads few blocks' SSTs.
				if err := w.flush(emit); err != nil {
					return err
				}
			}
			if err := w.add(k, v, maxBytes, emit); err != nil {
				return err
			}
		}
		valid = it.Next()
	}
	if err := it.Error(); err != nil {
		return err
	}
	return w.flush(emit)
}

// An exported SST of at least blockCutBytes ends where a block of
// blockVNodes vnodes does.
const (
	blockCutBytes = 1 << 20
	blockVNodes   = 16
)

// vnodeBlock returns the block of blockVNodes vnodes of a stored key.
func vnodeBlock(k []byte) uint16 { return binary.BigEndian.Uint16(k[4:]) / blockVNodes }

// sstWriter builds SSTs in memory, one at a time.
type sstWriter struct {
	opts sstable.WriterOptions
	buf  *memWritable
	w    *sstable.Writer
	n    int
	// first and last are the SST's first and last keys.
	first, last []byte
}

func (s *sstWriter) set(key, value []byte) error {
	if s.w == nil {
		// The buffer of the SST emitted last is reused.
		if s.buf == nil {
			s.buf = &memWritable{}
		}
		s.buf.b = s.buf.b[:0]
		s.w, s.n = sstable.NewWriter(s.buf, s.opts), 0
		s.first = append(s.first[:0], key...)
	}
	s.last = append(s.last[:0], key...)
	s.n += len(key) + len(value)
	return s.w.Set(key, value)
}

func (s *sstWriter) size() int { return s.n }

// newSSTWriter returns a writer of the SSTs this store exports and
// merges. They travel once or are ingested at once and compacted later:
// they go uncompressed and without filters, which costs less CPU than
// the bytes they would save.
func (e *Engine) newSSTWriter() *sstWriter {
	opts := e.opts.MakeWriterOptions(0, e.db.TableFormat())
	opts.Compression, opts.FilterPolicy = sstable.NoCompression, nil
	return &sstWriter{opts: opts}
}

// add sets key to value in the SST being built and passes it to emit once
// it holds maxBytes or more.
func (s *sstWriter) add(key, value []byte, maxBytes int, emit func(SST) error) error {
	if err := s.set(key, value); err != nil {
		return err
	}
	if s.size() >= maxBytes {
		return s.flush(emit)
	}
	return nil
}

// flush finishes the SST being built, if any, and passes it to emit.
func (s *sstWriter) flush(emit func(SST) error) error {
	if s.w == nil {
		return nil
	}
	w := s.w
	s.w = nil
	if err := w.Close(); err != nil {
		return err
	}
	return emit(SST{Data: s.buf.b, Table: binary.BigEndian.Uint32(s.first),
		Lo: binary.BigEndian.Uint16(s.first[4:]), Hi: binary.BigEndian.Uint16(s.last[4:])})
}

// memWritable is an SST file in memory (objstorage.Writable).
type memWritable struct{ b []byte }

// Write, Finish and Abort implement objstorage.Writable.
func (m *memWritable) Write(p []byte) error { m.b = append(m.b, p...); return nil }
func (m *memWritable) Finish() error        { return nil }
func (m *memWritable) Abort()               {}

// IngestVNodes adds SSTs that ExportVNodes made, in key order, to this
// store, as a Receiver does.
func (e *Engine) IngestVNodes(ctx context.Context, ssts [][]byte) error {
	r := e.NewReceiver()
	defer r.Close()
	for _, sst := range ssts {
		if err := r.Add(sst); err != nil {
			return err
		}
	}
	return r.Finish(ctx)
}

// applyBytes bounds the SSTs of a migration that a Receiver writes
// through a batch rather than ingests.
const applyBytes = 4 << 20

// A Receiver adds to a store the SSTs of a migration as they arrive
// (ExportVNodes' on another node: in key order, not overlapping). They
// add versions beside what the store holds of their ranges: a first copy
// excises its ranges first (ExciseVNodes), later rounds and a switch's
// delta bring newer versions. Up to applyBytes it keeps them in memory
// and writes them through a batch, without a sync: an ingest edits
// Pebble's manifest and syncs, which on a busy disk delays every epoch's
// seal by more than a small delta's memtable inserts cost (the epoch that
// a switch's delta is for syncs it as it seals). Beyond, it writes them
// to files as they arrive and ingests those.
type Receiver struct {
	e *Engine
	// applyMax is applyBytes; tests lower it to ingest small SSTs.
	applyMax int
	size     int
	mem      [][]byte
	// dir holds the SSTs once they outgrew memory, in paths.
	dir   string
	paths []string
}

// NewReceiver returns a receiver of SSTs for this store.
func (e *Engine) NewReceiver() *Receiver { return &Receiver{e: e, applyMax: applyBytes} }

// Add takes sst, which the caller may reuse once Add returns.
func (r *Receiver) Add(sst []byte) error {
	r.size += len(sst)
	if r.dir == "" && r.size <= r.applyMax {
		r.mem = append(r.mem, slices.Clone(sst))
		return nil
	}
	if r.dir == "" {
		dir, err := os.MkdirTemp(r.e.dir, "ingest-")
		if err != nil {
			return err
		}
		r.dir = dir
		for _, b := range r.mem {
			if err := r.spill(b); err != nil {
				return err
			}
		}
		r.mem = nil
	}
	return r.spill(sst)
}

// spill writes b to the next file of r's directory, synced: the disk
// writes a migration's bytes as they arrive, not in a burst as the ingest
// syncs them all, which every epoch's WAL sync would queue behind (Pebble
// syncs its own files every BytesPerSync for the same reason).
func (r *Receiver) spill(b []byte) error {
	p := filepath.Join(r.dir, fmt.Sprintf("%06d.sst", len(r.paths)))
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if err := errors.Join(err, f.Close()); err != nil {
		return err
	}
	r.paths = append(r.paths, p)
	return nil
}

// Size returns the bytes of the SSTs taken since the last Finish.
func (r *Receiver) Size() int { return r.size }

// Finish adds the SSTs taken since the last Finish to the store; the
// receiver then takes more.
func (r *Receiver) Finish(ctx context.Context) error {
	defer r.Close()
	if r.dir == "" {
		return r.e.apply(r.mem)
	}
	return r.e.ingestPaths(ctx, r.paths)
}

// Close drops what the receiver took and has not added (its files).
func (r *Receiver) Close() {
	if r.dir != "" {
		_ = os.RemoveAll(r.dir)
	}
	r.size, r.mem, r.dir, r.paths = 0, nil, "", nil
}

// apply writes the versions of ssts (in key order, not overlapping)
// through one batch, without a sync.
func (e *Engine) apply(ssts [][]byte) error {
	if len(ssts) == 0 {
		return nil
	}
	mem := vfs.NewMem()
	names := make([]string, len(ssts))
	for i, b := range ssts {
		names[i] = fmt.Sprint(i)
		if err := writeFile(mem, names[i], b); err != nil {
			return err
		}
	}
	it, err := e.externalIter(mem, [][]string{names})
	if err != nil {
		return err
	}
	defer it.Close()
	b := e.db.NewBatch()
	defer b.Close()
	for valid := it.First(); valid; valid = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		if err := b.Set(it.Key(), v, nil); err != nil {
			return err
		}
	}
	if err := it.Error(); err != nil {
		return err
	}
	return b.Commit(pebble.NoSync)
}

// IngestFiles adds to this store the SSTs that write puts, in key order
// and not overlapping, into dir (a temporary directory of the store's,
// removed afterwards): the files of a durable checkpoint that a restore
// downloaded.
func (e *Engine) IngestFiles(ctx context.Context, write func(dir string) ([]string, error)) error {
	dir, err := os.MkdirTemp(e.dir, "ingest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	paths, err := write(dir)
	if err != nil {
		return err
	}
	return e.ingestPaths(ctx, paths)
}

// ingestPaths ingests the SST files at paths (in key order, not
// overlapping).
func (e *Engine) ingestPaths(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	if err := e.db.Ingest(ctx, paths); err != nil {
		return fmt.Errorf("storage: ingest: %w", err)
	}
	return nil
}

// IngestMerged adds to this store the versions in ranges (sorted, not
// overlapping; nil: every version) of the SSTs that write puts into dir:
// groups of SSTs that do not overlap within a group but may across groups
// and hold a version more than once (the files of a durable checkpoint's
// base and deltas, a group per checkpoint and node). It merges them into
// SSTs that do not overlap, ingests those at once, and returns their
// bytes. A restore takes a table's files so, and a migration's reference
// handoff the moved vnodes'.
func (e *Engine) IngestMerged(ctx context.Context, ranges []VNodeRange, write func(dir string) ([][]string, error)) (int64, error) {
	spans := []pebble.KeyRange{{}}
	if ranges != nil {
		spans = make([]pebble.KeyRange, len(ranges))
		for i, r := range ranges {
			spans[i] = r.span()
		}
	}
	var total int64
	err := e.IngestFiles(ctx, func(dir string) ([]string, error) {
		groups, err := write(dir)
		if err != nil {
			return nil, err
		}
		var out []string
		err = e.merge(groups, spans, func(sst SST) error {
			p := filepath.Join(dir, fmt.Sprintf("merged-%06d.sst", len(out)))
			out = append(out, p)
			total += int64(len(sst.Data))
			return os.WriteFile(p, sst.Data, 0o644)
		})
		return out, err
	})
	return total, err
}

// mergeSSTBytes bounds the SSTs that IngestMerged writes.
const mergeSSTBytes = 32 << 20

// merge passes to emit, as SSTs of about mergeSSTBytes, the keys in spans
// (a zero span: every key) of the SST files in groups, in key order, each
// version once.
func (e *Engine) merge(groups [][]string, spans []pebble.KeyRange, emit func(SST) error) error {
	it, err := e.externalIter(vfs.Default, groups)
	if err != nil {
		return err
	}
	defer it.Close()
	w := e.newSSTWriter()
	for _, sp := range spans {
		valid := it.First()
		if sp.Start != nil {
			valid = it.SeekGE(sp.Start)
		}
		for ; valid && (sp.End == nil || compare(it.Key(), sp.End) < 0); valid = it.Next() {
			v, err := it.ValueAndErr()
			if err != nil {
				return err
			}
			if err := w.add(it.Key(), v, mergeSSTBytes, emit); err != nil {
				return err
			}
		}
		if err := it.Error(); err != nil {
			return err
		}
	}
	return w.flush(emit)
}

// externalIter returns an iterator over the SST files of groups in fs:
// groups of files that do not overlap within a group (Pebble's external
// iterator, which closes them).
func (e *Engine) externalIter(fs vfs.FS, groups [][]string) (*pebble.Iterator, error) {
	var files [][]sstable.ReadableFile
	closeAll := func() {
		for _, g := range files {
			for _, f := range g {
				_ = f.Close()
			}
		}
	}
	for _, g := range groups {
		var opened []sstable.ReadableFile
		for _, p := range g {
			f, err := fs.Open(p)
			if err != nil {
				files = append(files, opened)
				closeAll()
				return nil, err
			}
			opened = append(opened, f)
		}
		files = append(files, opened)
	}
	it, err := pebble.NewExternalIter(e.opts, &pebble.IterOptions{}, files)
	if err != nil {
		closeAll()
		return nil, err
	}
	return it, nil
}

// writeFile writes b to a new file name in fs.
func writeFile(fs vfs.FS, name string, b []byte) error {
	f, err := fs.Create(name, vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	return errors.Join(err, f.Close())
}

// ExciseVNodes removes every version of ranges from this store at once:
// what a new owner does before it copies ranges whole, and a restore.
func (e *Engine) ExciseVNodes(ctx context.Context, ranges ...VNodeRange) error {
	for _, r := range ranges {
		if err := e.excise(ctx, r.span()); err != nil {
			return err
		}
	}
	return nil
}

// excise removes every version in span.
func (e *Engine) excise(ctx context.Context, span pebble.KeyRange) error {
	// An excise edits Pebble's manifest (a sync) even when the range is
	// empty, which a new owner's usually is.
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: span.Start, UpperBound: span.End})
	if err != nil {
		return err
	}
	empty := !it.First()
	if err := errors.Join(it.Error(), it.Close()); err != nil || empty {
		return err
	}
	return e.db.Excise(ctx, span)
}

// DropVNodes removes every version of ranges from this store with range
// deletions written through the memtable, without a sync: what the old
// owner of migrated ranges does once the switch committed and no read
// needs its copy. Unlike an excise, it neither flushes the memtable
// (which holds the ranges' last writes) nor edits Pebble's manifest, so
// the node's epochs seal on undisturbed; compactions reclaim the space,
// dropping whole files the deletions cover without rewriting them.
func (e *Engine) DropVNodes(ranges []VNodeRange) error {
	b := e.db.NewBatch()
	defer b.Close()
	for _, r := range ranges {
		sp := r.span()
		if err := b.DeleteRange(sp.Start, sp.End, nil); err != nil {
			return err
		}
	}
	return b.Commit(pebble.NoSync)
}
