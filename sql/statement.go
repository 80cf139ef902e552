package sql

import (
	"context"
	"errors"
	"fmt"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// statement is a parsed statement bound against a catalog snapshot; it is
// re-bound when the catalog changed since (a cached prepared statement
// after DDL).
type statement struct {
	s        *Session
	parsed   *parser.Statement
	declared []types.T

	cat     *meta.Catalog
	role    uint32
	bindErr error
	// replicated marks a statement reading relations or the catalog
	// (planner.Binder.ReadsReplicated).
	replicated bool
	// live marks a statement reading streamdb_catalog relations, whose
	// rows bind computes: it is bound again for each execution.
	live bool
	// bound is set once a bind succeeded; from then on cols are the result
	// columns the client was told, which later binds must keep.
	bound  bool
	params []types.T
	cols   []pgwire.Column
	query  planner.Node // SELECT and set operations (COPY ... TO's query)
	dml    any          // *planner.Insert, *planner.Update or *planner.Delete
	// copyTo is a COPY ... TO STDOUT, whose query's columns are copyCols.
	copyTo   *parser.Copy
	copyCols []pgwire.Column
	// declare is a DECLARE, whose query's columns are declareCols.
	declare     *parser.Declare
	declareCols []pgwire.Column
	// subscribe is a SUBSCRIBE, alone, in COPY ... TO or in DECLARE.
	subscribe *parser.Subscribe
	// inQueryBlock marks a statement of a simple query of several, which
	// PostgreSQL runs as one implicit transaction block.
	inQueryBlock bool
}

var (
	_ pgwire.Statement     = (*statement)(nil)
	_ pgwire.StatementText = (*statement)(nil)
)

// SQL returns the statement's text.
func (st *statement) SQL() string { return st.parsed.SQL }

// bind binds the statement if the catalog or the session's role (whose
// privileges a bind checks) changed since it was last bound, or it reads
// the node's live figures.
func (st *statement) bind() error {
	cat, role := st.s.e.Meta.Catalog(), st.s.currentRole()
	if cat == st.cat && role == st.role && !st.live {
		return st.bindErr
	}
	prevCols := st.cols
	st.cat, st.role = cat, role
	st.bindErr = st.doBind(cat)
	if st.bindErr == nil && st.bound && !sameColumns(prevCols, st.cols) {
		st.bindErr = pgerror.New(pgerror.CodeFeatureNotSupported, "cached plan must not change result type").
			WithHint("Prepare the statement again.")
	}
	if st.bindErr != nil && st.bound {
		st.cols = prevCols
	}
	st.bound = st.bound || st.bindErr == nil
	return st.bindErr
}

func sameColumns(a, b []pgwire.Column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type {
			return false
		}
	}
	return true
}

