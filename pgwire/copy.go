package pgwire

import (
	"context"
	"io"

	"github.com/jackc/pgproto3/v2"
	"github.com/streamdb/streamdb/pgerror"
)

// copyIn runs the copy-in sub-protocol for ci: CopyInResponse, then the
// client's CopyData messages until CopyDone (or CopyFail) go to ci. If ci
// fails first, the rest of the client's copy messages are dropped by the
// message loop, as the protocol specifies.
func (c *conn) copyIn(ctx context.Context, ci CopyIn) error {
	binary, n := ci.CopyFormat()
	c.w.send(&pgproto3.CopyInResponse{OverallFormat: byte(copyFormat(binary)), ColumnFormatCodes: copyFormatCodes(binary, n)})
	c.w.flush()
	if c.w.err != nil {
		return c.w.err
	}
	return ci.CopyFrom(ctx, &copyReader{c: c})
}

// copyOut runs the copy-out sub-protocol for co: CopyOutResponse, its
// data in CopyData messages (flushed as the buffer fills, so that a large
// COPY streams), then CopyDone.
func (c *conn) copyOut(ctx context.Context, co CopyOut) error {
	binary, n := co.CopyFormat()
	c.w.send(&pgproto3.CopyOutResponse{OverallFormat: byte(copyFormat(binary)), ColumnFormatCodes: copyFormatCodes(binary, n)})
	for {
		data, err := co.NextData(ctx)
		if err != nil {
			return err
		}
		if data == nil {
			break
		}
		b, start := beginMessage(c.w.buf, 'd')
		c.w.commit(finishMessage(append(b, data...), start))
		if c.w.err != nil {
			return c.w.err
		}
	}
	c.w.send(&pgproto3.CopyDone{})
	return nil
}

// copyFormat is the format code of a copy's data.
func copyFormat(binary bool) int16 {
	if binary {
		return formatBinary
	}
	return formatText
}

// copyFormatCodes are a copy's per-column format codes.
func copyFormatCodes(binary bool, n int) []uint16 {
	codes := make([]uint16, n)
	for i := range codes {
		codes[i] = uint16(copyFormat(binary))
	}
	return codes
}

// copyReader reads the payloads of the client's copy-in messages.
type copyReader struct {
	c    *conn
	data []byte
	err  error
}

// Read implements io.Reader: it returns io.EOF after CopyDone and an error
// after CopyFail or any message but CopyData, Flush and Sync (which the
// protocol has the server ignore during copy-in). A broken connection ends
// it after the copy.
func (r *copyReader) Read(p []byte) (int, error) {
	for len(r.data) == 0 && r.err == nil {
		msg, err := safeReceive(r.c.be.Receive)
		if err != nil {
			r.c.readFailed(err)
			r.c.fatal = true
			r.err = err
			break
		}
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			r.data = m.Data
		case *pgproto3.CopyDone:
			r.err = io.EOF
		case *pgproto3.CopyFail:
			r.err = pgerror.New(pgerror.CodeQueryCanceled, "COPY from stdin failed: %s", m.Message)
		case *pgproto3.Flush, *pgproto3.Sync:
		default:
			kind := byte('?')
			if b, err := msg.Encode(nil); err == nil && len(b) > 0 {
				kind = b[0]
			}
			r.err = pgerror.New(pgerror.CodeProtocolViolation, "unexpected message type 0x%02X during COPY from stdin", kind).
				WithHint("Send CopyData messages, then CopyDone or CopyFail.")
		}
	}
	if len(r.data) > 0 {
		n := copy(p, r.data)
		r.data = r.data[n:]
		return n, nil
	}
	return 0, r.err
}
