// Package pgbaseline compares streamdb with PostgreSQL on streaming-style
// workloads over Nexmark bids: both are fed the same bids through the same
// client path (batches as multi-row INSERTs or as COPY over pgx), and each
// keeps a query's result fresh its own way: streamdb with a materialized
// view, PostgreSQL with a table a statement-level trigger maintains from
// the transition table, or with a materialized view refreshed periodically
// from another connection. It measures the rates and the staleness, and
// checks that every system ends with the same result.
package pgbaseline
