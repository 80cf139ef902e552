package control

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2/objstorage/remote"
	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/storage"
	"google.golang.org/grpc"
)

// Durable checkpoints (DESIGN.md §9) keep the cluster's state in shared
// storage, so that the survivors of a node lost for good take its work
// over. Every DurableIntervalParam the leader picks the last committed
// epoch D and has every node upload, as SSTs of at most durableSSTBytes,
// the newest version at or before D of every key it holds that changed
// since the previous durable checkpoint (a delta), or of every key (a
// base, due once the deltas since the last base outweigh it). The files
// become one Raft entry (meta.Durable). A node holds only true versions
// of keys (committed ones, its own or copied with their epochs by a
// migration), and the owner of a vnode at D holds every key's newest
// version at or before D, so the union of the files has, for every key,
// its newest version at or before D: a restore ingests them all.
//
// A node declared lost (ALTER SYSTEM REMOVE NODE 'n' FORCE, or
// NodeDeadTimeoutParam after it was last heard of) has its actor slots
// given to the others (meta.ForceRemoveNode); the next recovery rolls
// every node back to D and each node replaces every table and vnode it
// holds with the files' versions (restore), so sources rewind to their
// offsets at D and everything after D is computed again. DML acknowledged
// after D is lost, unless its session set synchronous_commit = 'remote':
// its acknowledgement waited until a durable checkpoint held its epoch.

// Cluster settings of durable checkpoints.
const (
	// DurableIntervalParam is the time between durable checkpoints.
	DurableIntervalParam = "durable_checkpoint_interval"
	// NodeDeadTimeoutParam is how long a node may be unheard of before
	// the leader removes it as lost for good (0: never by itself).
	NodeDeadTimeoutParam = "node_dead_timeout"
	// MigrationHandoffParam is how a migration's new owner gets the
	// moved vnodes' state: HandoffCopy (default), every byte from the
	// old owner, or HandoffShared, what the last durable checkpoint
	// holds from shared storage and only what changed since from the old
	// owner.
	MigrationHandoffParam = "migration_handoff"
	HandoffCopy           = "copy"
	HandoffShared         = "shared"
	// DefaultDurableInterval and DefaultNodeDeadTimeout are their
	// defaults.
	DefaultDurableInterval = 10 * time.Second
	DefaultNodeDeadTimeout = 60 * time.Second
)

// durableSSTBytes bounds the SSTs of a durable checkpoint.
const durableSSTBytes = 8 << 20

// restoreTimeout bounds a recovery that restores from shared storage.
const restoreTimeout = 10 * time.Minute

const (
	durableService   = "streamdb.durable"
	methodUpload     = "/" + durableService + "/Upload"
	methodDurableNow = "/" + durableService + "/Now"
)

type uploadRequest struct {
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
}

type uploadResponse struct {
	Files []meta.SharedFile `json:"files"`
	// RowIDs is the node's hidden row id high-water mark.
	RowIDs int64 `json:"row_ids"`
}

// SharedStore is a node's side of durable checkpoints: it uploads what
// the node holds to shared storage and restores from it.
type SharedStore struct {
	self   string
	store  remote.Storage // nil: no shared storage
	engine *storage.Engine
	meta   *meta.Meta
	log    *slog.Logger
	// rowIDs is the node's allocator of hidden row ids.
	rowIDs *rowIDs
}

// Configured reports whether the node has shared storage.
func (d *SharedStore) Configured() bool { return d.store != nil }

// errNoShared refuses what needs shared storage on a node without it.
func errNoShared(node string) error {
	return pgerror.New(pgerror.CodeObjectNotInState, "node %s has no shared storage", node).
		WithHint("Start every node with --shared-storage file:///path (a directory all nodes see) or s3://bucket/prefix?endpoint=host:port.")
}

