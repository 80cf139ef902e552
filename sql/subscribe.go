package sql

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// A subscriber reads a subscription's changes, for every spelling
// (SUBSCRIBE, COPY (SUBSCRIBE ...) TO STDOUT, DECLARE ... CURSOR FOR
// SUBSCRIBE, subscription cursors): from its start epoch it returns the
// snapshot, if asked for (the subscription's query at that epoch, every
// row an insert), then follows the committed log epoch by epoch. It only
// reads committed state, never holding back a barrier, and holds at most
// a window of epochs of changes in memory (at most maxWindowEpochs, fewer
// when their blocks exceed windowBytes); a reader that fell out of
// the log's retention is told so (errFellBehind). Its position is an
// epoch of the committed log, which a recovery keeps: it continues where
// it stood, losing and repeating nothing.
type subscriber struct {
	e   *Engine
	log *meta.Table
	// types are the types of the log's rows; visible the indexes of the
	// columns clients see.
	types   []types.T
	visible []int
	// rw selects RisingWave's format (columns, op, rw_timestamp) over
	// Materialize's (mz_timestamp, [mz_progressed,] mz_diff, columns);
	// progress adds a progress row after each window read.
	rw, progress bool
	// pos is the last epoch read, window the epochs the next read takes
	// at most (resize); minTime skips the changes of barriers older than
	// it (µs, SINCE); oldest starts a reader past what the retention
	// deleted (SINCE), rather than failing.
	pos     uint64
	window  uint64
	minTime int64
	oldest  bool
	// snap streams the snapshot, at epoch pos, until it ends.
	snap     *streamedRows
	snapTime int64
	// out are the rows of the window read, out[next:] not returned yet.
	out   [][]types.Datum
	next  int
	arena types.RowArena
	// consolidated gathers an epoch's net changes (mz format): the row
	// encodings' index in cons.
	consolidated map[string]int
	cons         []netChange
	key          []byte
	count        int64
	// release drops a temporary subscription; stop ends the statement.
	release, stop func()
}

// netChange is a row and its net count in an epoch.
type netChange struct {
	row  []types.Datum
	diff int64
}

// maxWindowEpochs is how many epochs of the log a subscriber reads at
// once at most; windowBytes the log bytes a window should hold: a window
// that held more halves the next one (down to one epoch, which is read
// whole), one that held under a quarter doubles it. Together they bound a
// subscriber's memory.
const (
	maxWindowEpochs = 16
	windowBytes     = 16 << 20
)

// errFellBehind is the error of a reader whose next changes the log
// deleted.
func errFellBehind(t *meta.Table, after uint64) error {
	name := t.Name
	if t.SessionNode != "" {
		name = "of SUBSCRIBE"
	}
	return pgerror.New(pgerror.CodeObjectNotInState, "subscription %s fell behind its retention of %v: the changes after epoch %d are no longer kept", name, t.Retention, after).
		WithHint("Subscribe again (from now), read faster, or keep changes longer: CREATE SUBSCRIPTION ... WITH (retention = '1h'), or SET subscribe_retention for SUBSCRIBE.")
}

// subscribeColumns are the result columns of a subscription whose query
// returns cols.
func subscribeColumns(cols []pgwire.Column, rw, progress bool) []pgwire.Column {
	if rw {
		return append(append([]pgwire.Column(nil), cols...), pgwire.Column{Name: "op", Type: types.TVarchar}, pgwire.Column{Name: "rw_timestamp", Type: types.TInt8})
	}
	out := []pgwire.Column{{Name: "mz_timestamp", Type: types.TNumeric}}
	if progress {
		out = append(out, pgwire.Column{Name: "mz_progressed", Type: types.TBool})
	}
	out = append(out, pgwire.Column{Name: "mz_diff", Type: types.TInt8})
	return append(out, cols...)
}

// subscribeTarget returns the subscription SUBSCRIBE x reads (nil when it
// reads a relation or a query, through a temporary one) and the query
// whose result columns are its own.
func (s *Session) subscribeTarget(cat *meta.Catalog, x *parser.Subscribe) (*meta.Table, string, error) {
	if x.Query != "" {
		return nil, x.Query, nil
	}
	schema := s.schemaOf(cat, x.Name)
	t, ok := cat.Table(schema, x.Name.Name)
	switch {
	case ok && t.Kind == meta.KindSubscription:
		return t, t.ViewSQL, nil
	case x.Cursor && ok:
		return nil, "", pgerror.New(pgerror.CodeWrongObjectType, "%q is a %s, not a subscription", x.Name.Name, t.Kind).
			WithHint("Create one first: CREATE SUBSCRIPTION s FROM %s; or read it with SUBSCRIBE %s.", x.Name.Name, x.Name.Name)
	case x.Cursor:
		return nil, "", pgerror.New(pgerror.CodeUndefinedObject, "subscription %q does not exist", x.Name.Name).
			WithHint("Create it with CREATE SUBSCRIPTION %s FROM relation.", x.Name.Name)
	case !ok:
		return nil, "", pgerror.New(pgerror.CodeUndefinedTable, "relation %q does not exist", x.Name.Name)
	}
	return nil, "SELECT * FROM " + quoteIdent(t.Schema) + "." + quoteIdent(t.Name), nil
}

