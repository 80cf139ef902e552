// Package pgcdc reads the changes of one PostgreSQL table: a snapshot of
// its rows, then its logical replication stream (pgoutput), as inserts and
// deletes by primary key (an update is an upsert of the new row, preceded
// by a delete of the old key when the key changed).
//
// Positions: the offset of a split is 0 until its snapshot is done, then
// the end LSN of the last transaction whose changes were all taken. A
// split opened at offset 0 drops its replication slot, if any, and creates
// it again with an exported snapshot, which it reads in a REPEATABLE READ
// transaction before it streams from the slot's consistent point; a split
// opened at an LSN streams from there. The slot is confirmed (standby
// status updates) only up to the offsets streamdb reports committed
// (Split.Committed), so PostgreSQL keeps the WAL a restart needs. The
// reader reconnects with backoff when the upstream goes away.
//
// Known limits: a snapshot interrupted by a restart is read again from
// scratch: its rows are upserted again (harmless), but a row it had read
// and that was deleted upstream before the new snapshot stays in
// streamdb. Unchanged TOASTed values of an update ('u' columns) are not
// sent by pgoutput and become NULL. TRUNCATE is ignored.
package pgcdc