// upload writes to shared storage the newest version at or before to of
// every key this node holds that changed after from, and returns the
// files and the node's hidden row id high-water mark.
func (d *SharedStore) upload(ctx context.Context, from, to uint64) (*uploadResponse, error) {
	if d.store == nil {
		return nil, errNoShared(d.self)
	}
	rowIDs := d.rowIDs.highWater()
	var files []meta.SharedFile
	prefix := fmt.Sprintf("%s-%s-e%020d-", d.meta.Catalog().ClusterID(), d.self, to)
	err := d.engine.ExportTables(from, to, durableSSTBytes, func(s storage.SST) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := fmt.Sprintf("%s%06d.sst", prefix, len(files))
		if err := d.put(name, s.Data); err != nil {
			return fmt.Errorf("upload %s to shared storage: %w", name, err)
		}
		files = append(files, meta.SharedFile{Name: name, Node: d.self, Epoch: to, Table: s.Table, Lo: s.Lo, Hi: s.Hi, Size: int64(len(s.Data))})
		return nil
	})
	if err != nil {
		d.remove(files)
		return nil, err
	}
	return &uploadResponse{Files: files, RowIDs: rowIDs}, nil
}

// put writes one object.
func (d *SharedStore) put(name string, data []byte) error {
	w, err := d.store.CreateObject(name)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		_ = w.Close()
		return err
	}
	return w.Close()
}

// remove deletes files from shared storage, best effort (a file left
// behind only takes space).
func (d *SharedStore) remove(files []meta.SharedFile) {
	for _, f := range files {
		if err := d.store.Delete(f.Name); err != nil && !d.store.IsNotExistError(err) {
			d.log.Warn("control: could not delete a file of shared storage", "file", f.Name, "err", err)
		}
	}
}

// restore replaces what this node holds of holdings with their state as
// of the durable checkpoint of epoch: every version of each table goes,
// and the versions of the held vnodes in the checkpoint's files of the
// table come in, merged into one ingest.
func (d *SharedStore) restore(ctx context.Context, epoch uint64, holdings []dataflow.Holding) error {
	if d.store == nil {
		return errNoShared(d.self)
	}
	dur := d.meta.Durable()
	if dur == nil || dur.Epoch != epoch {
		return fmt.Errorf("control: restore from the durable checkpoint of epoch %d: this node knows of %v", epoch, dur)
	}
	for _, h := range holdings {
		whole := storage.VNodeRange{Table: h.Table, Lo: 0, Hi: math.MaxUint16}
		if err := d.engine.ExciseVNodes(ctx, whole); err != nil {
			return err
		}
		var ranges []storage.VNodeRange // nil: the whole table
		if h.VNodes != nil {
			ranges = vnodeRanges([]uint32{h.Table}, h.VNodes)
		}
		groups := chainGroups(dur.Files, func(f meta.SharedFile) bool { return f.Table == h.Table && overlaps(f, ranges) })
		if _, err := d.engine.IngestMerged(ctx, ranges, d.fetcher(ctx, groups)); err != nil {
			return err
		}
	}
	return nil
}

// overlaps reports whether file f holds vnodes of ranges (nil: any).
func overlaps(f meta.SharedFile, ranges []storage.VNodeRange) bool {
	if ranges == nil {
		return true
	}
	for _, r := range ranges {
		if f.Table == r.Table && int(f.Lo) < int(r.Hi) && int(f.Hi) >= int(r.Lo) {
			return true
		}
	}
	return false
}

// chainGroups returns the files for which keep holds, grouped per
// checkpoint and node, newest checkpoint first: the files of a group do
// not overlap (storage.Engine.IngestMerged).
func chainGroups(files []meta.SharedFile, keep func(meta.SharedFile) bool) [][]meta.SharedFile {
	var kept []meta.SharedFile
	for _, f := range files {
		if keep(f) {
			kept = append(kept, f)
		}
	}
	slices.SortStableFunc(kept, func(a, b meta.SharedFile) int {
		return cmp.Or(cmp.Compare(b.Epoch, a.Epoch), strings.Compare(a.Node, b.Node))
	})
	var groups [][]meta.SharedFile
	for len(kept) > 0 {
		n := 1
		for n < len(kept) && kept[n].Epoch == kept[0].Epoch && kept[n].Node == kept[0].Node {
			n++
		}
		groups = append(groups, kept[:n])
		kept = kept[n:]
	}
	return groups
}

