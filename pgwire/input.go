package pgwire

import (
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