func (st *statement) doBind(cat *meta.Catalog) (err error) {
	defer st.s.recoverInternal(&err)
	p := st.parsed
	st.query, st.dml, st.cols, st.copyTo, st.declare, st.subscribe = nil, nil, nil, nil, nil, nil
	node, numParams := p.AST, p.NumParams
	if x, ok := p.Utility.(*parser.Subscribe); ok {
		return st.bindSubscribe(cat, x)
	}
	if x, ok := p.Utility.(*parser.Copy); ok && x.To {
		q, err := parser.Parse(copyQuery(x))
		if err != nil {
			return err
		}
		if sub, ok := q[0].Utility.(*parser.Subscribe); ok && len(q) == 1 {
			st.copyTo = x
			return st.bindSubscribe(cat, sub)
		}
		if len(q) != 1 || q[0].AST == nil {
			return pgerror.New(pgerror.CodeSyntaxError, "COPY (query) TO takes one SELECT")
		}
		node, st.copyTo = q[0].AST, x
	}
	if x, ok := p.Utility.(*parser.Declare); ok {
		if x.Subscribe != nil {
			st.declare = x
			return st.bindSubscribe(cat, x.Subscribe)
		}
		node, numParams, st.declare = x.Query.AST, x.Query.NumParams, x
	}
	if node == nil {
		st.params = nil
		st.cols = utilityColumns(p.Utility)
		if f, ok := p.Utility.(*parser.Fetch); ok {
			// A FETCH returns its cursor's columns, whichever it is now.
			st.cols, st.live = st.s.cursorColumns(f), true
		}
		return nil
	}
	b := st.s.binder(cat, st.declared)
	b.SetNumParams(numParams)
	defer func() { st.live, st.replicated = b.ReadsStatus(), b.ReadsReplicated() }()
	switch n := node.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
		st.query, err = b.BindQuery(n)
		if err == nil {
			err = planner.CheckBatch(st.query)
		}
		if err == nil {
			st.cols = resultColumns(st.query.Columns())
		}
		switch {
		case st.copyTo != nil:
			// COPY describes no rows: they go out as copy data.
			st.cols, st.copyCols = nil, st.cols
		case st.declare != nil:
			st.cols, st.declareCols = nil, st.cols
		}
	case *ast.InsertStmt:
		var ins *planner.Insert
		if ins, err = b.BindInsert(n, p.Returning, p.Overriding); err == nil {
			st.dml, err = ins, st.checkDML(ins.Source, ins.Returning)
		}
	case *ast.UpdateStmt:
		var up *planner.Update
		if up, err = b.BindUpdate(n, p.Returning); err == nil {
			st.dml, err = up, st.checkDML(up.Source, up.Returning)
		}
	case *ast.DeleteStmt:
		var del *planner.Delete
		if del, err = b.BindDelete(n, p.Returning); err == nil {
			st.dml, err = del, st.checkDML(del.Source, del.Returning)
		}
	default:
		err = pgerror.New(pgerror.CodeFeatureNotSupported, "statement %T is not supported", n)
	}
	if err == nil && st.copyTo != nil && st.query == nil {
		err = pgerror.New(pgerror.CodeFeatureNotSupported, "COPY (query) TO takes a SELECT").
			WithHint("COPY of INSERT, UPDATE or DELETE ... RETURNING is not supported.")
	}
	if err != nil {
		return err
	}
	st.params = b.ParamTypes()
	return nil
}

// bindSubscribe binds SUBSCRIBE x, alone or in the COPY or DECLARE
// being bound.
func (st *statement) bindSubscribe(cat *meta.Catalog, x *parser.Subscribe) error {
	cols, err := st.s.bindSubscribe(cat, x)
	if err != nil {
		return err
	}
	st.subscribe, st.params = x, nil
	switch {
	case st.copyTo != nil:
		st.copyCols = cols
	case st.declare != nil:
		st.declareCols = cols
	default:
		st.cols = cols
	}
	return nil
}

// checkDML checks that a DML statement's source and RETURNING list
// (returning, nil if none) read what a batch may, and makes the list's
// columns the statement's result columns.
func (st *statement) checkDML(source planner.Node, returning *planner.Project) error {
	if err := planner.CheckBatch(source); err != nil || returning == nil {
		return err
	}
	st.cols = resultColumns(returning.Columns())
	return planner.CheckBatch(returning)
}

func resultColumns(cols []planner.Column) []pgwire.Column {
	out := make([]pgwire.Column, 0, len(cols))
	for _, c := range cols {
		out = append(out, pgwire.Column{Name: c.Name, Type: c.T, TableOID: c.TableID, AttrNum: c.Attr})
	}
	return out
}

// ParamTypes implements pgwire.Statement.
func (st *statement) ParamTypes() []types.T {
	if st.bind() != nil {
		return nil
	}
	return st.params
}

// Columns implements pgwire.Statement.
func (st *statement) Columns() []pgwire.Column {
	if st.bind() != nil {
		return nil
	}
	return st.cols
}