// fetcher returns what downloads the files of groups into a directory
// (storage.Engine.IngestMerged): their paths, grouped alike.
func (d *SharedStore) fetcher(ctx context.Context, groups [][]meta.SharedFile) func(dir string) ([][]string, error) {
	return func(dir string) ([][]string, error) {
		var out [][]string
		for _, g := range groups {
			var paths []string
			for _, f := range g {
				p := filepath.Join(dir, filepath.Base(f.Name))
				if err := d.download(ctx, f.Name, p); err != nil {
					return nil, fmt.Errorf("fetch %s from shared storage: %w", f.Name, err)
				}
				paths = append(paths, p)
			}
			out = append(out, paths)
		}
		return out, nil
	}
}

// take ingests the versions of ranges (sorted, one table's vnodes each)
// that the last durable checkpoint holds: a migration's handoff through
// shared storage, which fetches from there what the checkpoint holds
// instead of copying it from the old owner. It returns the checkpoint's
// epoch (0: none, nothing taken) and the bytes ingested.
func (d *SharedStore) take(ctx context.Context, ranges []storage.VNodeRange) (uint64, int64, error) {
	dur := d.meta.Durable()
	if d.store == nil || dur == nil {
		return 0, 0, nil
	}
	keep := func(f meta.SharedFile) bool { return overlaps(f, ranges) }
	n, err := d.engine.IngestMerged(ctx, ranges, d.fetcher(ctx, chainGroups(dur.Files, keep)))
	if err != nil {
		return 0, n, err
	}
	return dur.Epoch, n, nil
}

// download copies an object of shared storage to the file path.
func (d *SharedStore) download(ctx context.Context, name, path string) error {
	r, size, err := d.store.ReadObject(ctx, name)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	buf := make([]byte, min(size, 4<<20))
	for off := int64(0); off < size; {
		n := min(int64(len(buf)), size-off)
		if err := r.ReadAt(ctx, buf[:n], off); err != nil {
			_ = f.Close()
			return err
		}
		if _, err := f.Write(buf[:n]); err != nil {
			_ = f.Close()
			return err
		}
		off += n
	}
	return errors.Join(f.Sync(), f.Close())
}

// service returns the durable checkpoints' service between nodes.
func (d *SharedStore) service(c *Controller) *grpc.ServiceDesc {
	return cluster.Service(durableService, []grpc.MethodDesc{
		cluster.Unary("Upload", func(ctx context.Context, r *uploadRequest) (*uploadResponse, error) {
			return d.upload(ctx, r.From, r.To)
		}),
		cluster.Unary("Now", func(context.Context, *empty) (*durableNowResponse, error) {
			return c.durableNow(), nil
		}),
	}, nil)
}

// durableNowResponse tells since when and why the leader's durable
// checkpoints fail (empty: they do not).
type durableNowResponse struct {
	Failing string    `json:"failing,omitempty"`
	Since   time.Time `json:"since"`
}

// durableFailure is why durable checkpoints fail, since when.
type durableFailure struct {
	err   string
	since time.Time
}

// durableNow asks this node's durable checkpoint loop, if it leads, for
// a checkpoint at once, and tells whether its checkpoints fail.
func (c *Controller) durableNow() *durableNowResponse {
	select {
	case c.durableKick <- struct{}{}:
	default:
	}
	if f := c.durableFailed.Load(); f != nil {
		return &durableNowResponse{Failing: f.err, Since: f.since}
	}
	return &durableNowResponse{}
}

// noteDurable records the outcome of a durable checkpoint.
func (c *Controller) noteDurable(err error) {
	if err == nil {
		c.durableFailed.Store(nil)
		return
	}
	since := time.Now()
	if f := c.durableFailed.Load(); f != nil {
		since = f.since
	}
	c.durableFailed.Store(&durableFailure{err: err.Error(), since: since})
}

