package pgcdc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/types"
)

// Reconnection backoff and the interval of standby status updates.
const (
	minBackoff     = 100 * time.Millisecond
	maxBackoff     = 5 * time.Second
	statusInterval = time.Second
	// batchRows is how many changes the reader gathers before it
	// buffers them (a transaction is buffered whole at its commit).
	batchRows = 1024
	// maxTxnRows bounds the changes of a transaction gathered before
	// they are buffered.
	maxTxnRows = maxBuffered / 4
)

// reader is the background reader of a Split.
type reader struct {
	split *Split
	// pos is where streaming resumes: the end LSN of the last
	// transaction buffered, 0 while no snapshot was taken.
	pos   int64
	arena types.RowArena
	// batch gathers the changes of the current transaction or snapshot
	// page.
	batch []change
	// relations maps an upstream relation id to the index of each of
	// the split's columns in its tuples (-1: absent).
	relations map[uint32][]int
	// inTxn is set between a transaction's Begin and Commit.
	inTxn bool
	// confirmed is the flush LSN last sent in a status update; received
	// is the server's WAL end as last heard.
	confirmed, received int64
}

// run reads until ctx ends, reconnecting with backoff after failures.
func (r *reader) run(ctx context.Context) {
	backoff := minBackoff
	for ctx.Err() == nil {
		started := time.Now()
		err := r.stream(ctx)
		if ctx.Err() != nil {
			return
		}
		if time.Since(started) > maxBackoff {
			backoff = minBackoff
		}
		r.split.log.Warn("postgres-cdc source lost its upstream; reconnecting", "error", err, "backoff", backoff)
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// stream takes the snapshot if none was taken, then streams changes until
// an error.
func (r *reader) stream(ctx context.Context) error {
	cfg := r.split.cfg
	if err := ensurePublication(ctx, cfg); err != nil {
		return err
	}
	repl, err := pgconn.Connect(ctx, replicationURL(cfg.URL))
	if err != nil {
		return err
	}
	defer repl.Close(context.Background())
	if r.pos == 0 {
		if err := r.snapshot(ctx, repl); err != nil {
			return err
		}
	}
	err = pglogrepl.StartReplication(ctx, repl, cfg.Slot, pglogrepl.LSN(r.pos), pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names '" + cfg.Publication + "'"},
	})
	if err != nil {
		return fmt.Errorf("start replication from slot %s at %s: %w", cfg.Slot, pglogrepl.LSN(r.pos), err)
	}
	r.relations = map[uint32][]int{}
	r.batch = r.batch[:0]
	r.confirmed, r.received, r.inTxn = 0, 0, false
	return r.replicate(ctx, repl)
}

// replicationURL is url with the replication=database parameter.
func replicationURL(url string) string {
	if strings.Contains(url, "://") {
		if strings.Contains(url, "?") {
			return url + "&replication=database"
		}
		return url + "?replication=database"
	}
	return url + " replication=database"
}

// ensurePublication creates the source's publication of its table if it
// does not exist.
func ensurePublication(ctx context.Context, cfg Config) error {
	conn, err := pgx.Connect(ctx, cfg.URL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_publication WHERE pubname = $1)", cfg.Publication).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, fmt.Sprintf("CREATE PUBLICATION %s FOR TABLE %s",
		pgx.Identifier{cfg.Publication}.Sanitize(), pgx.Identifier{cfg.Schema, cfg.Table}.Sanitize()))
	return err
}

