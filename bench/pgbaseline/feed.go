package pgbaseline

import (
	"context"
	"fmt"
	"strings"

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

// Feed is how the client sends the bids.
type Feed string

// The feeds compared.
const (
	// Insert sends each batch as one multi-row INSERT statement with a
	// parameter per value (pgx's extended protocol, binary parameters).
	Insert Feed = "insert"
	// Copy sends each batch as one COPY bid FROM STDIN in the binary
	// format (pgx's CopyFrom).
	Copy Feed = "copy"
)

// Feeds are the feeds in the order they run.
var Feeds = []Feed{Insert, Copy}

// feed sends the bids of the first events events into bid through conn,
// batch rows per statement (an INSERT or a COPY, by how), and calls fed
// with the running count after each statement. Both systems acknowledge
// a statement once it is durable (committed).
func feed(ctx context.Context, conn *pgx.Conn, how Feed, events int64, batch int, fed func(int64)) (int64, error) {
	split := nexmark.NewSplit(bidConfig(events), 0)
	width := split.Width()
	rows := make([][]types.Datum, batch)
	for i := range rows {
		rows[i] = make([]types.Datum, width)
	}
	var columns []string
	for _, c := range nexmark.Schema(nexmark.BidEvent) {
		columns = append(columns, c.Name)
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
				types.TimestampToTime(row[5].Micros()), row[6].Str())
		}
		var err error
		if how == Copy {
			_, err = conn.CopyFrom(ctx, pgx.Identifier{"bid"}, columns, pgx.CopyFromSlice(n, func(i int) ([]any, error) {
				return args[i*width : (i+1)*width], nil
			}))
		} else {
			_, err = conn.Exec(ctx, insertBids(n, width), args...)
		}
		if err != nil {
			return total, fmt.Errorf("%s bids: %w", how, err)
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
