package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/node"
)

// TestConnectionLimits fills a node of --max-connections 4 with
// --superuser-reserved-connections 1: the role bob gets three connections
// and is refused the fourth with 53300 (reserved), the superuser gets it,
// psql is then refused the fifth ("sorry, too many clients already") and
// the node keeps serving the connections it has and new ones once one
// closes.
func TestConnectionLimits(t *testing.T) {
	n, err := node.Start(node.Config{Listen: "127.0.0.1:0", DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler),
		Security: node.Security{MaxConnections: 4, ReservedConnections: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("close node: %v", err)
		}
	})
	if err := n.Meta().CreateRole(context.Background(), &meta.Role{Name: "bob", Login: true}); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(n.Addr())
	conninfo := func(user string) string {
		return fmt.Sprintf("host=%s port=%s dbname=streamdb user=%s sslmode=disable", host, port, user)
	}
	ctx := context.Background()
	connect := func(user string) (*pgx.Conn, error) {
		c, err := pgx.Connect(ctx, conninfo(user))
		if err == nil {
			t.Cleanup(func() { c.Close(ctx) })
		}
		return c, err
	}
	var open []*pgx.Conn
	for range 3 {
		c, err := connect("bob")
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, c)
	}
	if _, err := connect("bob"); err == nil || !strings.Contains(err.Error(), "remaining connection slots are reserved for roles with the SUPERUSER attribute (SQLSTATE 53300)") {
		t.Fatalf("bob's fourth connection: %v, want 53300", err)
	}
	// The refused connection holds its slot until its server side ends,
	// just after the client read the refusal (as in PostgreSQL).
	super, err := connect(meta.BootstrapRole)
	for deadline := time.Now().Add(30 * time.Second); err != nil && strings.Contains(err.Error(), "too many clients") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		super, err = connect(meta.BootstrapRole)
	}
	if err != nil {
		t.Fatalf("the superuser in the reserved slot: %v", err)
	}
	open = append(open, super)
	out, err := psqlAs(t, conninfo(meta.BootstrapRole), "", "SELECT 1")
	if err == nil || !strings.Contains(out, "FATAL:  sorry, too many clients already") {
		t.Fatalf("psql beyond --max-connections: %v %q", err, out)
	}
	for _, c := range open {
		var one int
		if err := c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("an open connection at the limit: %v", err)
		}
	}
	open[0].Close(ctx)
	for {
		if out, err := psqlAs(t, conninfo(meta.BootstrapRole), "", "SELECT 1"); err == nil {
			if out != "1\n" {
				t.Fatalf("psql once a slot is free: %q", out)
			}
			break
		}
	}
}