// durableLoop makes a durable checkpoint every DurableIntervalParam (and
// at once when a session waits for one) while this node leads and has
// shared storage, and removes nodes unheard of for NodeDeadTimeoutParam.
func (s *Streaming) durableLoop(ctx context.Context) {
	c := s.ctrl
	if !c.shared.Configured() {
		return
	}
	t := time.NewTimer(DefaultDurableInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-c.durableKick:
		}
		cat := s.meta.Catalog()
		t.Reset(DurationParam(cat, DurableIntervalParam, DefaultDurableInterval))
		if !s.meta.IsLeader() {
			continue
		}
		s.removeDeadNodes(ctx, cat)
		select {
		case <-s.Ready():
		default:
			continue // recovering: the jobs' state is not settled
		}
		err := s.durableCheckpoint(ctx)
		c.noteDurable(err)
		if err != nil && ctx.Err() == nil {
			s.opts.Logger.Warn("control: durable checkpoint failed; trying again at the next one", "err", err)
		}
	}
}

// durableCheckpoint makes the last committed epoch durable in shared
// storage: every node uploads, and the files become one Raft entry.
func (s *Streaming) durableCheckpoint(ctx context.Context) error {
	if s.meta.Restore() != nil {
		return nil
	}
	cur := s.meta.Durable()
	epoch := s.meta.CommittedEpoch()
	var prev uint64
	base := true
	if cur != nil {
		if epoch <= cur.Epoch {
			return nil
		}
		prev = cur.Epoch
		base = cur.DeltaBytes >= max(cur.BaseBytes, 1)
	}
	from := prev
	if base {
		from = 0
	}
	began := time.Now()
	nodes := memberIDs(s.meta.Catalog())
	got := make([]*uploadResponse, len(nodes))
	err := inParallel(len(nodes), func(i int) error {
		var err error
		got[i], err = s.ctrl.uploadOn(ctx, nodes[i], from, epoch)
		return err
	})
	var files []meta.SharedFile
	var rowIDs int64
	for _, r := range got {
		if r != nil {
			files = append(files, r.Files...)
			rowIDs = max(rowIDs, r.RowIDs)
		}
	}
	if err != nil {
		s.ctrl.shared.remove(files)
		return err
	}
	replaced, err := s.meta.RecordDurable(ctx, prev, epoch, base, files, time.Now().UnixMilli(), rowIDs)
	if err != nil {
		if pgerror.Code(err) == pgerror.CodeObjectNotInState {
			// Refused, so not recorded: nothing refers to the files.
			s.ctrl.shared.remove(files)
		}
		return err
	}
	var bytes int64
	for _, f := range files {
		bytes += f.Size
	}
	s.ctrl.shared.remove(namesOnly(replaced))
	if base {
		s.ctrl.shared.removeOrphans(s.meta.Durable())
	}
	s.opts.Logger.Info("control: durable checkpoint", "epoch", epoch, "base", base, "files", len(files), "bytes", bytes, "took", time.Since(began).Round(time.Millisecond))
	return nil
}

// removeOrphans deletes the cluster's files in shared storage that no
// checkpoint up to dur refers to: those of checkpoints that failed, or
// whose record a base replaced while a delete failed. Files of later
// epochs (an upload under way) stay.
func (d *SharedStore) removeOrphans(dur *meta.Durable) {
	prefix := d.meta.Catalog().ClusterID() + "-"
	names, err := d.store.List(prefix, "")
	if err != nil {
		d.log.Warn("control: could not list shared storage", "err", err)
		return
	}
	known := map[string]bool{}
	for _, f := range dur.Files {
		known[f.Name] = true
	}
	var orphans []meta.SharedFile
	for _, n := range names {
		name := prefix + n
		if known[name] {
			continue
		}
		if epoch, ok := fileEpoch(name); ok && epoch <= dur.Epoch {
			orphans = append(orphans, meta.SharedFile{Name: name})
		}
	}
	if len(orphans) > 0 {
		d.log.Info("control: deleting files of shared storage no checkpoint refers to", "files", len(orphans))
		d.remove(orphans)
	}
}