// snapshot reads the table's rows as upserts and positions the reader
// where streaming must start. Without a slot, it creates the slot with an
// exported snapshot and reads the rows in it: streaming starts at the
// slot's consistent point. A slot already there was left by a snapshot
// that did not finish (or its offset was not checkpointed): the slot was
// never confirmed, so streaming from its confirmed point replays every
// change since the rows that snapshot emitted; the rows are read again in
// a new snapshot, and the replay (upserts and deletes by key, applied
// again) converges on the table's state, deletes of rows emitted before
// included.
func (r *reader) snapshot(ctx context.Context, repl *pgconn.PgConn) error {
	cfg := r.split.cfg
	conn, err := pgx.Connect(ctx, cfg.URL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var confirmed string
	err = conn.QueryRow(ctx, "SELECT coalesce(confirmed_flush_lsn::text, '') FROM pg_replication_slots WHERE slot_name = $1", cfg.Slot).Scan(&confirmed)
	var snapshot string
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		slot, err := pglogrepl.CreateReplicationSlot(ctx, repl, cfg.Slot, "pgoutput",
			pglogrepl.CreateReplicationSlotOptions{SnapshotAction: "EXPORT_SNAPSHOT", Mode: pglogrepl.LogicalReplication})
		if err != nil {
			return fmt.Errorf("create replication slot %s: %w", cfg.Slot, err)
		}
		confirmed, snapshot = slot.ConsistentPoint, slot.SnapshotName
	case err != nil:
		return err
	case confirmed == "":
		return fmt.Errorf("replication slot %s is not a logical slot: drop it or name another with the option slot", cfg.Slot)
	}
	start, err := pglogrepl.ParseLSN(confirmed)
	if err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	if snapshot != "" {
		if _, err := tx.Exec(ctx, "SET TRANSACTION SNAPSHOT '"+snapshot+"'"); err != nil {
			return err
		}
	}
	names := make([]string, len(r.split.cols))
	for i, c := range r.split.cols {
		names[i] = pgx.Identifier{c.Name}.Sanitize()
	}
	// A simple query streams its rows in text, the form the
	// replication stream uses too.
	res := conn.PgConn().Exec(ctx, fmt.Sprintf("SELECT %s FROM %s", strings.Join(names, ", "), pgx.Identifier{cfg.Schema, cfg.Table}.Sanitize()))
	r.batch = r.batch[:0]
	for res.NextResult() {
		rows := res.ResultReader()
		for rows.NextRow() {
			row := r.arena.Row(len(r.split.cols))
			for i, v := range rows.Values() {
				if row[i], err = r.parse(i, v, true); err != nil {
					return err
				}
			}
			r.batch = append(r.batch, change{row: row})
			if len(r.batch) >= batchRows && !r.flush(ctx) {
				return ctx.Err()
			}
		}
		if _, err := rows.Close(); err != nil {
			return err
		}
	}
	if err := res.Close(); err != nil {
		return err
	}
	r.batch = append(r.batch, change{end: int64(start)})
	if !r.flush(ctx) {
		return ctx.Err()
	}
	r.pos = int64(start)
	return nil
}

// flush buffers the gathered changes; false once ctx ended.
func (r *reader) flush(ctx context.Context) bool {
	ok := r.split.put(ctx, r.batch)
	r.batch = r.batch[:0]
	return ok
}

// parse converts column i's text value (nil: NULL) to its type.
func (r *reader) parse(i int, v []byte, present bool) (types.Datum, error) {
	if !present || v == nil {
		return types.Null, nil
	}
	c := r.split.cols[i]
	d, err := types.ParseText(c.Type, string(v))
	if err != nil {
		return d, fmt.Errorf("column %s: %w", c.Name, err)
	}
	return d, nil
}

// replicate handles the replication stream until an error.
func (r *reader) replicate(ctx context.Context, repl *pgconn.PgConn) error {
	nextStatus := time.Now()
	for {
		if time.Now().After(nextStatus) {
			if err := r.status(ctx, repl); err != nil {
				return err
			}
			nextStatus = time.Now().Add(statusInterval)
		}
		rctx, cancel := context.WithDeadline(ctx, nextStatus)
		msg, err := repl.ReceiveMessage(rctx)
		cancel()
		if pgconn.Timeout(err) && ctx.Err() == nil {
			continue
		}
		if err != nil {
			return err
		}
		switch msg := msg.(type) {
		case *pgproto3.ErrorResponse:
			return pgconn.ErrorResponseToPgError(msg)
		case *pgproto3.CopyData:
			if len(msg.Data) == 0 {
				continue
			}
			switch msg.Data[0] {
			case pglogrepl.PrimaryKeepaliveMessageByteID:
				ka, err := pglogrepl.ParsePrimaryKeepaliveMessage(msg.Data[1:])
				if err != nil {
					return err
				}
				r.received = max(r.received, int64(ka.ServerWALEnd))
				if err := r.idle(ctx, int64(ka.ServerWALEnd)); err != nil {
					return err
				}
				if ka.ReplyRequested {
					nextStatus = time.Time{}
				}
			case pglogrepl.XLogDataByteID:
				x, err := pglogrepl.ParseXLogData(msg.Data[1:])
				if err != nil {
					return err
				}
				r.received = max(r.received, int64(x.ServerWALEnd))
				if err := r.decode(ctx, x.WALData); err != nil {
					return err
				}
			}
		}
	}
}

