package sql

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// copyOut is a COPY ... TO STDOUT under way: the rows of its query,
// streamed as they are computed (never collected), encoded in the copy's
// format for pgwire (pgwire.CopyOut).
type copyOut struct {
	copySource
	opts *parser.Copy
	enc  copyEncoder
	// header and trailer are sent before the first row and after the
	// last (binary's signature and end marker, a HEADER line).
	header, trailer []byte
	done            bool
}

var _ pgwire.CopyOut = (*copyOut)(nil)

// copySource is where the rows of COPY ... TO come from: its query's
// (streamedRows), or the changes of a SUBSCRIBE (subscriber). They run
// past Open, until Close.
type copySource interface {
	rowSource
	streams()
	rowCount() int64
}

// copyQuery returns the query a COPY ... TO reads: its own, or every
// (named) column of its table.
func copyQuery(x *parser.Copy) string {
	if x.Query != "" {
		return x.Query
	}
	cols := "*"
	if len(x.Columns) > 0 {
		quoted := make([]string, len(x.Columns))
		for i, c := range x.Columns {
			quoted[i] = quoteIdent(c)
		}
		cols = strings.Join(quoted, ", ")
	}
	name := quoteIdent(x.Table.Name)
	if x.Table.Schema != "" {
		name = quoteIdent(x.Table.Schema) + "." + name
	}
	return "SELECT " + cols + " FROM " + name
}

// quoteIdent double-quotes an identifier, as PostgreSQL's quote_ident
// does for any name.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// newCopyOut encodes rows, the query's, whose columns are cols, for x.
func newCopyOut(rows copySource, x *parser.Copy, cols []pgwire.Column, zone *time.Location) *copyOut {
	co := &copyOut{copySource: rows, opts: x, enc: copyEncoder{opts: x, zone: zone}}
	for _, c := range cols {
		co.enc.types = append(co.enc.types, c.Type)
	}
	switch {
	case x.Format == "binary":
		co.header = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32([]byte(copySignature), 0), 0)
		co.trailer = []byte{0xff, 0xff}
	case x.Header:
		names := make([]types.Datum, len(cols))
		ts := make([]types.T, len(cols))
		for i, c := range cols {
			names[i], ts[i] = types.NewString(c.Name), types.TText
		}
		co.header, _ = (&copyEncoder{opts: x, types: ts}).row(nil, names) // text never fails
	}
	return co
}

// CopyFormat implements pgwire.CopyOut.
func (co *copyOut) CopyFormat() (bool, int) { return co.opts.Format == "binary", len(co.enc.types) }

// NextData implements pgwire.CopyOut.
func (co *copyOut) NextData(ctx context.Context) ([]byte, error) {
	if co.header != nil {
		h := co.header
		co.header = nil
		return h, nil
	}
	if co.done {
		return nil, nil
	}
	row, err := co.copySource.Next(ctx)
	if err != nil {
		return nil, err
	}
	if row == nil {
		co.done = true
		if t := co.trailer; t != nil {
			co.trailer = nil
			return t, nil
		}
		return nil, nil
	}
	co.enc.buf, err = co.enc.row(co.enc.buf[:0], row)
	return co.enc.buf, err
}

// Next implements pgwire.Rows: the rows went out as copy data.
func (co *copyOut) Next(context.Context) ([]types.Datum, error) { return nil, nil }

// Tag implements pgwire.Rows.
func (co *copyOut) Tag() string { return fmt.Sprintf("COPY %d", co.rowCount()) }

// copyEncoder writes rows in a COPY format, as PostgreSQL's COPY TO does.
type copyEncoder struct {
	opts  *parser.Copy
	types []types.T
	zone  *time.Location
	buf   []byte
	val   []byte
}

// row appends row's line (text, CSV) or tuple (binary) to dst.
func (e *copyEncoder) row(dst []byte, row []types.Datum) ([]byte, error) {
	if e.opts.Format == "binary" {
		return types.AppendTuple(dst, row, func(b []byte, i int) ([]byte, error) {
			return types.EncodeBinary(b, e.types[i], row[i])
		})
	}
	delim := e.opts.Delimiter[0]
	for i, v := range row {
		if i > 0 {
			dst = append(dst, delim)
		}
		if v.IsNull() {
			dst = append(dst, e.opts.Null...)
			continue
		}
		e.val = types.FormatTextZone(e.val[:0], e.types[i], v, e.zone)
		if e.opts.Format == "csv" {
			dst = e.csvValue(dst, e.val)
		} else {
			dst = textValue(dst, e.val, delim)
		}
	}
	return append(dst, '\n'), nil
}

// textValue appends v escaped as COPY's text format escapes it.
func textValue(dst, v []byte, delim byte) []byte {
	for _, c := range v {
		switch c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\v':
			dst = append(dst, '\\', 'v')
		default:
			if c == delim {
				dst = append(dst, '\\')
			}
			dst = append(dst, c)
		}
	}
	return dst
}

// csvValue appends v, quoted when it holds the delimiter, the quote or a
// line break, equals the NULL string, or is the end marker \. alone on
// its line (as PostgreSQL quotes), the quote and escape characters
// escaped.
func (e *copyEncoder) csvValue(dst, v []byte) []byte {
	quote, escape := e.opts.Quote[0], e.opts.Escape[0]
	need := string(v) == e.opts.Null || len(e.types) == 1 && string(v) == `\.`
	for _, c := range v {
		if c == e.opts.Delimiter[0] || c == quote || c == '\n' || c == '\r' {
			need = true
			break
		}
	}
	if !need {
		return append(dst, v...)
	}
	dst = append(dst, quote)
	for _, c := range v {
		if c == quote || c == escape {
			dst = append(dst, escape)
		}
		dst = append(dst, c)
	}
	return append(dst, quote)
}