// Open implements pgwire.Statement.
func (st *statement) Open(ctx context.Context, params []types.Datum) (rows pgwire.Rows, err error) {
	s := st.s
	s.running(st.parsed.SQL)
	if s.tx == 'E' && !isTxEnd(st.parsed) {
		return nil, errAborted()
	}
	if s.tx == 'I' {
		// Outside a block each statement is a transaction of its own.
		s.vars.startTx(parser.TxModes{})
	}
	if cmd, ok := writeCommand(st.parsed); ok && s.vars.readOnly() {
		return nil, s.fail(pgerror.New(pgerror.CodeReadOnlySQLTransaction, "cannot execute %s in a read-only transaction", cmd))
	}
	ctx, cancel := s.vars.statementContext(ctx)
	// A query's rows outlive Open: they run until the client has them all
	// (Rows.Close ends the statement's context then).
	defer func() {
		if _, streamed := rows.(interface{ streams() }); !streamed {
			cancel()
		}
	}()
	// What any node acknowledged before this statement began is visible
	// to it: catalog changes and committed epochs. Cut off from the
	// majority, this node serves only what reads none of them (SHOW NODES,
	// its own figures), so that nothing stale is ever returned.
	if err := s.e.Meta.Sync(ctx); err != nil {
		if err != meta.ErrNoQuorum || !st.servedWithoutQuorum() {
			return nil, s.fail(statementTimedOut(ctx, err, false))
		}
	}
	cmd, ddl := catalogChange(st.parsed)
	if ddl && s.tx != 'I' {
		// Catalog changes commit through Raft when they run: they cannot
		// join a transaction block.
		return nil, s.fail(pgerror.New(pgerror.CodeActiveSQLTransaction, "%s cannot run inside a transaction block", cmd).
			WithHint("Catalog changes commit on their own in streamdb: run it after COMMIT or ROLLBACK (with psycopg2, set autocommit = True; with JDBC, setAutoCommit(true))."))
	}
	if _, flush := st.parsed.Utility.(*parser.Flush); (ddl || flush) && s.tx == 'I' {
		// In an implicit transaction they commit its writes first: DDL
		// commits on its own, FLUSH waits for what came before it. The
		// cursors of a multi-statement query live on to its end.
		if err := s.commitWrites(ctx); err != nil {
			return nil, s.fail(err)
		}
	}
	rows, err = st.run(ctx, cancel, params)
	if err != nil {
		return nil, s.fail(statementTimedOut(ctx, err, st.dml != nil))
	}
	return rows, nil
}

// run runs the statement under ctx, which cancel ends; a query's rows
// stream from a goroutine of their own and end ctx when closed.
func (st *statement) run(ctx context.Context, cancel context.CancelFunc, params []types.Datum) (_ pgwire.Rows, err error) {
	defer st.s.recoverInternal(&err)
	if err := st.bind(); err != nil {
		return nil, err
	}
	if st.subscribe != nil && st.declare == nil {
		r, err := st.s.subscribe(ctx, st.subscribe, cancel)
		if err != nil || st.copyTo == nil {
			return r, err
		}
		return newCopyOut(r, st.copyTo, st.copyCols, st.s.vars.zone()), nil
	}
	if st.query == nil && st.dml == nil && st.declare == nil {
		return st.s.runUtility(ctx, st.parsed)
	}
	if st.declare != nil {
		return st.s.declare(ctx, st, params)
	}
	if st.query != nil {
		rows := st.stream(ctx, cancel, params)
		if st.copyTo != nil {
			return newCopyOut(rows, st.copyTo, st.copyCols, st.s.vars.zone()), nil
		}
		return rows, nil
	}
	c := st.s.newCtx(ctx, params)
	out := newReturned(st.dml)
	n, err := st.s.write(c, st.dml, out, func() *dmlRequest {
		return &dmlRequest{SQL: st.parsed.SQL, ParamOIDs: paramOIDs(st.params), Params: types.AppendRow(nil, params)}
	})
	if err != nil {
		return nil, err
	}
	var tag string
	switch st.dml.(type) {
	case *planner.Insert:
		tag = fmt.Sprintf("INSERT 0 %d", n)
	case *planner.Update:
		tag = fmt.Sprintf("UPDATE %d", n)
	default:
		tag = fmt.Sprintf("DELETE %d", n)
	}
	return &memRows{tag: tag, rows: out.result()}, nil
}

// stream starts the statement's query under ctx, which cancel ends, over
// the snapshot the statement starts with.
func (st *statement) stream(ctx context.Context, cancel context.CancelFunc, params []types.Datum) *streamedRows {
	c := st.s.newCtx(ctx, params)
	env := &exec.Env{Engine: st.s.e.reader, Epoch: st.s.e.ReadEpoch(), NoPushdown: st.s.vars.values["scan_pushdown"] == "off", Overlay: st.s.txn.overlay()}
	c.Context = exec.WithEnv(ctx, env)
	return st.s.stream(c, cancel, planner.Build(st.query, env))
}

