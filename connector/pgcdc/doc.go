// Package pgcdc reads the changes of one PostgreSQL table: a snapshot of
// its rows, then its logical replication stream (pgoutput), as inserts and
// deletes by primary key (an update is an upsert of the new row, preceded
// by a delete of the old key when the key changed).
//
// Positions: the offset of a split is 0 until its snapshot is done, then
// the end LSN of the last transaction whose changes were all taken. A
// split opened at offset 0 creates its replication slot with an exported
// snapshot, reads the table in it (a REPEATABLE READ transaction) and
// streams from the slot's consistent point; if the slot is there already
// (a snapshot cut short by a restart of either side), it reads the table
// again in a fresh snapshot and streams from the slot's confirmed point,
// which was never moved: the replayed changes are upserts and deletes by
// key, so the table converges on the upstream's, rows deleted since the
// first snapshot included. A split opened at an LSN streams from there.
// The slot is confirmed (standby status updates) only up to the offsets
// streamdb reports committed (Split.Committed), so PostgreSQL keeps the
// WAL a restart needs. The reader reconnects with backoff when the
// upstream goes away.
//
// Transactions: a transaction's changes are buffered at its commit (in
// parts if it is large), and the offset moves past it once all are
// taken; the source may still emit them across a checkpoint, so a view
// can briefly show part of an upstream transaction. A replay after a
// restart is harmless for the same reason as above.
//
// Unchanged TOASTed values: pgoutput does not send a column of an
// update's new tuple that holds an unchanged TOASTed value ('u'); the
// reader passes it as types.Unchanged and the table's upserting
// materialization keeps the stored value (NULL, logged once, if the key is
// not stored, as during the replay after a re-taken snapshot, which later
// changes correct). A key column is never 'u' (a btree key cannot be large
// enough to be TOASTed out of line).
//
// TRUNCATE: the publication streamdb creates publishes truncates (the
// default); a user-named publication must publish them too. A truncate is
// a delete whose every column is types.Unchanged, which the source emits
// as a dataflow Truncate op: dispatchers send it to every actor of the
// table's materialization, each of which deletes every row of its vnodes
// (emitting the deletes, so views follow) at that point of the stream.
// Rows inserted after it, in the same transaction or later, stay. A replay
// after a restart replays the truncate at the same place.
//
// Slots and publications: by default streamdb_<table>_<creation time in
// microseconds>, made explicit in the table's options, with the option
// owned listing the ones streamdb named. DROP TABLE drops those upstream
// once the table's job stopped (waiting while the slot is still active);
// if the upstream is unreachable, the DROP succeeds with a WARNING that
// says what to drop by hand. A slot or publication named in the options is
// the user's and is kept.
package pgcdc
