package pgwire

import (
	"time"

	"github.com/streamdb/streamdb/pgerror"
)

// StatementDone is a statement that ran to its end: its CommandComplete
// or its error. Options.OnStatement hears of each (metrics, logs).
type StatementDone struct {
	// User is the session's user, as the client's startup named it.
	User string
	// Text is the statement's SQL (StatementText), or "".
	Text string
	// Tag is the CommandComplete tag ("SELECT 3"); "" after an error.
	Tag string
	// Code is the error's SQLSTATE; "" on success.
	Code string
	// Duration runs from Open until the last row or the error.
	Duration time.Duration
}

// StatementText is implemented by a Statement that can tell its SQL text.
type StatementText interface {
	SQL() string
}

// statementDone tells opts.OnStatement, if set, that p's statement ended
// with tag or err.
func (c *conn) statementDone(p *portal, tag string, err error) {
	if c.srv.opts.OnStatement == nil || p.began.IsZero() {
		return
	}
	text := ""
	if t, ok := p.stmt.(StatementText); ok {
		text = t.SQL()
	}
	c.observe(text, p.began, tag, err)
}

// observe tells opts.OnStatement, if set, that the statement text begun
// at began ended with tag or err.
func (c *conn) observe(text string, began time.Time, tag string, err error) {
	fn := c.srv.opts.OnStatement
	if fn == nil {
		return
	}
	d := StatementDone{User: c.user, Text: text, Tag: tag, Duration: time.Since(began)}
	if err != nil {
		d.Code = pgerror.From(err).Code
	}
	fn(d)
}

// Connections returns the number of open connections and of every
// connection accepted since the server started.
func (s *Server) Connections() (open int, total uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns), s.accepted
}
