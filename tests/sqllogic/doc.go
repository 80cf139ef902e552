// Package sqllogic runs sqllogictest files against a PostgreSQL-compatible
// server over the wire protocol (github.com/jackc/pgx/v5, simple protocol, so
// every value arrives as PostgreSQL text).
//
// Two dialects are read:
//
//   - SQLite's (files ending in .test): results one value per line, formatted
//     by the query's type letters (I integer, R "%.3f", T text), results may be
//     given as "N values hashing to <md5>", and "label-N" ties the results of
//     equivalent queries together.
//   - sqllogictest-rs's (every other file, typically .slt): results one row per
//     line with columns separated by spaces, values as the server sends them
//     (type letters are not enforced), plus include, control substitution,
//     let, connection, sleep, retry and system records.
//
// Either layout of expected results (one value per line or one row per line)
// is accepted in both dialects, as sqllogictest-rs does.
package sqllogic
