package tpch

import (
	"bytes"
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Load creates the TPC-H tables in conn and fills them, by COPY, with the
// data of scale factor sf and seed: the same rows on every connection
// loaded with the same sf and seed, so that two databases can be compared.
func Load(ctx context.Context, conn *pgx.Conn, sf float64, seed uint64) error {
	g := NewGenerator(sf, seed)
	for _, tb := range Tables {
		if _, err := conn.Exec(ctx, tb.DDL); err != nil {
			return fmt.Errorf("%s: %w", tb.DDL, err)
		}
		if tb.Name == "orders" || tb.Name == "lineitem" {
			continue
		}
		var buf bytes.Buffer
		if err := g.Table(tb.Name, lineWriter(&buf)); err != nil {
			return err
		}
		if err := copyIn(ctx, conn, tb.Name, &buf); err != nil {
			return err
		}
	}
	return copyOrders(ctx, conn, g, 1, g.Scale.Orders)
}

// Refresh is one round of TPC-H's refresh functions: RF1 inserts new
// orders with their lineitems, RF2 deletes as many old orders with
// theirs. Round r inserts the orders after the load's and the earlier
// rounds', and deletes the r-th block of the oldest, so rounds can follow
// each other on the same tables.
type Refresh struct {
	sf    float64
	seed  uint64
	round int
}

// NewRefresh returns round (from 0) of the refresh functions of the data
// loaded with sf and seed.
func NewRefresh(sf float64, seed uint64, round int) Refresh {
	return Refresh{sf: sf, seed: seed, round: round}
}

// Orders is the number of orders each of RF1 and RF2 touches: a
// thousandth of the orders, as the specification says (at least one).
func (r Refresh) Orders() int { return max(1, ScaleOf(r.sf).Orders/1000) }

// Apply runs the round on conn: RF1's COPYs, then RF2's DELETEs.
func (r Refresh) Apply(ctx context.Context, conn *pgx.Conn) error {
	n := r.Orders()
	// Each round draws from a generator of its own, so that the rows of a
	// round do not depend on what was generated before it.
	g := NewGenerator(r.sf, r.seed+uint64(r.round)+1)
	if err := copyOrders(ctx, conn, g, g.Scale.Orders+r.round*n+1, n); err != nil {
		return err
	}
	lo, hi := r.round*n, (r.round+1)*n
	for _, del := range []string{
		fmt.Sprintf("DELETE FROM lineitem WHERE l_orderkey > %d AND l_orderkey <= %d", lo, hi),
		fmt.Sprintf("DELETE FROM orders WHERE o_orderkey > %d AND o_orderkey <= %d", lo, hi),
	} {
		if _, err := conn.Exec(ctx, del); err != nil {
			return fmt.Errorf("%s: %w", del, err)
		}
	}
	return nil
}

// copyOrders copies orders first..first+n-1 of g, with their lineitems,
// into conn.
func copyOrders(ctx context.Context, conn *pgx.Conn, g *Generator, first, n int) error {
	var orders, lines bytes.Buffer
	if err := g.Orders(first, n, lineWriter(&orders), lineWriter(&lines)); err != nil {
		return err
	}
	if err := copyIn(ctx, conn, "orders", &orders); err != nil {
		return err
	}
	return copyIn(ctx, conn, "lineitem", &lines)
}

// lineWriter returns an emit function appending lines to buf.
func lineWriter(buf *bytes.Buffer) func(string) error {
	return func(line string) error {
		buf.WriteString(line)
		buf.WriteByte('\n')
		return nil
	}
}

// copyIn copies the COPY text lines of buf into table.
func copyIn(ctx context.Context, conn *pgx.Conn, table string, buf *bytes.Buffer) error {
	if _, err := conn.PgConn().CopyFrom(ctx, buf, "COPY "+table+" FROM STDIN"); err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	return nil
}
