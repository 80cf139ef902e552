package pgbaseline

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/connector/nexmark"
	"github.com/streamdb/streamdb/types"
)

// bidConfig is the generator of the bids of the first events events, in
// one split (the whole sequence, in order).
func bidConfig(events int64) nexmark.Config {
	cfg := nexmark.DefaultConfig()
	cfg.Table, cfg.EventNum, cfg.MinEventGapNs = nexmark.BidEvent, events, 0
	return cfg
}

// Bids is the number of bids among the first events Nexmark events: the
// rows a workload feeds.
func Bids(events int64) int64 {
	cfg := bidConfig(events)
	return cfg.Rows()
}

// createBid is the statement creating the table the bids go to.
func createBid() string {
	return "CREATE TABLE bid (" + nexmark.ColumnDefs(nexmark.BidEvent) + ")"
}

// feed inserts the bids of the first events events into bid through
// conn, batch rows per INSERT statement, and calls fed with the running
// count after each statement. Both systems acknowledge an INSERT once it
// is durable (committed).
func feed(ctx context.Context, conn *pgx.Conn, events int64, batch int, fed func(int64)) (int64, error) {
	split := nexmark.NewSplit(bidConfig(events), 0)
	width := split.Width()
	rows := make([][]types.Datum, batch)
	for i := range rows {
		rows[i] = make([]types.Datum, width)
	}
	args := make([]any, 0, batch*width)
	var total int64
	for {
		n := split.Next(rows)
		if n == 0 {
			return total, nil
		}
		args = args[:0]
		for _, row := range rows[:n] {
			args = append(args, row[0].Int(), row[1].Int(), row[2].Int(), row[3].Str(), row[4].Str(),
				time.UnixMicro(row[5].Micros()).UTC(), row[6].Str())
		}
		if _, err := conn.Exec(ctx, insertBids(n, width), args...); err != nil {
			return total, fmt.Errorf("insert bids: %w", err)
		}
		total += int64(n)
		fed(total)
	}
}

// insertBids is "INSERT INTO bid VALUES ($1, ..., $width), ..." for n rows.
func insertBids(n, width int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO bid VALUES ")
	for r := range n {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range width {
			if c > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "$%d", r*width+c+1)
		}
		b.WriteByte(')')
	}
	return b.String()
}
