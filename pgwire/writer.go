package pgwire

import (
	"encoding/binary"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgproto3/v2"
	"github.com/streamdb/streamdb/types"
)

const (
	// flushThreshold is the buffered output size at which writer writes
	// without waiting for an explicit flush.
	flushThreshold = 32 << 10
	// maxRetainedBuffer is the largest output buffer kept between flushes.
	maxRetainedBuffer = 1 << 20
)

// Result format codes of the protocol.
const (
	formatText   int16 = 0
	formatBinary int16 = 1
)

// writer buffers backend messages for one connection. Messages are appended
// whole or not at all, so the buffer always ends at a message boundary, even
// when encoding a value fails or panics. The first write error is kept and
// later output is dropped: the connection is gone.
type writer struct {
	w   io.Writer
	buf []byte
	err error
	// zone is the session's TimeZone, which timestamptz text is in (nil:
	// UTC).
	zone *time.Location
}

// send appends a message encoded by pgproto3.
func (w *writer) send(m pgproto3.BackendMessage) {
	b, err := m.Encode(w.buf)
	if err != nil {
		w.fail(err)
		return
	}
	w.commit(b)
}

// sendByte writes the one-byte answer to SSLRequest and GSSEncRequest.
func (w *writer) sendByte(c byte) {
	w.commit(append(w.buf, c))
}

// rowDescription appends a RowDescription for cols. formats holds one code
// per column, or is nil for text throughout.
func (w *writer) rowDescription(cols []Column, formats []int16) {
	b, start := beginMessage(w.buf, 'T')
	b = binary.BigEndian.AppendUint16(b, uint16(len(cols)))
	for i, c := range cols {
		b = append(b, c.Name...)
		b = append(b, 0)
		b = binary.BigEndian.AppendUint32(b, c.TableOID)
		b = binary.BigEndian.AppendUint16(b, uint16(c.AttrNum))
		b = binary.BigEndian.AppendUint32(b, uint32(c.Type.OID()))
		b = binary.BigEndian.AppendUint16(b, uint16(c.Type.Size()))
		b = binary.BigEndian.AppendUint32(b, uint32(c.Type.WireMod()))
		b = binary.BigEndian.AppendUint16(b, uint16(formatOf(formats, i)))
	}
	w.commit(finishMessage(b, start))
}

// dataRow appends a DataRow holding row, each value encoded as its column's
// type in its column's format (see rowDescription). It allocates nothing
// once the buffer has grown to the size of a row.
func (w *writer) dataRow(row []types.Datum, cols []Column, formats []int16) error {
	if len(row) != len(cols) {
		return fmt.Errorf("row has %d values but the statement describes %d columns", len(row), len(cols))
	}
	b, start := beginMessage(w.buf, 'D')
	b, err := types.AppendTuple(b, row, func(b []byte, i int) ([]byte, error) {
		if formatOf(formats, i) == formatBinary {
			return types.EncodeBinary(b, cols[i].Type, row[i])
		}
		return types.FormatTextZone(b, cols[i].Type, row[i], w.zone), nil
	})
	if err != nil {
		return err
	}
	w.commit(finishMessage(b, start))
	return nil
}

// commit makes b, which extends the buffer by whole messages, the buffer.
func (w *writer) commit(b []byte) {
	w.buf = b
	if len(w.buf) >= flushThreshold {
		w.flush()
	}
}

// flush writes the buffered messages out.
func (w *writer) flush() {
	if w.err == nil && len(w.buf) > 0 {
		_, err := w.w.Write(w.buf)
		if err != nil {
			w.fail(err)
		}
	}
	if cap(w.buf) > maxRetainedBuffer {
		w.buf = nil
	}
	w.buf = w.buf[:0]
}

func (w *writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// formatOf returns the format code of column i.
func formatOf(formats []int16, i int) int16 {
	if formats == nil {
		return formatText
	}
	return formats[i]
}

// beginMessage appends a message header with a placeholder length.
func beginMessage(b []byte, typ byte) ([]byte, int) {
	start := len(b)
	return append(b, typ, 0, 0, 0, 0), start
}

// finishMessage fills in the length of the message begun at start.
func finishMessage(b []byte, start int) []byte {
	binary.BigEndian.PutUint32(b[start+1:], uint32(len(b)-start-1))
	return b
}