// subscribeOptions returns SUBSCRIBE x's snapshot and progress options,
// defaults filled in: a snapshot unless AS OF or a subscription cursor
// (but FULL) says otherwise.
func subscribeOptions(x *parser.Subscribe) (snapshot, progress bool, err error) {
	snapshot = x.AsOf == nil && !x.Cursor || x.Since == "full"
	for k, v := range x.Options {
		b, ok := parseBool(v)
		if !ok {
			return false, false, pgerror.New(pgerror.CodeInvalidParameterValue, "SUBSCRIBE option %s must be a boolean, not %q", k, v)
		}
		switch k {
		case "snapshot":
			snapshot = b
		case "progress":
			progress = b
		default:
			return false, false, pgerror.New(pgerror.CodeInvalidParameterValue, "SUBSCRIBE option %q is not supported", k).
				WithHint("SUBSCRIBE takes WITH (snapshot = bool, progress = bool).")
		}
	}
	return snapshot, progress, nil
}

// bindSubscribe returns the result columns of SUBSCRIBE x.
func (s *Session) bindSubscribe(cat *meta.Catalog, x *parser.Subscribe) ([]pgwire.Column, error) {
	t, query, err := s.subscribeTarget(cat, x)
	if err != nil {
		return nil, err
	}
	_, progress, err := subscribeOptions(x)
	if err != nil {
		return nil, err
	}
	role := s.currentRole()
	if t != nil {
		// A subscription's reader needs SELECT on it; what it reads, its
		// owner must be allowed to read.
		if err := cat.Check(s.currentRole(), t, meta.PrivSelect); err != nil {
			return nil, err
		}
		role = t.OwnerID()
	}
	node, err := s.bindSQL(cat, query, role)
	if err != nil {
		return nil, err
	}
	return subscribeColumns(resultColumns(node.Columns()), x.Cursor, progress), nil
}

// bindSQL binds a query given as text, which must also run as a batch
// query.
func (s *Session) bindSQL(cat *meta.Catalog, query string, role uint32) (planner.Node, error) {
	node, err := s.bindText(cat, query, role)
	if err == nil {
		err = planner.CheckBatch(node)
	}
	return node, err
}

// bindText binds the query given as text with the session's binder,
// checking that role may read what it reads.
func (s *Session) bindText(cat *meta.Catalog, query string, role uint32) (planner.Node, error) {
	stmts, err := parser.Parse(query)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 || stmts[0].AST == nil {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "the query must be one SELECT")
	}
	b := s.binder(cat, nil)
	b.SetRole(role)
	return b.BindQuery(stmts[0].AST)
}

// subscribe opens a subscriber for x: for a relation or a query it
// starts a temporary subscription, dropped when the subscriber closes.
// ctx is the statement's, which stop ends.
func (s *Session) subscribe(ctx context.Context, x *parser.Subscribe, stop func()) (_ *subscriber, err error) {
	e := s.e
	snapshot, progress, err := subscribeOptions(x)
	if err != nil {
		return nil, err
	}
	log, query, err := s.subscribeTarget(e.Meta.Catalog(), x)
	if err != nil {
		return nil, err
	}
	r := &subscriber{e: e, rw: x.Cursor, progress: progress, stop: stop, consolidated: map[string]int{}}
	if log == nil {
		if x.AsOf != nil {
			return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "SUBSCRIBE ... AS OF needs a subscription").
				WithHint("Create one first, CREATE SUBSCRIPTION s FROM relation, then SUBSCRIBE s ... AS OF epoch: it keeps the changes for its retention.")
		}
		if log, err = s.createSubscription(ctx, parser.ObjectName{}, query, s.vars.duration("subscribe_retention"), e.Meta.NodeID()); err != nil {
			return nil, err
		}
		r.release = func() { e.dropTemporary(log) }
	}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	r.log = log
	for i, c := range log.Columns {
		r.types = append(r.types, c.Type)
		if !c.Hidden {
			r.visible = append(r.visible, i)
		}
	}
	now := e.ReadEpoch()
	r.pos = now
	switch {
	case x.AsOf != nil:
		r.pos = *x.AsOf
		if r.pos < log.Since || r.pos > now {
			return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "AS OF %d is outside subscription %s's epochs %d to %d", r.pos, log.Name, log.Since, now).
				WithHint("Give an epoch from its start (streamdb_catalog.subscriptions.since_epoch) to the newest committed one.")
		}
	case x.Since == "begin" || x.Since == "ms":
		r.pos, r.minTime, r.oldest = log.Since, x.SinceMillis*1000, true
		if x.Since == "ms" && log.Retention > 0 && time.Since(time.UnixMilli(x.SinceMillis)) > log.Retention {
			return nil, errFellBehind(log, 0)
		}
	}
	if snapshot {
		if r.snap, err = s.snapshot(ctx, query, r.pos); err != nil {
			return nil, err
		}
		r.snapTime = time.Now().UnixMicro()
	}
	return r, nil
}

