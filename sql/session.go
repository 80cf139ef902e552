package sql

import (
	"context"
	"errors"
	"runtime/debug"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// DatabaseName is the one database streamdb serves.
const DatabaseName = "streamdb"

// Connect implements pgwire.Handler.
func (e *Engine) Connect(ctx context.Context, params map[string]string) (pgwire.Session, error) {
	user := params["user"]
	if user == "" {
		user = "streamdb"
	}
	db := params["database"]
	if db == "" {
		db = user
	}
	if db != DatabaseName {
		return nil, pgerror.New(pgerror.CodeInvalidCatalogName, "database %q does not exist", db).
			WithHint("streamdb serves one database: connect to database %q.", DatabaseName)
	}
	cat := e.Meta.Catalog()
	role, err := loginRole(cat, user)
	if err != nil {
		return nil, err
	}
	superuser := cat.IsSuperuser(role)
	if !superuser && pgwire.InReservedSlot(ctx) {
		return nil, pgerror.New(pgerror.CodeTooManyConnections, "remaining connection slots are reserved for roles with the SUPERUSER attribute")
	}
	pid, _ := pgwire.BackendPID(ctx)
	s := &Session{e: e, user: user, login: role, pid: int32(pid), vars: newVars(params, e.opts.Version, user, superuser), tx: 'I'}
	s.register(pgwire.RemoteAddr(ctx))
	return s, nil
}

// Session is one client connection's SQL state.
type Session struct {
	e    *Engine
	user string
	// login is the oid of the session user's role (see loginRole);
	// currentRole the one whose privileges the session has.
	login uint32
	// pid is the process ID of the session's connection.
	pid  int32
	vars *vars
	// tx is the transaction status: 'I' idle, 'T' in a block, 'E' failed block.
	tx byte
	// txn holds the writes of the transaction block, or of the implicit
	// transaction of the statements since the last Sync; nil if none.
	txn *txn
	// act is what pg_stat_activity shows of the session.
	act activity
	// lastCount and lastEpoch are the row count of the session's last
	// write and the epoch that committed it.
	lastCount int64
	lastEpoch uint64
	// cursors are the session's open cursors by name (DECLARE).
	cursors map[string]*cursor
	// seqs are currval's and lastval's values.
	seqs seqState
}

var (
	_ pgwire.Session = (*Session)(nil)
	_ expr.Backend   = (*Session)(nil)
)

// BackendPID implements expr.Backend.
func (s *Session) BackendPID() int32 { return s.pid }

// SignalBackend implements expr.Backend: it cancels the statement of, or
// terminates, a connection of this node's server: one of the session's
// own role, or any but a superuser's if the session's role is a
// superuser, as in PostgreSQL.
func (s *Session) SignalBackend(pid int32, terminate bool) (bool, error) {
	b := s.e.backends.Load()
	if b == nil || pid <= 0 {
		return false, nil
	}
	if v, ok := s.e.sessions.Load(pid); ok {
		target := v.(*Session)
		cat := s.e.Meta.Catalog()
		what := map[bool]string{false: "cancel query", true: "terminate process"}[terminate]
		switch {
		case cat.IsSuperuser(target.login) && !cat.IsSuperuser(s.currentRole()):
			return false, pgerror.New(pgerror.CodeInsufficientPrivilege, "permission denied to %s", what).
				WithDetail("Only roles with the SUPERUSER attribute may signal processes of superusers.")
		case target.login != s.currentRole() && !cat.IsSuperuser(s.currentRole()):
			return false, pgerror.New(pgerror.CodeInsufficientPrivilege, "permission denied to %s", what).
				WithDetail("Only roles with privileges of the role whose process is being signaled may signal it.")
		}
	}
	if terminate {
		return (*b).TerminateBackend(uint32(pid), nil), nil
	}
	return (*b).CancelBackend(uint32(pid)), nil
}

// Prepare implements pgwire.Session. As in PostgreSQL, an error aborts
// the transaction block, and in an aborted block a lone statement other
// than COMMIT or ROLLBACK is refused here already.
func (s *Session) Prepare(ctx context.Context, query string, paramTypes []types.OID) ([]pgwire.Statement, error) {
	stmts, err := s.prepare(ctx, query, paramTypes)
	return stmts, s.fail(err)
}

func (s *Session) prepare(ctx context.Context, query string, paramTypes []types.OID) (_ []pgwire.Statement, err error) {
	defer s.recoverInternal(&err)
	parsed, err := parser.Parse(query)
	if err != nil {
		return nil, err
	}
	declared := make([]types.T, len(paramTypes))
	for i, oid := range paramTypes {
		if oid == 0 {
			declared[i] = types.TUnknown
			continue
		}
		t, ok := types.FromOID(oid)
		if !ok {
			return nil, pgerror.New(pgerror.CodeUndefinedObject, "type with OID %d does not exist", oid)
		}
		declared[i] = t
	}
	out := make([]pgwire.Statement, len(parsed))
	for i, p := range parsed {
		st := &statement{s: s, parsed: p, declared: declared, inQueryBlock: len(parsed) > 1}
		if len(parsed) == 1 {
			if s.tx == 'E' && !isTxEnd(p) {
				return nil, errAborted()
			}
			// A lone statement (the extended protocol) is bound now, so that
			// Parse reports unknown tables and infers parameter types. A
			// relation created through another node a moment ago may not
			// have reached this node's catalog yet: bind again once it has.
			if err := st.bind(); err != nil {
				if serr := s.e.Meta.Sync(ctx); serr != nil && serr != meta.ErrNoQuorum {
					return nil, serr
				}
				if err := st.bind(); err != nil {
					return nil, err
				}
			}
		}
		out[i] = st
	}
	return out, nil
}

// ParameterStatus implements pgwire.Session.
func (s *Session) ParameterStatus() map[string]string { return s.vars.reported() }

// TxStatus implements pgwire.Session.
func (s *Session) TxStatus() byte { return s.tx }

// Sync implements pgwire.Session: it commits the writes of the implicit
// transaction, if any.
func (s *Session) Sync(ctx context.Context) error {
	defer s.idle()
	if s.tx != 'I' {
		return nil
	}
	return s.commit(ctx)
}

// commit commits the session's transaction: its WITH HOLD cursors read
// their rows, the others close, and its writes commit (commitWrites).
func (s *Session) commit(ctx context.Context) error {
	if err := s.commitCursors(ctx); err != nil {
		return err
	}
	return s.commitWrites(ctx)
}

// commitWrites puts the transaction's writes in one epoch and returns once
// that epoch is committed (and durable, as synchronous_commit asks).
func (s *Session) commitWrites(ctx context.Context) error {
	tx := s.txn
	s.txn = nil
	if tx.empty() {
		return nil
	}
	epoch, err := tx.commit(ctx)
	if errors.Is(err, errRolledBack{}) {
		return pgerror.New(pgerror.CodeSerializationFailure, "could not serialize access: a recovery of the cluster rolled the transaction back").
			WithHint("Nothing of it was applied: run the transaction again.")
	}
	if err != nil {
		return err
	}
	s.lastEpoch = epoch
	return s.waitDurable(ctx, epoch)
}

// rollback drops the writes and closes the cursors of the session's
// transaction.
func (s *Session) rollback() {
	s.closeCursors(notHeld)
	if s.txn != nil {
		s.txn.discard()
		s.txn = nil
	}
}

// Close implements pgwire.Session: a transaction still open is rolled
// back.
func (s *Session) Close() {
	s.rollback()
	s.closeCursors(anyCursor)
	s.unregister()
}

// fail records a statement error: it rolls back the transaction; inside a
// transaction block the block is aborted until ROLLBACK, as in
// PostgreSQL.
func (s *Session) fail(err error) error {
	if err == nil {
		return nil
	}
	s.rollback()
	if s.tx == 'T' {
		s.tx = 'E'
	}
	if err == context.Canceled {
		return pgerror.New(pgerror.CodeQueryCanceled, "canceling statement due to user request")
	}
	return err
}

// recoverInternal turns a panic in the statement being handled into an
// ERROR with SQLSTATE XX000, as PostgreSQL reports its internal errors: the
// client's session stays usable (a transaction block is aborted by fail)
// and no other session notices. Deferred at each entry point of statement
// work: parsing, binding, running and COPY.
func (s *Session) recoverInternal(errp *error) {
	if r := recover(); r != nil {
		s.e.opts.Logger.Error("internal error", "panic", r, "stack", string(debug.Stack()))
		*errp = pgerror.New(pgerror.CodeInternal, "internal error: %v", r)
	}
}

func errAborted() error {
	return pgerror.New(pgerror.CodeInFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block")
}

func isTxEnd(p *parser.Statement) bool {
	tc, ok := p.Utility.(*parser.TxControl)
	return ok && (tc.Op == "COMMIT" || tc.Op == "ROLLBACK")
}

// waitDurable returns, for a session whose synchronous_commit asks that
// writes survive the loss of their node (remote, remote_write or
// remote_apply), once a durable checkpoint in shared storage holds the
// epoch of its write; at once otherwise.
func (s *Session) waitDurable(ctx context.Context, epoch uint64) error {
	switch s.vars.values["synchronous_commit"] {
	case "remote", "remote_write", "remote_apply":
		return s.e.stream.WaitDurable(ctx, epoch)
	}
	return nil
}
