package pgwire

import (
	"context"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// fakeHandler hands out fakeSessions. The fake understands a handful of
// statements, separated by ';':
//
//	select E::T[, E::T...]  one row; E is $n, null, 'quoted' or a bare literal
//	series N                N rows of int8 1..N in column n
//	fail CODE               the statement fails at Open with SQLSTATE CODE
//	failrow N               N rows, then an error 22012 from Next
//	set NAME VALUE          changes a reported parameter
//	begin|commit|rollback   moves the transaction status
//	sleep                   blocks until its context is cancelled (if enabled)
//	panic                   panics in Open (if enabled)
//	panicrow                panics in Next (if enabled)
//	copy N [binary]         COPY FROM STDIN of N columns, tagged with the bytes read
//	copyfail                COPY FROM STDIN that fails with 22P04 after a byte
//	write                   tagged "WRITE last" or "WRITE more" (LastBeforeSync)
//	syncfail                the session's next Sync fails with 40001
type fakeHandler struct {
	// sleeping receives the context of each sleep statement when it starts;
	// with a nil channel the fake rejects sleep.
	sleeping chan context.Context
	// allowPanic enables the panic statement.
	allowPanic bool

	mu       sync.Mutex
	sessions []*fakeSession
	opened   []*fakeRows
}

func (h *fakeHandler) Connect(ctx context.Context, params map[string]string) (Session, error) {
	if params["database"] == "nodb" {
		return nil, pgerror.New(pgerror.CodeInvalidCatalogName, "database %q does not exist", params["database"])
	}
	if InReservedSlot(ctx) && params["user"] != "super" {
		return nil, pgerror.New(pgerror.CodeTooManyConnections, "remaining connection slots are reserved for roles with the SUPERUSER attribute")
	}
	s := &fakeSession{h: h, tx: 'I', params: map[string]string{
		"client_encoding":             "UTF8",
		"standard_conforming_strings": "on",
		"DateStyle":                   "ISO, MDY",
		"application_name":            params["application_name"],
	}}
	h.mu.Lock()
	h.sessions = append(h.sessions, s)
	h.mu.Unlock()
	return s, nil
}

// checkReleased checks, once the server is closed, that every session was
// closed and every Rows closed exactly once.
func (h *fakeHandler) checkReleased(t testing.TB) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, s := range h.sessions {
		if !s.isClosed() {
			t.Errorf("session %d was not closed", i)
		}
	}
	for i, r := range h.opened {
		if r.closed != 1 {
			t.Errorf("rows %d (%q) closed %d times, want once", i, r.tag, r.closed)
		}
	}
}

func (h *fakeHandler) track(r *fakeRows) *fakeRows {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.opened = append(h.opened, r)
	return r
}

type fakeSession struct {
	h      *fakeHandler
	tx     byte
	params map[string]string
	// syncs counts the calls of Sync; syncErr is the next one's error.
	syncs   int
	syncErr error

	mu     sync.Mutex
	closed bool
}

func (s *fakeSession) Prepare(ctx context.Context, query string, paramTypes []types.OID) ([]Statement, error) {
	var out []Statement
	for text := range strings.SplitSeq(query, ";") {
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		st, err := s.parse(text, paramTypes)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

func (s *fakeSession) ParameterStatus() map[string]string { return s.params }
func (s *fakeSession) TxStatus() byte                     { return s.tx }

func (s *fakeSession) Sync(ctx context.Context) error {
	s.syncs++
	err := s.syncErr
	s.syncErr = nil
	return err
}

func (s *fakeSession) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

func (s *fakeSession) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

func (s *fakeSession) parse(text string, paramTypes []types.OID) (Statement, error) {
	verb, rest, _ := strings.Cut(text, " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(verb) {
	case "select":
		return parseSelect(s.h, rest, paramTypes)
	case "series", "failrow":
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 || n > 1000 {
			return nil, pgerror.New(pgerror.CodeSyntaxError, "bad row count %q", rest)
		}
		st := &fakeStmt{h: s.h, cols: []Column{{Name: "n", Type: types.TInt8}}, tag: "SELECT " + rest}
		for i := 1; i <= n; i++ {
			st.rows = append(st.rows, []types.Datum{types.NewInt(int64(i))})
		}
		if verb == "failrow" {
			st.rowErr = pgerror.New(pgerror.CodeDivisionByZero, "division by zero")
		}
		return st, nil
	case "fail":
		return &fakeStmt{h: s.h, openErr: pgerror.New(rest, "failed as asked").WithDetail("detail").WithHint("hint")}, nil
	case "set":
		name, value, _ := strings.Cut(rest, " ")
		return &fakeStmt{h: s.h, tag: "SET", apply: func() { s.params[name] = value }}, nil
	case "begin":
		return &fakeStmt{h: s.h, tag: "BEGIN", apply: func() { s.tx = 'T' }}, nil
	case "commit", "rollback":
		return &fakeStmt{h: s.h, tag: strings.ToUpper(verb), apply: func() { s.tx = 'I' }}, nil
	case "write":
		return &fakeStmt{h: s.h, openTag: func(ctx context.Context) string {
			if LastBeforeSync(ctx) {
				return "WRITE last"
			}
			return "WRITE more"
		}}, nil
	case "syncfail":
		return &fakeStmt{h: s.h, tag: "SYNCFAIL", apply: func() {
			s.syncErr = pgerror.New(pgerror.CodeSerializationFailure, "could not commit")
		}}, nil
	case "sleep":
		if s.h.sleeping != nil {
			return &fakeStmt{sleep: s.h.sleeping}, nil
		}
	case "copy", "copyfail":
		cols, format, _ := strings.Cut(rest, " ")
		n, _ := strconv.Atoi(cols)
		return &fakeStmt{h: s.h, copyCols: n, copyBinary: format == "binary", copyFails: verb == "copyfail"}, nil
	case "panic", "panicrow":
		if s.h.allowPanic {
			return &fakeStmt{h: s.h, panics: verb == "panic", rowPanics: verb == "panicrow"}, nil
		}
	}
	return nil, pgerror.New(pgerror.CodeSyntaxError, "syntax error at or near %q", verb).WithPosition(1)
}

// parseSelect parses the select list of the fake's select statement.
func parseSelect(h *fakeHandler, list string, paramTypes []types.OID) (Statement, error) {
	st := &fakeStmt{h: h, tag: "SELECT 1", rows: [][]types.Datum{nil}}
	var exprs []string
	for _, e := range splitList(list) {
		e = strings.TrimSpace(e)
		val, typeName, cast := strings.Cut(e, "::")
		val = strings.TrimSpace(val)
		t := types.TText
		if !cast {
			typeName = "?column?"
		} else if parsed, err := types.ParseTypeName(typeName); err != nil {
			return nil, err
		} else {
			t = parsed
		}
		if n, ok := strings.CutPrefix(val, "$"); ok {
			i, err := strconv.Atoi(n)
			if err != nil || i < 1 || i > 100 {
				return nil, pgerror.New(pgerror.CodeSyntaxError, "bad parameter %q", val)
			}
			for len(st.params) < i {
				st.params = append(st.params, types.TText)
			}
			if !cast && i <= len(paramTypes) && paramTypes[i-1] != 0 {
				t, _ = types.FromOID(paramTypes[i-1])
			}
			st.params[i-1] = t
			st.refs = append(st.refs, i)
		} else {
			st.refs = append(st.refs, 0)
		}
		st.cols = append(st.cols, Column{Name: strings.TrimSpace(typeName), Type: t})
		exprs = append(exprs, val)
	}
	st.literals = exprs
	return st, nil
}

// splitList splits a select list at the commas outside quotes.
func splitList(list string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(list); i++ {
		switch list[i] {
		case '\'':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, list[start:i])
				start = i + 1
			}
		}
	}
	return append(out, list[start:])
}