// snapshot streams query's rows at epoch (bindSubscribe checked the
// privileges it needs).
func (s *Session) snapshot(ctx context.Context, query string, epoch uint64) (*streamedRows, error) {
	node, err := s.bindSQL(s.e.Meta.Catalog(), query, 0)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c := s.newCtx(ctx, nil)
	env := &exec.Env{Engine: s.e.reader, Epoch: epoch}
	c.Context = exec.WithEnv(ctx, env)
	return s.stream(c, cancel, planner.Build(node, env)), nil
}

// Next implements pgwire.Rows and rowSource: the next change, waiting for
// it as long as ctx allows.
func (r *subscriber) Next(ctx context.Context) ([]types.Datum, error) { return r.poll(ctx, ctx) }

// poll returns the next change, reading under ctx; if none is committed
// yet it waits for one under wait, or returns nil at once if wait is nil.
func (r *subscriber) poll(ctx, wait context.Context) ([]types.Datum, error) {
	for {
		if r.snap != nil {
			row, err := r.snap.Next(ctx)
			if err != nil {
				return nil, err
			}
			if row != nil {
				r.count++
				return r.row(r.pos, r.snapTime, 1, dataflow.Insert, row, nil), nil
			}
			r.snap.Close()
			r.snap = nil
		}
		if r.next < len(r.out) {
			r.next++
			r.count++
			return r.out[r.next-1], nil
		}
		if read, err := r.read(ctx, wait); err != nil || !read {
			return nil, err
		}
	}
}

// moveRetries bounds how often a subscriber reads a window again whose
// key groups moved between nodes while it read (a rescale's switch), and
// moveRetryWait is the pause between two tries.
const (
	moveRetries   = 50
	moveRetryWait = 50 * time.Millisecond
)

// read reads the next window of committed epochs into out; it reports
// false if none was committed and wait is nil. It reads at the newest
// committed epoch, whose owners hold the log's key groups, again when a
// rescale moved them between nodes under the read (40001): the log's
// committed blocks do not change, so the next try reads the same ones.
func (r *subscriber) read(ctx, wait context.Context) (bool, error) {
	for try := 1; ; try++ {
		ok, err := r.readWindow(ctx, wait)
		if pgerror.Code(err) != pgerror.CodeSerializationFailure || try == moveRetries {
			return ok, err
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(moveRetryWait):
		}
	}
}

// readWindow is one try of read.
func (r *subscriber) readWindow(ctx, wait context.Context) (bool, error) {
	e := r.e
	committed := e.stream.Committed()
	if committed <= r.pos {
		if wait == nil {
			return false, nil
		}
		pgwire.Flush(ctx)
		if err := e.stream.AwaitCommitted(wait, r.pos+1); err != nil {
			return false, err
		}
		committed = e.stream.Committed()
	}
	if _, ok := e.Meta.Catalog().TableByID(r.log.ID); !ok {
		return false, pgerror.New(pgerror.CodeObjectNotInState, "subscription %s was dropped", r.log.Name).
			WithHint("Subscribe to the relation again.")
	}
	if r.window == 0 {
		r.window = maxWindowEpochs
	}
	upto := min(committed, r.pos+r.window)
	if upto < committed || r.oldest {
		// A window short of the newest epoch does not meet the markers of
		// trims past it.
		to, err := dataflow.ChangelogTrimmed(e.reader, r.log.ID, rowkey.VNodes, r.pos, committed)
		switch {
		case err != nil:
			return false, err
		case to > r.pos && !r.oldest:
			return false, errFellBehind(r.log, r.pos)
		}
		r.pos, r.oldest = to, false
		upto = min(committed, r.pos+r.window)
	}
	blocks, err := dataflow.ReadChangelog(e.reader, r.log.ID, rowkey.VNodes, r.pos, upto, committed)
	if errors.Is(err, dataflow.ErrTrimmed) {
		return false, errFellBehind(r.log, r.pos)
	}
	if err != nil {
		return false, err
	}
	r.resize(blocks)
	r.out, r.next, r.arena = r.out[:0], 0, types.RowArena{}
	for i := 0; i < len(blocks); {
		j := i
		for j < len(blocks) && blocks[j].Epoch == blocks[i].Epoch {
			j++
		}
		if blocks[i].Time >= r.minTime {
			if err := r.epoch(blocks[i:j]); err != nil {
				return false, err
			}
		}
		i = j
	}
	r.pos = upto
	if r.progress && !r.rw {
		r.out = append(r.out, r.row(upto+1, 0, 0, 0, nil, nil))
	}
	return true, nil
}

