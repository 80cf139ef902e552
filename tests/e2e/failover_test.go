package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/tests/testkit"
)

// failoverTables are the tables the writers of the failover tests insert
// into; their names spread their writers over the nodes.
var failoverTables = []string{"fa", "fb", "fc", "fd"}

// TestClusterLeaderFailover kills the Raft leader with kill -9 ten times
// while clients on the other nodes run DDL and DML, restarting it a few
// seconds later, then kills and restarts a follower three times. Every
// acknowledged row is then present once and no row that was never sent
// is; each table's view equals its batch query; and the history of the
// catalog operations (views created, dropped and listed) is linearizable.
// It logs the time from each kill to a survivor serving DDL and from each
// restart to the next committed write.
func TestClusterLeaderFailover(t *testing.T) {
	nodes := startCluster(t, 3)
	setupFailoverTables(t, nodes[0])
	load := startClusterLoad(t, nodes)
	probes := 0
	for _, phase := range []struct {
		victim string
		rounds int
	}{{"leader", 10}, {"follower", 3}} {
		var served, restarted, committed []time.Duration
		for round := range phase.rounds {
			time.Sleep(time.Second)
			victim := load.leader(t)
			if phase.victim == "follower" {
				victim = (victim + 1 + round%2) % len(nodes)
			}
			load.setDown(victim, true)
			killed := time.Now()
			nodes[victim].kill()
			served = append(served, load.probeDDL(t, phase.victim, round, victim))
			time.Sleep(time.Until(killed.Add(3 * time.Second)))
			start := time.Now()
			nodes[victim].restart(t)
			restarted = append(restarted, time.Since(start))
			probes++
			committed = append(committed, load.probeWrite(t, victim, probes))
			load.setDown(victim, false)
			t.Logf("round %d: killed %s n%d; a survivor served DDL after %v; restarted in %v, its next write committed %v later",
				round+1, phase.victim, victim+1, served[round].Round(time.Millisecond), restarted[round].Round(time.Millisecond), committed[round].Round(time.Millisecond))
		}
		t.Logf("%s killed: to a survivor serving DDL %s; restart to ready %s; ready to the next committed write %s",
			phase.victim, durationSummary(served), durationSummary(restarted), durationSummary(committed))
	}
	time.Sleep(time.Second)
	load.stop()
	load.check(t, nodes)
}

// durationSummary is "p50 X, max Y" of ds.
func durationSummary(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("p50 %v, max %v", s[len(s)/2].Round(time.Millisecond), s[len(s)-1].Round(time.Millisecond))
}

