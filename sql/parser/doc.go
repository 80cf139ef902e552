// Package parser is streamdb's SQL front: it turns PostgreSQL-dialect text
// into statements. Query bodies and DML are translated token by token into
// text the TiDB parser accepts and parsed into a TiDB AST; streaming and
// utility DDL is parsed by a small recursive-descent grammar of our own.
package parser
