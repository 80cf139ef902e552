package pgwire

import (
	"context"
	"io"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Handler creates sessions for new connections. It is the only thing pgwire
// knows about the database behind it.
type Handler interface {
	// Connect validates the startup parameters (user, database, options, ...)
	// and returns a session. An error (ideally a *pgerror.Error, for example
	// 3D000 for an unknown database) is sent to the client and the
	// connection closed.
	Connect(ctx context.Context, params map[string]string) (Session, error)
}

// Session is one client connection's SQL state. pgwire calls it from one
// goroutine at a time, except for the context passed to Open, which pgwire
// cancels when a CancelRequest for this connection arrives.
type Session interface {
	// Prepare parses a query string. For the simple protocol it may hold
	// several statements (each returned in order; an empty query returns
	// none). For the extended protocol pgwire rejects more than one.
	// paramTypes holds the OIDs the client specified (0 = infer); each
	// returned Statement reports the final parameter types.
	Prepare(ctx context.Context, query string, paramTypes []types.OID) ([]Statement, error)
	// ParameterStatus returns the parameters reported to the client at
	// startup and after any statement that changed one (pgwire sends only
	// values that differ from what it sent before).
	ParameterStatus() map[string]string
	// TxStatus returns the ReadyForQuery status byte: 'I', 'T' or 'E'.
	TxStatus() byte
	// Sync ends the implicit transaction of the statements run outside a
	// transaction block since the last call: pgwire calls it before each
	// ReadyForQuery (after a simple query, at Sync). An error is sent to
	// the client before ReadyForQuery.
	Sync(ctx context.Context) error
	// Close releases the session when the connection ends.
	Close()
}

// Statement is one parsed statement.
type Statement interface {
	// ParamTypes returns the types of $1..$n.
	ParamTypes() []types.T
	// Columns returns the result columns, or nil when the statement returns
	// no rows (pgwire answers Describe with NoData).
	Columns() []Column
	// Open starts executing the statement with bound parameters. Rows are
	// pulled with Next so that a portal can be suspended after a row limit.
	Open(ctx context.Context, params []types.Datum) (Rows, error)
}

// BinaryResult is implemented by a Statement whose rows a simple query
// sends in binary format when BinaryResult reports so, as PostgreSQL sends
// a FETCH from a BINARY cursor.
type BinaryResult interface {
	BinaryResult() bool
}

// Rows is a running statement's result.
type Rows interface {
	// Next returns the next row, or nil at the end. The slice may be reused
	// by the next call.
	Next(ctx context.Context) ([]types.Datum, error)
	// Tag returns the CommandComplete tag (for example "SELECT 3" or
	// "INSERT 0 1"); valid once Next returned nil.
	Tag() string
	// Close releases resources; called exactly once, also on suspension
	// without resumption or on errors.
	Close()
}

// Noticer is implemented by the Rows of a statement with warnings or
// notices for the client (each with its Severity): pgwire sends them
// before the CommandComplete.
type Noticer interface {
	Notices() []*pgerror.Error
}

// CopyIn is implemented by the Rows of a statement that reads rows from
// the client, COPY ... FROM STDIN: once Open returns it, pgwire asks the
// client for the data and hands it to CopyFrom; Next then returns nil and
// Tag the command tag.
type CopyIn interface {
	Rows
	// CopyFormat returns the format of the data: binary, or text (CSV
	// included), and the number of columns.
	CopyFormat() (binary bool, columns int)
	// CopyFrom consumes the data: r reads the payloads of the client's
	// CopyData messages in order and returns io.EOF after its CopyDone.
	CopyFrom(ctx context.Context, r io.Reader) error
}

// CopyOut is the Rows of a COPY ... TO STDOUT: pgwire sends
// CopyOutResponse, a CopyData message for each piece of data NextData
// returns, then CopyDone and CommandComplete with the Tag (Next returns no
// rows).
type CopyOut interface {
	Rows
	// CopyFormat returns the format of the data: binary, or text (CSV
	// included), and the number of columns.
	CopyFormat() (binary bool, columns int)
	// NextData returns the next piece of data (a row, a header or the
	// trailer), nil after the last.
	NextData(ctx context.Context) ([]byte, error)
}

// Column describes one result column.
type Column struct {
	Name     string
	Type     types.T
	TableOID uint32
	AttrNum  int16
}

type lastKey struct{}

// LastBeforeSync reports whether the statement opened under ctx is known to
// be the last of its implicit transaction: the last of its simple query,
// or executed with the client's Sync already received. Such a statement
// outside a transaction block may commit on its own.
func LastBeforeSync(ctx context.Context) bool {
	last, _ := ctx.Value(lastKey{}).(bool)
	return last
}

// Flush sends the client what the statement running under ctx produced so
// far: rows that come as changes happen (SUBSCRIBE) are flushed before
// their source waits for more, rather than when the buffer fills.
func Flush(ctx context.Context) {
	if f, ok := ctx.Value(flushKey{}).(func()); ok {
		f()
	}
}

type flushKey struct{}

// WithLastBeforeSync returns ctx marked for LastBeforeSync.
func WithLastBeforeSync(ctx context.Context) context.Context {
	return context.WithValue(ctx, lastKey{}, true)
}
