// Package conformance runs scripted sessions against streamdb and against
// a PostgreSQL 15 server started by the test, step by step, and compares
// every answer: rows, command tags and SQLSTATEs. A step whose answer is
// meant to differ says why in the script; the test prints those with both
// answers, and fails on any other difference (or on a listed difference
// that is gone).
//
// A script (testdata/*.txt) holds cases, each starting with "=== name".
// Each of its steps runs on a session named by a letter, opened for the
// case:
//
//	a> SQL                 a simple Query message (it may hold several statements)
//	a batch> S1 ;; S2      an extended-protocol pipeline, one Sync at the end
//	a copyout> COPY ...    a COPY ... TO STDOUT: its data (text lines sorted), quoted, and its tag
//	a &> SQL               start SQL (simple) without waiting for it
//	a <                    wait for a's started statement and record its answer
//	a connect K=V ...      open session a with these startup parameters
//	sleep 200ms            let started statements reach the server
//	# differs: reason      (right after a step) its answers may differ
package conformance
