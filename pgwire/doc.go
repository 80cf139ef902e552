// Package pgwire serves the PostgreSQL v3 frontend/backend protocol: startup
// (TLS on SSLRequest when configured, GSS encryption declined, trust or
// SCRAM-SHA-256 authentication: see auth.go), the simple and extended query
// protocols with named and unnamed statements and portals, COPY FROM STDIN
// (copy-in), query cancellation and graceful shutdown.
//
// It knows nothing of SQL: query text goes to a Session (see session.go)
// obtained from a Handler, and values cross the wire through the types
// package's text and binary encodings. Errors reach the client as
// ErrorResponse messages built from *pgerror.Error.
//
// The Server owns listeners and connections; conn runs one connection's
// message loop; registry holds its prepared statements and portals; writer
// buffers outgoing messages.
package pgwire
