package pgwire

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/jackc/pgproto3/v2"
)

// safeReceive calls recv, a pgproto3 Backend's receive method. pgproto3
// decoders panic on some malformed input; that is reported as an error, like
// a decode error.
func safeReceive(recv func() (pgproto3.FrontendMessage, error)) (msg pgproto3.FrontendMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			msg, err = nil, fmt.Errorf("malformed message: %v", r)
		}
	}()
	msg, err = recv()
	if err != nil {
		return nil, err
	}
	return msg, nil
}

// inputReader records the first error of the socket, to tell a client that
// went away from one that sent garbage.
type inputReader struct {
	r   io.Reader
	err error
}

func (r *inputReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && r.err == nil {
		r.err = err
	}
	return n, err
}

// limitReader refuses messages longer than max bytes before they are
// buffered.
type limitReader struct {
	cr  pgproto3.ChunkReader
	max int
}

func (r *limitReader) Next(n int) ([]byte, error) {
	if n > r.max {
		return nil, fmt.Errorf("message of %d bytes exceeds the limit of %d bytes", n, r.max)
	}
	return r.cr.Next(n)
}

// bufferedReader is the ChunkReader of a connection's messages. It can
// tell whether the next message has already arrived and is Sync, so that
// an Execute knows its statement ends its implicit transaction.
type bufferedReader struct {
	r *bufio.Reader
}

func newBufferedReader(r io.Reader) *bufferedReader {
	return &bufferedReader{r: bufio.NewReaderSize(r, 16<<10)}
}

// Next implements pgproto3.ChunkReader: the bytes are valid until the next
// call. A message longer than the buffer grows as its bytes arrive, so that
// the memory it takes is what the client sent, not what it claimed.
func (b *bufferedReader) Next(n int) ([]byte, error) {
	if n > b.r.Size() {
		var buf bytes.Buffer
		_, err := io.CopyN(&buf, b.r, int64(n))
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return buf.Bytes(), err
	}
	buf, err := b.r.Peek(n)
	if err == io.EOF && len(buf) > 0 {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, err
	}
	_, err = b.r.Discard(n)
	return buf, err
}

// syncNext reports whether the next message has arrived and is Sync
// (without reading from the socket).
func (b *bufferedReader) syncNext() bool {
	if b.r.Buffered() == 0 {
		return false
	}
	head, _ := b.r.Peek(1)
	return head[0] == 'S'
}
