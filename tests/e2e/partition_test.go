package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/tests/testkit"
)

// netFaults sits between the nodes of a test cluster and cuts links
// between them. Each node binds its cluster address on a loopback IP of
// its own, from which its outgoing connections come too, and advertises a
// proxy address that forwards to it: a proxy knows which node a
// connection comes from by its source IP, and refuses or drops the
// connections of a cut pair.
type netFaults struct {
	mu     sync.Mutex
	nodeOf map[string]int
	cut    map[[2]int]bool
	conns  map[[2]int]map[net.Conn]bool
}

func newNetFaults() *netFaults {
	return &netFaults{nodeOf: map[string]int{}, cut: map[[2]int]bool{}, conns: map[[2]int]map[net.Conn]bool{}}
}

// pair is the unordered pair of nodes a and b.
func pair(a, b int) [2]int { return [2]int{min(a, b), max(a, b)} }

// proxy registers node i, which dials from ip and listens on target, and
// returns the address that forwards to it.
func (f *netFaults) proxy(t *testing.T, i int, ip, target string) string {
	t.Helper()
	f.mu.Lock()
	f.nodeOf[ip] = i
	f.mu.Unlock()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go f.forward(c, i, target)
		}
	}()
	return ln.Addr().String()
}

// forward relays c, a connection to node dst, unless its pair is cut.
func (f *netFaults) forward(c net.Conn, dst int, target string) {
	f.mu.Lock()
	src, known := f.nodeOf[c.RemoteAddr().(*net.TCPAddr).IP.String()]
	p := pair(src, dst)
	if known && f.cut[p] {
		f.mu.Unlock()
		c.Close()
		return
	}
	f.mu.Unlock()
	d, err := net.Dial("tcp", target)
	if err != nil {
		c.Close()
		return
	}
	f.mu.Lock()
	if f.conns[p] == nil {
		f.conns[p] = map[net.Conn]bool{}
	}
	f.conns[p][c], f.conns[p][d] = true, true
	f.mu.Unlock()
	go func() { _, _ = io.Copy(d, c); d.Close() }()
	_, _ = io.Copy(c, d)
	c.Close()
	f.mu.Lock()
	delete(f.conns[p], c)
	delete(f.conns[p], d)
	f.mu.Unlock()
}

// isolate cuts node i off from every other node of n.
func (f *netFaults) isolate(i, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for j := range n {
		if j == i {
			continue
		}
		p := pair(i, j)
		f.cut[p] = true
		for c := range f.conns[p] {
			c.Close()
		}
	}
}

// heal restores every link.
func (f *netFaults) heal() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cut = map[[2]int]bool{}
}

// startClusterBehind is startCluster with every cluster connection going
// through faults: node i binds 127.0.0.(i+2) and advertises its proxy.
func startClusterBehind(t *testing.T, n int, faults *netFaults) []*clusterNode {
	t.Helper()
	return startClusterWith(t, n, func(i int) (string, string) {
		ip := "127.0.0." + strconv.Itoa(i+2)
		ln, err := net.Listen("tcp", ip+":0")
		if err != nil {
			t.Fatal(err)
		}
		real := ln.Addr().String()
		ln.Close()
		return real, faults.proxy(t, i, ip, real)
	})
}

// TestClusterPartition cuts the leader, then a follower, off from the
// other two nodes for eight seconds while writers and DDL clients run on
// every node. The isolated node refuses writes, DDL and reads with 57P03
// (no quorum: what it has may be stale) but still shows SHOW NODES, while
// the majority keeps serving DDL and reads; once the partition heals,
// a write through the isolated node commits; in the end every
// acknowledged row is present once, no refused row is, the views equal
// their batch queries and the catalog history is linearizable.
func TestClusterPartition(t *testing.T) {
	faults := newNetFaults()
	nodes := startClusterBehind(t, 3, faults)
	setupFailoverTables(t, nodes[0])
	load := startClusterLoad(t, nodes)
	for round, which := range []string{"leader", "follower"} {
		time.Sleep(2 * time.Second)
		x := load.leader(t)
		if which == "follower" {
			x = (x + 1) % len(nodes)
		}
		faults.isolate(x, len(nodes))
		cut := time.Now()
		majority := nodes[(x+1)%len(nodes)]
		served := probeDDLOn(t, majority, fmt.Sprintf("part_%d", round))
		refusedWrite, refusedDDL, read := probeMinority(t, load, nodes[x], round)
		t.Logf("%s n%d isolated: the majority served DDL after %v; on n%d a write was refused (57P03) after %v, DDL after %v, a read after %v",
			which, x+1, served.Round(time.Millisecond), x+1, refusedWrite.Round(time.Millisecond), refusedDDL.Round(time.Millisecond), read.Round(time.Millisecond))
		time.Sleep(time.Until(cut.Add(8 * time.Second)))
		faults.heal()
		t.Logf("healed: a write through n%d committed %v later", x+1, load.probeWrite(t, x, 10+round).Round(time.Millisecond))
	}
	time.Sleep(time.Second)
	load.stop()
	load.check(t, nodes)
}

// probeDDLOn creates views on n until one succeeds and returns how long
// that took.
func probeDDLOn(t *testing.T, n *clusterNode, prefix string) time.Duration {
	t.Helper()
	start := time.Now()
	for attempt := 0; ; attempt++ {
		if time.Since(start) > 30*time.Second {
			t.Fatalf("no DDL succeeded on the majority side for 30 s")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, err := pgx.Connect(ctx, testkit.ConnString(n.addr))
		if err == nil {
			_, err = conn.Exec(ctx, fmt.Sprintf("CREATE VIEW %s_%d AS SELECT 1 AS x", prefix, attempt))
			conn.Close(context.Background())
		}
		cancel()
		if err == nil {
			return time.Since(start)
		}
	}
}

// probeMinority writes, runs DDL and reads a table through the isolated
// node until each is refused with 57P03, and returns how long that took.
func probeMinority(t *testing.T, load *clusterLoad, n *clusterNode, round int) (write, ddl, read time.Duration) {
	t.Helper()
	ctx := context.Background()
	conn := connect(t, n.addr, pgx.QueryExecModeSimpleProtocol)
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET statement_timeout = '3s'"); err != nil {
		t.Fatal(err)
	}
	refused := func(what string, run func(k int) error) time.Duration {
		start := time.Now()
		for k := 0; ; k++ {
			err := run(k)
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "57P03" {
				return time.Since(start)
			}
			if time.Since(start) > 20*time.Second {
				t.Fatalf("%s on the isolated node was not refused within 20 s; last outcome: %v", what, err)
			}
		}
	}
	write = refused("a write", func(k int) error {
		id := int64(200+round)<<32 | int64(k)
		_, err := conn.Exec(ctx, "INSERT INTO fb VALUES ($1, -2)", id)
		load.record("fb", id, err)
		return err
	})
	ddl = refused("DDL", func(k int) error {
		_, err := conn.Exec(ctx, fmt.Sprintf("CREATE VIEW minority_%d_%d AS SELECT 1 AS x", round, k))
		return err
	})
	read = refused("a read", func(int) error {
		_, err := conn.Exec(ctx, "SELECT count(*) FROM fa")
		return err
	})
	// What the node knows of itself it still says.
	if rows := rowsOf(t, conn, "SELECT id FROM streamdb_catalog.nodes ORDER BY id"); len(rows) != 3 {
		t.Errorf("SHOW NODES on the isolated node: %v", rows)
	}
	return write, ddl, read
}