// fileEpoch returns the checkpoint epoch in the name of a durable
// checkpoint's file (see upload).
func fileEpoch(name string) (uint64, bool) {
	i := strings.LastIndex(name, "-e")
	if i < 0 {
		return 0, false
	}
	digits, _, ok := strings.Cut(name[i+2:], "-")
	if !ok {
		return 0, false
	}
	e, err := strconv.ParseUint(digits, 10, 64)
	return e, err == nil
}

// namesOnly wraps object names as files (for remove).
func namesOnly(names []string) []meta.SharedFile {
	out := make([]meta.SharedFile, len(names))
	for i, n := range names {
		out[i].Name = n
	}
	return out
}

// uploadOn has node upload (from, to] to shared storage.
func (c *Controller) uploadOn(ctx context.Context, node string, from, to uint64) (*uploadResponse, error) {
	if node == c.self {
		return c.shared.upload(ctx, from, to)
	}
	r, err := callNode[uploadResponse](ctx, c.meta, c.client, node, methodUpload, &uploadRequest{From: from, To: to})
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// removeDeadNodes removes, as lost for good, every node not heard of for
// NodeDeadTimeoutParam.
func (s *Streaming) removeDeadNodes(ctx context.Context, cat *meta.Catalog) {
	timeout := DurationParam(cat, NodeDeadTimeoutParam, DefaultNodeDeadTimeout)
	if timeout <= 0 || s.meta.Durable() == nil {
		return
	}
	for _, m := range s.meta.Members() {
		if m.Up {
			continue
		}
		// Never heard of since this node leads: count from when it took
		// over, so that a new leader gives every node its full timeout.
		since := m.LastHeartbeat
		if since.IsZero() || since.Before(s.ctrl.ledSince()) {
			since = s.ctrl.ledSince()
		}
		if time.Since(since) < timeout {
			continue
		}
		s.opts.Logger.Warn("control: a node was not heard of for node_dead_timeout; removing it as lost and restoring its work from shared storage", "node", m.ID, "timeout", timeout)
		if err := s.ForceRemoveNode(ctx, m.ID); err != nil {
			s.opts.Logger.Warn("control: removing a lost node failed", "node", m.ID, "err", err)
		}
	}
}

// ForceRemoveNode removes node id, lost for good (its disk gone): its
// work goes to the other nodes, and every job restarts from the last
// durable checkpoint in shared storage.
func (s *Streaming) ForceRemoveNode(ctx context.Context, id string) error {
	if !s.ctrl.shared.Configured() {
		return errNoShared(s.meta.NodeID())
	}
	if id == s.meta.NodeID() {
		return pgerror.New(pgerror.CodeObjectInUse, "node %q is the node of this session", id).
			WithHint("Connect to another node to remove this one.")
	}
	if s.meta.Answers(ctx, id) {
		return pgerror.New(pgerror.CodeObjectInUse, "node %q is up: FORCE is for a node lost for good, and rolls every job back to the last durable checkpoint", id).
			WithHint("Move its work off it online instead: ALTER SYSTEM DRAIN NODE '%s', then ALTER SYSTEM REMOVE NODE '%s'.", id, id)
	}
	if err := s.meta.ForceRemoveNode(ctx, id); err != nil {
		return err
	}
	s.opts.Logger.Warn("control: node removed as lost; every job restores from the last durable checkpoint", "node", id)
	return s.undrain(ctx, id)
}

// WaitDurable returns once a durable checkpoint holds epoch (what a
// session with synchronous_commit = 'remote' waits for before it
// acknowledges a write), asking the leader for one at once. Without
// shared storage it returns at once: the node's disk is the durable
// level then, as synchronous_commit without standbys in PostgreSQL. It
// fails with 40001 if a node was lost before epoch was durable: the
// restore that followed rolled the write back.
func (s *Streaming) WaitDurable(ctx context.Context, epoch uint64) error {
	if !s.ctrl.shared.Configured() {
		return nil
	}
	var asked time.Time
	began := time.Now()
	for {
		d := s.meta.Durable()
		if d != nil && d.RolledBack(epoch) {
			return pgerror.New(pgerror.CodeSerializationFailure, "the write was rolled back: a node was lost before shared storage held its epoch %d", epoch).
				WithHint("The write was not applied; run it again.")
		}
		if d != nil && d.Epoch >= epoch {
			return nil
		}
		if time.Since(asked) >= time.Second && s.meta.CommittedEpoch() >= epoch {
			// Asked again every second: the leader may have changed, and
			// its answer says whether its checkpoints fail.
			asked = time.Now()
			failAfter := durableMissed * DurationParam(s.meta.Catalog(), DurableIntervalParam, DefaultDurableInterval)
			// The write is told once checkpoints have failed for
			// failAfter while it waited: not at once because they failed
			// before it (while a lost node was being replaced, say).
			if r := s.ctrl.askDurableNow(ctx); r.Failing != "" && time.Since(r.Since) >= failAfter && time.Since(began) >= failAfter {
				return pgerror.New(pgerror.CodeIOError, "the write is committed, but no durable checkpoint reached shared storage for %v: %s", time.Since(r.Since).Round(time.Second), r.Failing).
					WithHint("Check that shared storage (--shared-storage) is reachable and has room on every node; until a durable checkpoint holds the write, the loss of any node's disk rolls it back.")
			}
		}
		if err := sleep(ctx, 10*time.Millisecond); err != nil {
			return err
		}
	}
}

// durableMissed is how many durable checkpoint intervals checkpoints may
// fail for before a write that waits for one is told so.
const durableMissed = 3

// askDurableNow asks the leader for a durable checkpoint at once and
// returns whether its checkpoints fail.
func (c *Controller) askDurableNow(ctx context.Context) *durableNowResponse {
	if c.meta.IsLeader() {
		return c.durableNow()
	}
	if addr := c.meta.LeaderAddr(); addr != "" {
		r, err := cluster.Call[durableNowResponse](ctx, c.client, addr, methodDurableNow, &empty{})
		if err == nil {
			return r
		}
		c.log.Debug("control: asking the leader for a durable checkpoint failed", "err", err)
	}
	return &durableNowResponse{}
}

// DurableStatus describes the last durable checkpoint for SHOW DURABLE
// CHECKPOINT: nil without shared storage.
type DurableStatus struct {
	Epoch, BaseEpoch      uint64
	Files                 int
	BaseBytes, DeltaBytes int64
	At                    time.Time
	// Restoring names the lost node whose removal a restore follows.
	Restoring string
}

// Durable returns the state of durable checkpoints, nil without shared
// storage.
func (s *Streaming) Durable() *DurableStatus {
	if !s.ctrl.shared.Configured() {
		return nil
	}
	st := &DurableStatus{}
	if d := s.meta.Durable(); d != nil {
		st.Epoch, st.BaseEpoch, st.Files, st.BaseBytes, st.DeltaBytes = d.Epoch, d.BaseEpoch, len(d.Files), d.BaseBytes, d.DeltaBytes
		st.At = time.UnixMilli(d.At)
	}
	if r := s.meta.Restore(); r != nil {
		st.Restoring = r.Node
	}
	return st
}

// DurationParam returns a cluster setting that holds a duration (see
// ParseDuration), or def when it is not set.
func DurationParam(cat *meta.Catalog, name string, def time.Duration) time.Duration {
	if v, ok := cat.System(name); ok {
		if d, err := ParseDuration(v); err == nil {
			return d
		}
	}
	return def
}

// ParseDuration parses a setting's duration as PostgreSQL writes them:
// a number of milliseconds, or a number with a unit (ms, s, min, h), or
// off (0).
func ParseDuration(v string) (time.Duration, error) {
	v = strings.TrimSpace(strings.ToLower(v))
	if v == "off" {
		return 0, nil
	}
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms >= 0 {
		return time.Duration(ms) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(strings.Replace(strings.ReplaceAll(v, " ", ""), "min", "m", 1))
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid duration %q: write a number of milliseconds or one with a unit (ms, s, min, h)", v)
	}
	return d, nil
}