// setupFailoverTables creates the failover tables and a view over each.
func setupFailoverTables(t *testing.T, n *clusterNode) {
	t.Helper()
	conn := connect(t, n.addr, pgx.QueryExecModeSimpleProtocol)
	defer conn.Close(context.Background())
	for _, tb := range failoverTables {
		for _, q := range []string{
			fmt.Sprintf("CREATE TABLE %s (id BIGINT PRIMARY KEY, w INT)", tb),
			fmt.Sprintf("CREATE MATERIALIZED VIEW %s_sum AS SELECT w, count(*) AS n, sum(id) AS s FROM %s GROUP BY w", tb, tb),
			fmt.Sprintf("CREATE MATERIALIZED VIEW %s_ids AS SELECT id, w FROM %s", tb, tb),
		} {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			_, err := conn.Exec(ctx, q)
			cancel()
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
}

// clusterLoad runs writers and DDL clients against the live nodes of a
// cluster and records what they were told.
type clusterLoad struct {
	nodes  []*clusterNode
	begin  time.Time
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	down map[int]bool
	// acked, refused and unknown are the ids of rows whose INSERT was
	// acknowledged, refused before it ran (57P03: no quorum), or of
	// unknown outcome (the connection broke or the statement failed), by
	// table; seen counts the writers' outcomes by SQLSTATE.
	acked, refused, unknown map[string]map[int64]bool
	seen                    map[string]int
	// outcomes says, for each row id, when its INSERT ended and how.
	outcomes map[int64]string
	// history are the catalog operations, and names the views created.
	history []porcupine.Operation
	names   []string
}

func startClusterLoad(t *testing.T, nodes []*clusterNode) *clusterLoad {
	ctx, cancel := context.WithCancel(context.Background())
	l := &clusterLoad{nodes: nodes, begin: time.Now(), cancel: cancel, down: map[int]bool{},
		acked: map[string]map[int64]bool{}, refused: map[string]map[int64]bool{}, unknown: map[string]map[int64]bool{}, seen: map[string]int{}, outcomes: map[int64]string{}}
	for _, tb := range failoverTables {
		l.acked[tb], l.refused[tb], l.unknown[tb] = map[int64]bool{}, map[int64]bool{}, map[int64]bool{}
	}
	for w := range 4 {
		l.wg.Go(func() { l.write(ctx, w) })
	}
	for c := range 2 {
		l.wg.Go(func() { l.ddl(ctx, c) })
	}
	return l
}

func (l *clusterLoad) stop() {
	l.cancel()
	l.wg.Wait()
}

func (l *clusterLoad) setDown(i int, down bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.down[i] = down
}

// now is the time since the load began, porcupine's clock.
func (l *clusterLoad) now() int64 { return int64(time.Since(l.begin)) }

// conn connects to a random live node, retrying until ctx ends.
func (l *clusterLoad) conn(ctx context.Context, rng *rand.Rand) (*pgx.Conn, error) {
	for ctx.Err() == nil {
		l.mu.Lock()
		var live []int
		for i := range l.nodes {
			if !l.down[i] {
				live = append(live, i)
			}
		}
		l.mu.Unlock()
		i := live[rng.IntN(len(live))]
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		conn, err := pgx.Connect(cctx, testkit.ConnString(l.nodes[i].addr)+"&default_query_exec_mode=simple_protocol")
		cancel()
		if err == nil {
			return conn, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil, ctx.Err()
}

// write inserts rows with ids of its own into the failover tables, one
// INSERT at a time, reconnecting when its node goes away.
func (l *clusterLoad) write(ctx context.Context, w int) {
	rng := rand.New(rand.NewPCG(uint64(w), 7))
	var conn *pgx.Conn
	for n := int64(0); ctx.Err() == nil; n++ {
		if conn == nil {
			var err error
			if conn, err = l.conn(ctx, rng); err != nil {
				return
			}
		}
		tb := failoverTables[rng.IntN(len(failoverTables))]
		id := int64(w)<<32 | n
		sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		_, err := conn.Exec(sctx, fmt.Sprintf("INSERT INTO %s VALUES ($1, $2)", tb), id, w)
		cancel()
		l.record(tb, id, err)
		if err != nil {
			conn.Close(context.Background())
			conn = nil
		}
	}
	if conn != nil {
		conn.Close(context.Background())
	}
}

// record files the outcome of inserting row id into table tb.
func (l *clusterLoad) record(tb string, id int64, err error) {
	var pe *pgconn.PgError
	l.mu.Lock()
	defer l.mu.Unlock()
	l.outcomes[id] = fmt.Sprintf("%v after the start: %v", time.Since(l.begin).Round(time.Millisecond), err)
	switch {
	case err == nil:
		l.acked[tb][id] = true
		l.seen["ok"]++
	case errors.As(err, &pe) && pe.Code == "57P03":
		l.refused[tb][id] = true
		l.seen[pe.Code]++
	case errors.As(err, &pe) && pe.Code == "XX000":
		l.unknown[tb][id] = true
		l.seen[pe.Code+" "+pe.Message]++
	case errors.As(err, &pe):
		l.unknown[tb][id] = true
		l.seen[pe.Code]++
	default:
		l.unknown[tb][id] = true
		l.seen["connection lost"]++
	}
}

// outcome describes what the INSERT of row id into tb was told.
func (l *clusterLoad) outcome(tb string, id int64) string {
	return fmt.Sprintf("acknowledged %v, refused %v, unknown %v; it ended %s", l.acked[tb][id], l.refused[tb][id], l.unknown[tb][id], l.outcomes[id])
}

// catalogOp is a catalog operation of the history: create or drop of a
// view, or a listing of the views.
type catalogOp struct {
	kind string // "create", "drop" or "list"
	name string
}

// Outcomes of catalog operations.
const (
	outOK      = "ok"
	outExists  = "exists"
	outMissing = "missing"
	outUnknown = "unknown"
)

// ddl creates views (mostly plain, some materialized), drops them, tries
// to create existing ones again, and lists them, recording each operation
// with its outcome.
func (l *clusterLoad) ddl(ctx context.Context, c int) {
	rng := rand.New(rand.NewPCG(uint64(c), 11))
	var conn *pgx.Conn
	for n := 0; ctx.Err() == nil; n++ {
		if conn == nil {
			var err error
			if conn, err = l.conn(ctx, rng); err != nil {
				return
			}
		}
		l.mu.Lock()
		var existing string
		if len(l.names) > 0 {
			existing = l.names[rng.IntN(len(l.names))]
		}
		l.mu.Unlock()
		op, sql := catalogOp{kind: "create", name: fmt.Sprintf("dv_%d_%d", c, n)}, ""
		switch r := rng.IntN(10); {
		case r < 4 || existing == "":
			sql = "CREATE VIEW " + op.name + " AS SELECT 1 AS x"
		case r < 5:
			op.name = strings.Replace(op.name, "dv", "dm", 1)
			sql = "CREATE MATERIALIZED VIEW " + op.name + " AS SELECT w, count(*) FROM fa GROUP BY w"
		case r < 6:
			op.name, sql = existing, "CREATE VIEW "+existing+" AS SELECT 1 AS x"
		case r < 8:
			op = catalogOp{kind: "drop", name: existing}
			sql = "DROP VIEW " + existing
			if strings.HasPrefix(existing, "dm") {
				sql = "DROP MATERIALIZED VIEW " + existing
			}
		default:
			op = catalogOp{kind: "list"}
		}
		call := l.now()
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		var out any
		var err error
		if op.kind == "list" {
			var names []string
			names, err = listViews(sctx, conn)
			out = names
		} else {
			_, err = conn.Exec(sctx, sql)
			out = catalogOutcome(op.kind, err)
		}
		cancel()
		ret := l.now()
		if err != nil && (op.kind == "list" || out == outUnknown) {
			// The outcome is unknown: the operation may take effect at any
			// time after its call.
			ret, out = 1<<62, outUnknown
			conn.Close(context.Background())
			conn = nil
		}
		l.mu.Lock()
		if op.kind == "create" && !slices.Contains(l.names, op.name) {
			l.names = append(l.names, op.name)
		}
		if op.kind != "list" || out != outUnknown {
			l.history = append(l.history, porcupine.Operation{ClientId: c, Input: op, Call: call, Output: out, Return: ret})
		}
		l.mu.Unlock()
	}
	if conn != nil {
		conn.Close(context.Background())
	}
}

// catalogOutcome classifies a create's or drop's error.
func catalogOutcome(kind string, err error) string {
	var pe *pgconn.PgError
	switch {
	case err == nil:
		return outOK
	case !errors.As(err, &pe):
		return outUnknown
	case kind == "create" && pe.Code == "42P07":
		return outExists
	case kind == "drop" && pe.Code == "42P01":
		return outMissing
	}
	return outUnknown
}

// listViews returns the names of the views the DDL clients made.
func listViews(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	rows, err := conn.Query(ctx, `SELECT relname FROM pg_class WHERE relname LIKE 'dv\_%' OR relname LIKE 'dm\_%'`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// leader returns the index of the current Raft leader, as a live node
// reports it.
func (l *clusterLoad) leader(t *testing.T) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for i, n := range l.nodes {
			l.mu.Lock()
			down := l.down[i]
			l.mu.Unlock()
			if down {
				continue
			}
			conn := connect(t, n.addr, pgx.QueryExecModeSimpleProtocol)
			var id string
			err := conn.QueryRow(context.Background(), "SELECT id FROM streamdb_catalog.nodes WHERE role = 'leader'").Scan(&id)
			conn.Close(context.Background())
			if err == nil {
				var k int
				if _, err := fmt.Sscanf(id, "n%d", &k); err == nil {
					return k - 1
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("no node reports a leader for 30 s")
	return 0
}

// probeDDL creates views on a survivor of the killed node until one
// succeeds and returns the time that took from now.
func (l *clusterLoad) probeDDL(t *testing.T, victim string, round, killed int) time.Duration {
	t.Helper()
	start := time.Now()
	survivor := l.nodes[(killed+1)%len(l.nodes)]
	for attempt := 0; ; attempt++ {
		if time.Since(start) > 60*time.Second {
			t.Fatalf("no DDL succeeded on n%d for 60 s after the %s was killed", (killed+1)%len(l.nodes)+1, victim)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, err := pgx.Connect(ctx, testkit.ConnString(survivor.addr))
		if err == nil {
			_, err = conn.Exec(ctx, fmt.Sprintf("CREATE VIEW probe_%s_%d_%d AS SELECT 1 AS x", victim, round, attempt))
			conn.Close(context.Background())
		}
		cancel()
		if err == nil {
			return time.Since(start)
		}
	}
}

// probeWrite inserts rows through node i until one is acknowledged (its
// epoch committed) and returns the time that took.
func (l *clusterLoad) probeWrite(t *testing.T, i, round int) time.Duration {
	t.Helper()
	start := time.Now()
	for k := int64(0); ; k++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		conn, err := pgx.Connect(ctx, testkit.ConnString(l.nodes[i].addr))
		if err == nil {
			id := int64(100+round)<<32 | k
			_, err = conn.Exec(ctx, "INSERT INTO fa VALUES ($1, -1)", id)
			l.record("fa", id, err)
			conn.Close(context.Background())
		}
		cancel()
		if err == nil {
			return time.Since(start)
		}
		if time.Since(start) > 60*time.Second {
			t.Fatalf("no write through n%d committed for 60 s: %v", i+1, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// check verifies, once the load stopped: every acknowledged row present
// once on every node, no row that was not sent, each table's view equal
// to its batch query, and a linearizable catalog history.
func (l *clusterLoad) check(t *testing.T, nodes []*clusterNode) {
	t.Helper()
	ctx := context.Background()
	for i, n := range nodes {
		conn := connect(t, n.addr, pgx.QueryExecModeSimpleProtocol)
		if _, err := conn.Exec(ctx, "FLUSH"); err != nil {
			t.Fatal(err)
		}
		for _, tb := range failoverTables {
			ids := map[int64]int{}
			for _, r := range rowsOf(t, conn, "SELECT id FROM "+tb) {
				var id int64
				fmt.Sscan(r, &id)
				ids[id]++
			}
			lost, extra, twice := 0, 0, 0
			for id := range l.acked[tb] {
				if ids[id] == 0 {
					lost++
				}
			}
			for id, k := range ids {
				if k > 1 {
					twice++
				}
				if !l.acked[tb][id] && !l.unknown[tb][id] {
					extra++
				}
			}
			if lost+extra+twice > 0 {
				t.Errorf("table %s read from n%d: %d acknowledged rows missing, %d rows never sent or refused, %d rows twice", tb, i+1, lost, extra, twice)
			}
			if i == 0 {
				t.Logf("table %s: %d rows acknowledged, %d refused, %d of unknown outcome, %d present", tb, len(l.acked[tb]), len(l.refused[tb]), len(l.unknown[tb]), len(ids))
			}
			want := rowsOf(t, conn, fmt.Sprintf("SELECT w, count(*) AS n, sum(id) AS s FROM %s GROUP BY w ORDER BY w", tb))
			if got := rowsOf(t, conn, fmt.Sprintf("SELECT * FROM %s_sum ORDER BY w", tb)); !slices.Equal(got, want) {
				t.Errorf("view %s_sum read from n%d:\n got %v\nwant %v", tb, i+1, got, want)
			}
			inView := map[int64]bool{}
			for _, r := range rowsOf(t, conn, "SELECT id FROM "+tb+"_ids") {
				var id int64
				fmt.Sscan(r, &id)
				inView[id] = true
			}
			for id := range inView {
				if ids[id] == 0 {
					t.Errorf("view %s_ids read from n%d has id %d (writer %d, statement %d), the table does not: %s", tb, i+1, id, id>>32, id&(1<<32-1), l.outcome(tb, id))
				}
			}
			for id := range ids {
				if !inView[id] {
					t.Errorf("view %s_ids read from n%d lacks id %d (writer %d, statement %d): %s", tb, i+1, id, id>>32, id&(1<<32-1), l.outcome(tb, id))
				}
			}
		}
		conn.Close(ctx)
	}
	t.Logf("writers saw: %v; catalog history: %d operations", l.seen, len(l.history))
	if name, ops, res := checkCatalogHistory(l.history); res != porcupine.Ok {
		var b strings.Builder
		for _, op := range ops {
			if op.Input.(catalogOp).kind != "list" || op.Output.(bool) {
				fmt.Fprintf(&b, "\n  client %d [%v, %v] %s", op.ClientId, time.Duration(op.Call), time.Duration(op.Return), viewModel.DescribeOperation(op.Input, op.Output))
			}
		}
		t.Errorf("the history of view %s is not linearizable (%v); its operations (listings that saw it):%s", name, res, b.String())
	}
}

// checkCatalogHistory checks a history of view creations, drops and
// listings for linearizability. Each view name is an object of its own (a
// history is linearizable if each object's is): its creates and drops, and
// each listing as a read of whether it exists.
func checkCatalogHistory(history []porcupine.Operation) (string, []porcupine.Operation, porcupine.CheckResult) {
	byName := map[string][]porcupine.Operation{}
	var lists []porcupine.Operation
	for _, op := range history {
		if in := op.Input.(catalogOp); in.kind == "list" {
			lists = append(lists, op)
		} else {
			byName[in.name] = append(byName[in.name], op)
		}
	}
	for name, ops := range byName {
		for _, op := range lists {
			op.Input = catalogOp{kind: "list", name: name}
			op.Output = slices.Contains(op.Output.([]string), name)
			ops = append(ops, op)
		}
		if res := porcupine.CheckOperationsTimeout(viewModel.ToModel(), ops, 30*time.Second); res != porcupine.Ok {
			slices.SortFunc(ops, func(a, b porcupine.Operation) int { return int(a.Call - b.Call) })
			return name, ops, res
		}
	}
	return "", nil, porcupine.Ok
}

// viewModel is one view name's sequential specification: it exists or
// not; an operation of unknown outcome may or may not have taken effect.
var viewModel = porcupine.NondeterministicModel{
	Init: func() []any { return []any{false} },
	Step: func(state, input, output any) []any {
		exists, op := state.(bool), input.(catalogOp)
		switch op.kind {
		case "list":
			if output.(bool) == exists {
				return []any{exists}
			}
			return nil
		case "create":
			switch {
			case output == outUnknown:
				return []any{exists, true}
			case output == outOK && !exists:
				return []any{true}
			case output == outExists && exists:
				return []any{true}
			}
			return nil
		default: // drop
			switch {
			case output == outUnknown:
				return []any{exists, false}
			case output == outOK && exists:
				return []any{false}
			case output == outMissing && !exists:
				return []any{false}
			}
			return nil
		}
	},
	DescribeOperation: func(input, output any) string {
		return fmt.Sprintf("%s(%s) -> %v", input.(catalogOp).kind, input.(catalogOp).name, output)
	},
}