// resize sets the next window's epochs from the bytes of blocks, the
// window just read.
func (r *subscriber) resize(blocks []dataflow.ChangeBlock) {
	n := 0
	for _, b := range blocks {
		n += len(b.Value)
	}
	switch {
	case n > windowBytes:
		r.window = max(1, r.window/2)
	case n < windowBytes/4:
		r.window = min(maxWindowEpochs, r.window*2)
	}
}

// epoch adds the changes of one epoch's blocks to out: as they are in
// RisingWave's format, consolidated (a row inserted and deleted in the
// epoch cancels) in Materialize's.
func (r *subscriber) epoch(blocks []dataflow.ChangeBlock) error {
	epoch, at := blocks[0].Epoch, blocks[0].Time
	clear(r.consolidated)
	r.cons = r.cons[:0]
	for _, b := range blocks {
		err := dataflow.DecodeChangelog(b.Value, r.types, func(op dataflow.Op, row []types.Datum) error {
			if r.rw {
				r.out = append(r.out, r.row(epoch, at, 0, op, row, r.visible))
				return nil
			}
			diff := int64(1)
			if op == dataflow.Delete || op == dataflow.UpdateDelete {
				diff = -1
			}
			r.key = r.key[:0]
			for _, i := range r.visible {
				r.key = types.AppendRow(r.key, row[i:i+1])
			}
			if k, ok := r.consolidated[string(r.key)]; ok {
				r.cons[k].diff += diff
				return nil
			}
			r.consolidated[string(r.key)] = len(r.cons)
			vis := r.arena.Row(len(r.visible))[:0]
			for _, i := range r.visible {
				vis = append(vis, row[i])
			}
			r.cons = append(r.cons, netChange{row: vis, diff: diff})
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, c := range r.cons {
		if c.diff != 0 {
			r.out = append(r.out, r.row(epoch, at, c.diff, 0, c.row, nil))
		}
	}
	return nil
}

// rwOps are RisingWave's names of the ops.
var rwOps = [...]types.Datum{
	dataflow.Insert:       types.NewString("Insert"),
	dataflow.Delete:       types.NewString("Delete"),
	dataflow.UpdateDelete: types.NewString("UpdateDelete"),
	dataflow.UpdateInsert: types.NewString("UpdateInsert"),
}

// row makes an output row of the values of cols of vals (all of vals if
// cols is nil): a change at epoch and barrier time at (µs) with diff or
// op, or a progress row (vals nil).
func (r *subscriber) row(epoch uint64, at, diff int64, op dataflow.Op, vals []types.Datum, cols []int) []types.Datum {
	n := len(r.visible)
	out := r.arena.Row(n + 3)[:0]
	if !r.rw {
		out = append(out, types.NewDecimal(apd.New(int64(epoch), 0)))
		if r.progress {
			out = append(out, types.NewBool(vals == nil))
		}
		if vals == nil {
			out = append(out, types.Null)
			for range n {
				out = append(out, types.Null)
			}
			return out
		}
		out = append(out, types.NewInt(diff))
	}
	if cols == nil {
		out = append(out, vals...)
	} else {
		for _, i := range cols {
			out = append(out, vals[i])
		}
	}
	if r.rw {
		out = append(out, rwOps[op], types.NewInt(at/1000))
	}
	return out
}

// Tag implements pgwire.Rows: a SUBSCRIBE ends only by an error or the
// client's cancel.
func (r *subscriber) Tag() string { return fmt.Sprintf("SUBSCRIBE %d", r.count) }

// rowCount implements copySource.
func (r *subscriber) rowCount() int64 { return r.count }

// streams marks rows that run past Open, until Close.
func (r *subscriber) streams() {}

// Close implements pgwire.Rows and rowSource: it ends the snapshot and
// drops a temporary subscription.
func (r *subscriber) Close() {
	if r.snap != nil {
		r.snap.Close()
		r.snap = nil
	}
	if r.release != nil {
		r.release()
		r.release = nil
	}
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
}
