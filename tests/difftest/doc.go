// Package difftest is a differential SQL tester in the spirit of SQLancer
// and sqlsmith: it generates random schemas, data and queries from a seed,
// runs them on streamdb and on PostgreSQL 15, and reports where the two
// differ.
//
// A seed makes 2-3 tables over one pool of typed columns (so USING and
// NATURAL joins find common names), some with a primary key, with edge
// values (type limits, zero, -1, empty strings, infinities, NaN, NULLs).
// The generator is grammar-driven and typed: every expression generator
// returns an expression of a requested type, over a scope of columns
// (with aggregates where a query groups, outer columns in correlated
// subqueries). Queries cover casts, CASE, NULLIF/COALESCE/GREATEST/LEAST,
// arithmetic at type limits, string and date functions, aggregates with
// DISTINCT and FILTER, GROUP BY/HAVING, every join kind (ON, USING,
// NATURAL, self-joins, joins of derived tables and of global aggregates),
// scalar/IN/EXISTS/ANY subqueries, set operations, DISTINCT and ORDER
// BY/LIMIT/OFFSET. Every value a literal may take is first read on both
// servers (Runner.Probe); values read differently are findings and are
// left out.
//
// Each seed then runs in three modes:
//   - query: each query runs on both servers; rows compare as multisets,
//     or in order when the ORDER BY orders every column; numerics compare
//     by value, floats within a relative tolerance, intervals as
//     PostgreSQL compares them; errors by SQLSTATE class.
//   - dml: INSERT/UPDATE/DELETE run on both, and the table is compared
//     after each.
//   - view: queries become materialized views on streamdb (plain views on
//     PostgreSQL), some before and some after rounds of DML, some over
//     other views; after FLUSH each view is compared with PostgreSQL's
//     answer. Views streamdb refuses with 0A000 count as unsupported.
//
// Each difference is classified (crash, timeout, rows, view-rows,
// error-vs-rows, error-class, and of lower severity sqlstate and type),
// minimized by a greedy reducer (dropping steps, tables, rows, clauses,
// joins and expression nodes, hoisting subqueries, while the difference
// stays the same), and identified by a signature: the kind, both outcomes
// and the statement's shape, with names and values abstracted (or, when
// streamdb refuses a statement, its error message). Which subexpressions
// a server evaluates is its own business (PostgreSQL folds constants when
// it plans, skips what it does not need): a run-time error on one side
// only is checked against the statement's subexpressions evaluated alone
// (explain, in folding.go), and differences in evaluation only are not
// failures. Signatures listed in known_differences.txt (each with its
// reason) are counted, not reported. Before each setup streamdb must pass
// a health check (a DML statement into a new table); when it does not, it
// is restarted.
//
// `go test ./tests/difftest/` runs a fixed set of seeds against an
// in-process node and a private PostgreSQL cluster; `make difftest` runs
// longer (see the flags in difftest_test.go).
package difftest