// fakeStmt is every statement of the fake; its fields say what it does.
type fakeStmt struct {
	h         *fakeHandler
	params    []types.T
	cols      []Column
	refs      []int    // select: 1-based parameter of each column, 0 for a literal
	literals  []string // select: the text of each column
	rows      [][]types.Datum
	tag       string
	openErr   error
	rowErr    error
	apply     func()
	openTag   func(context.Context) string
	sleep     chan context.Context
	panics    bool
	rowPanics bool
	// copy statements: the columns and format, and whether the copy fails.
	copyCols   int
	copyBinary bool
	copyFails  bool
}

func (st *fakeStmt) ParamTypes() []types.T { return st.params }
func (st *fakeStmt) Columns() []Column     { return st.cols }

func (st *fakeStmt) Open(ctx context.Context, params []types.Datum) (Rows, error) {
	switch {
	case st.panics:
		panic("fake session panics as asked")
	case st.openErr != nil:
		return nil, st.openErr
	case st.sleep != nil:
		st.sleep <- ctx
		<-ctx.Done()
		return nil, ctx.Err()
	case st.apply != nil:
		st.apply()
	}
	if st.copyCols > 0 || st.copyFails {
		return &fakeCopy{fakeRows: st.h.track(&fakeRows{}), cols: st.copyCols, binary: st.copyBinary, fails: st.copyFails}, nil
	}
	rows := st.rows
	if st.refs != nil {
		row := make([]types.Datum, len(st.refs))
		for i, ref := range st.refs {
			var err error
			if row[i], err = st.value(i, ref, params); err != nil {
				return nil, err
			}
		}
		rows = [][]types.Datum{row}
	}
	tag := st.tag
	if st.openTag != nil {
		tag = st.openTag(ctx)
	}
	return st.h.track(&fakeRows{rows: rows, tag: tag, err: st.rowErr, panics: st.rowPanics}), nil
}

func (st *fakeStmt) value(i, ref int, params []types.Datum) (types.Datum, error) {
	if ref > 0 {
		return params[ref-1], nil
	}
	lit := st.literals[i]
	if strings.EqualFold(lit, "null") {
		return types.Null, nil
	}
	if q, ok := strings.CutPrefix(lit, "'"); ok {
		lit = strings.ReplaceAll(strings.TrimSuffix(q, "'"), "''", "'")
	}
	return types.ParseText(st.cols[i].Type, lit)
}

type fakeRows struct {
	panics bool
	rows   [][]types.Datum
	tag    string
	err    error
	next   int
	closed int
}

func (r *fakeRows) Next(ctx context.Context) ([]types.Datum, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.panics {
		panic("fake rows panic as asked")
	}
	if r.next == len(r.rows) {
		if r.err != nil {
			return nil, r.err
		}
		return nil, nil
	}
	r.next++
	return r.rows[r.next-1], nil
}

func (r *fakeRows) Tag() string { return r.tag }
func (r *fakeRows) Close()      { r.closed++ }

// fakeCopy is a COPY FROM STDIN: it reads the data and counts its bytes.
type fakeCopy struct {
	*fakeRows
	cols   int
	binary bool
	fails  bool
}

func (c *fakeCopy) CopyFormat() (bool, int) { return c.binary, c.cols }

func (c *fakeCopy) CopyFrom(ctx context.Context, r io.Reader) error {
	if c.fails {
		if _, err := r.Read(make([]byte, 1)); err != nil {
			return err
		}
		return pgerror.New(pgerror.CodeBadCopyFileFormat, "bad copy data")
	}
	n, err := io.Copy(io.Discard, r)
	c.tag = "COPY " + strconv.FormatInt(n, 10)
	return err
}