// status confirms the slot up to the offset streamdb committed (the
// flush position) and reports everything heard as written.
func (r *reader) status(ctx context.Context, repl *pgconn.PgConn) error {
	// Nothing committed yet: flush position 1, below any slot's
	// (0 would stand for the write position).
	r.confirmed = max(r.confirmed, r.split.committed.Load(), 1)
	return pglogrepl.SendStandbyStatusUpdate(ctx, repl, pglogrepl.StandbyStatusUpdate{
		WALWritePosition: pglogrepl.LSN(max(r.received, r.confirmed)),
		WALFlushPosition: pglogrepl.LSN(r.confirmed), WALApplyPosition: pglogrepl.LSN(r.confirmed),
	})
}

// decode handles one pgoutput message.
func (r *reader) decode(ctx context.Context, data []byte) error {
	msg, err := pglogrepl.Parse(data)
	if err != nil {
		return err
	}
	switch m := msg.(type) {
	case *pglogrepl.RelationMessage:
		idx := make([]int, len(r.split.cols))
		for i, c := range r.split.cols {
			idx[i] = -1
			for j, rc := range m.Columns {
				if rc.Name == c.Name {
					idx[i] = j
				}
			}
		}
		r.relations[m.RelationID] = idx
	case *pglogrepl.BeginMessage:
		r.batch, r.inTxn = r.batch[:0], true
	case *pglogrepl.InsertMessage:
		return r.add(ctx, m.RelationID, m.Tuple, false)
	case *pglogrepl.UpdateMessage:
		if m.OldTuple != nil {
			if err := r.add(ctx, m.RelationID, m.OldTuple, true); err != nil {
				return err
			}
		}
		return r.add(ctx, m.RelationID, m.NewTuple, false)
	case *pglogrepl.DeleteMessage:
		return r.add(ctx, m.RelationID, m.OldTuple, true)
	case *pglogrepl.TruncateMessage:
		return r.truncate(ctx, m.RelationIDs)
	case *pglogrepl.CommitMessage:
		r.batch = append(r.batch, change{end: int64(m.TransactionEndLSN)})
		if !r.flush(ctx) {
			return ctx.Err()
		}
		r.pos, r.inTxn = int64(m.TransactionEndLSN), false
	}
	return nil
}

// idle moves the position to end, the server's WAL end in a keepalive,
// when no transaction is open: every transaction that committed before it
// was sent. Without it, the position would stay at the table's last
// change: the slot would keep the WAL of other tables' changes, and a
// server shutting down, which waits until its walsenders' clients
// confirmed all they were sent, would wait for streamdb in vain.
func (r *reader) idle(ctx context.Context, end int64) error {
	if r.inTxn || end <= r.pos {
		return nil
	}
	r.batch = append(r.batch[:0], change{end: end})
	if !r.flush(ctx) {
		return ctx.Err()
	}
	r.pos = end
	return nil
}

// add gathers the change of a tuple of relation rel. A transaction is
// buffered whole at its commit unless it is larger than maxTxnRows: then
// its changes are buffered in parts (the offset moves past it only at its
// commit either way).
func (r *reader) add(ctx context.Context, rel uint32, tuple *pglogrepl.TupleData, del bool) error {
	idx, ok := r.relations[rel]
	if !ok {
		return fmt.Errorf("change of relation %d before its description", rel)
	}
	row := r.arena.Row(len(idx))
	for i, j := range idx {
		if j < 0 || j >= len(tuple.Columns) {
			continue
		}
		c := tuple.Columns[j]
		if c.DataType == pglogrepl.TupleDataTypeToast {
			// An unchanged TOASTed value, not sent: the table keeps its own.
			row[i] = types.Unchanged
			continue
		}
		var err error
		if row[i], err = r.parse(i, c.Data, c.DataType == pglogrepl.TupleDataTypeText); err != nil {
			return err
		}
	}
	return r.gather(ctx, change{row: row, del: del})
}

// gather adds c to the current transaction's changes, buffering them once
// they are maxTxnRows.
func (r *reader) gather(ctx context.Context, c change) error {
	r.batch = append(r.batch, c)
	if len(r.batch) >= maxTxnRows && !r.flush(ctx) {
		return ctx.Err()
	}
	return nil
}

// truncate gathers a truncate of the table if rels, the relations a
// TRUNCATE emptied, hold it (the publication has this one table; pgoutput
// describes each relation before it truncates it): a delete whose every
// column is types.Unchanged (dataflow.ChangeReader).
func (r *reader) truncate(ctx context.Context, rels []uint32) error {
	if !slices.ContainsFunc(rels, func(rel uint32) bool { return r.relations[rel] != nil }) {
		return nil
	}
	row := r.arena.Row(len(r.split.cols))
	for i := range row {
		row[i] = types.Unchanged
	}
	return r.gather(ctx, change{row: row, del: true})
}