// write runs a bound INSERT, UPDATE, DELETE or COPY (plan) and returns
// its row count; out collects the rows of its RETURNING list. Alone in its implicit transaction it is a transaction of
// its own, run on the node that writes its table (forwarded there with
// the request forward makes); otherwise it joins the session's
// transaction.
func (s *Session) write(c *expr.Ctx, plan any, out *returned, forward func() *dmlRequest) (n int64, err error) {
	e, ctx := s.e, c.Context
	node := e.writer(dmlTable(plan))
	if s.tx != 'I' || !s.txn.empty() || !pgwire.LastBeforeSync(ctx) {
		if node != e.Meta.NodeID() {
			return 0, pgerror.New(pgerror.CodeFeatureNotSupported, "a transaction cannot write table %q yet: node %s writes it, and transactions write the tables of their own node", dmlTable(plan).Name, node).
				WithHint("Connect to node %s for this transaction, or write the table outside a transaction block (one statement per query or Sync).", node)
		}
		if s.txn == nil {
			s.txn = e.newBlock(s.pid)
		}
		n, err = s.txn.write(c, plan, out)
		s.lastCount = n
		return n, err
	}
	if node != e.Meta.NodeID() {
		n, s.lastEpoch, err = e.forwardDML(ctx, node, forward(), out)
	} else {
		// A write a recovery rolled back was not applied: run it again.
		for attempt := 0; ; attempt++ {
			n, s.lastEpoch, err = e.runDML(c, plan, out)
			if !errors.Is(err, errRolledBack{}) || attempt == maxWriteRetries {
				break
			}
		}
	}
	s.lastCount = n
	if err == nil {
		err = s.waitDurable(ctx, s.lastEpoch)
	}
	return n, err
}

// catalogChange returns the command name of a statement that changes the
// catalog (DDL).
func catalogChange(p *parser.Statement) (string, bool) {
	if _, copy := p.Utility.(*parser.Copy); copy || p.Utility == nil {
		return "", false
	}
	return writeCommand(p)
}

// servedWithoutQuorum reports whether the statement may run on a node cut
// off from the Raft majority: it writes nothing and reads neither relations
// nor the catalog.
func (st *statement) servedWithoutQuorum() bool {
	if _, write := writeCommand(st.parsed); write {
		return false
	}
	_, declare := st.parsed.Utility.(*parser.Declare)
	_, subscribe := st.parsed.Utility.(*parser.Subscribe)
	if st.parsed.AST == nil && !declare && !subscribe {
		return true // SET, SHOW of settings, transaction control, FETCH
	}
	return st.bind() == nil && !st.replicated
}

// writeCommand returns the command name of a statement that writes (DML,
// COPY FROM, DDL), which a read-only transaction refuses.
func writeCommand(p *parser.Statement) (string, bool) {
	switch p.AST.(type) {
	case *ast.InsertStmt:
		return "INSERT", true
	case *ast.UpdateStmt:
		return "UPDATE", true
	case *ast.DeleteStmt:
		return "DELETE", true
	}
	switch x := p.Utility.(type) {
	case *parser.CreateSource:
		return "CREATE SOURCE", true
	case *parser.CreateSink:
		return "CREATE SINK", true
	case *parser.CreateTable:
		return "CREATE TABLE", true
	case *parser.CreateView:
		if x.Materialized {
			return "CREATE MATERIALIZED VIEW", true
		}
		return "CREATE VIEW", true
	case *parser.CreateIndex:
		return "CREATE INDEX", true
	case *parser.CreateSchema:
		return "CREATE SCHEMA", true
	case *parser.CreateRole:
		return "CREATE ROLE", true
	case *parser.AlterRole:
		return "ALTER ROLE", true
	case *parser.DropRole:
		return "DROP ROLE", true
	case *parser.CreateSubscription:
		return "CREATE SUBSCRIPTION", true
	case *parser.CreateFunction:
		return "CREATE FUNCTION", true
	case *parser.DropFunction:
		return "DROP FUNCTION", true
	case *parser.CreateTableAs:
		return "CREATE TABLE AS", true
	case *parser.AlterRename:
		return "ALTER " + x.Kind, true
	case *parser.AlterRenameColumn:
		return "ALTER " + x.Kind, true
	case *parser.AlterColumns:
		return "ALTER TABLE", true
	case *parser.Comment:
		return "COMMENT", true
	case *parser.DropObject:
		return "DROP " + x.Kind, true
	case *parser.AlterParallelism:
		return "ALTER " + x.Kind, true
	case *parser.AlterSystem, *parser.RemoveNode, *parser.Rebalance:
		return "ALTER SYSTEM", true
	case *parser.Grant:
		if x.Revoke {
			return "REVOKE", true
		}
		return "GRANT", true
	case *parser.AlterOwner:
		return "ALTER " + x.Kind, true
	case *parser.Copy:
		return "COPY FROM", !x.To
	}
	return "", false
}
