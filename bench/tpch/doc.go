// Package tpch generates TPC-H data and holds the benchmark's schema and
// queries, for materialized views over TPC-H tables compared with
// PostgreSQL (tests/e2e) and for timing them.
//
// The generator follows the TPC-H specification's table sizes, keys and
// value domains (segments, priorities, ship modes, part types, containers,
// nations and regions, the date ranges, the lineitem derivations and the
// refresh functions RF1 and RF2) closely enough that every query selects
// rows, but it is not dbgen: text columns are drawn from small word
// lists, and answers differ from the official ones. It is deterministic
// for a seed.
package tpch
