package sql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// TestPlanFetch checks the steps of FETCH and MOVE directions from
// positions, as PostgreSQL's DoPortalRunFetch takes them.
func TestPlanFetch(t *testing.T) {
	all := int64(parser.FetchAll)
	onRow3 := position{pos: 3}
	atEnd := position{pos: 5, atEnd: true}
	start := position{atStart: true}
	cases := []struct {
		name string
		f    parser.Fetch
		p    position
		want string
	}{
		{"next", parser.Fetch{Count: 1}, start, "fwd 1"},
		{"forward -2 is backward 2", parser.Fetch{Count: -2}, onRow3, "back 2"},
		{"backward -2 is forward 2", parser.Fetch{Kind: parser.FetchBackward, Count: -2}, onRow3, "fwd 2"},
		{"absolute 1 rewinds", parser.Fetch{Kind: parser.FetchAbsolute, Count: 1}, onRow3, "rewind, fwd 1"},
		{"absolute 3 near the start rewinds", parser.Fetch{Kind: parser.FetchAbsolute, Count: 3}, position{pos: 4}, "rewind, fwd 2, fwd 1"},
		{"absolute 3 from the start", parser.Fetch{Kind: parser.FetchAbsolute, Count: 3}, start, "fwd 2, fwd 1"},
		{"absolute back from 5", parser.Fetch{Kind: parser.FetchAbsolute, Count: 4}, position{pos: 5}, "back 2, fwd 1"},
		{"absolute here", parser.Fetch{Kind: parser.FetchAbsolute, Count: 4}, position{pos: 3}, "fwd 1"},
		{"absolute off the end", parser.Fetch{Kind: parser.FetchAbsolute, Count: 5}, atEnd, "back 2, fwd 1"},
		{"last", parser.Fetch{Kind: parser.FetchAbsolute, Count: -1}, start, fmt.Sprintf("fwd %d, back 1", all)},
		{"absolute -3", parser.Fetch{Kind: parser.FetchAbsolute, Count: -3}, start, fmt.Sprintf("fwd %d, back 2, back 1", all)},
		{"absolute 0", parser.Fetch{Kind: parser.FetchAbsolute}, onRow3, "rewind, fwd 0"},
		{"relative 3", parser.Fetch{Kind: parser.FetchRelative, Count: 3}, onRow3, "fwd 2, fwd 1"},
		{"relative -1", parser.Fetch{Kind: parser.FetchRelative, Count: -1}, onRow3, "back 1"},
		{"relative 0 on a row", parser.Fetch{Kind: parser.FetchRelative}, onRow3, "back 1, fwd 1"},
		{"fetch 0 off the rows", parser.Fetch{}, atEnd, "fwd 0"},
		{"move 0 on a row", parser.Fetch{Move: true}, onRow3, "report 1"},
		{"move 0 at the start", parser.Fetch{Move: true}, start, "report 0"},
		{"move backward all", parser.Fetch{Move: true, Kind: parser.FetchBackward, Count: all}, onRow3, "rewind, report 2"},
		{"move backward all at the end", parser.Fetch{Move: true, Kind: parser.FetchBackward, Count: all}, atEnd, "rewind, report 5"},
		{"fetch backward all", parser.Fetch{Kind: parser.FetchBackward, Count: all}, onRow3, fmt.Sprintf("back %d", all)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plan := planFetch(&tc.f, tc.p)
			var parts []string
			for _, s := range plan.steps {
				switch {
				case s.rewind:
					parts = append(parts, "rewind")
				case s.forward:
					parts = append(parts, fmt.Sprintf("fwd %d", s.count))
				default:
					parts = append(parts, fmt.Sprintf("back %d", s.count))
				}
			}
			if plan.report >= 0 {
				parts = append(parts, fmt.Sprintf("report %d", plan.report))
			}
			if got := strings.Join(parts, ", "); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// sliceSource yields rows 1..n, one int each.
type sliceSource struct{ next, n int64 }

func (s *sliceSource) Next(context.Context) ([]types.Datum, error) {
	if s.next == s.n {
		return nil, nil
	}
	s.next++
	return []types.Datum{types.NewInt(s.next)}, nil
}

func (s *sliceSource) Close() {}

// TestCursorFetch runs FETCH and MOVE sequences over a cursor of five
// rows; the answers are PostgreSQL 15's.
func TestCursorFetch(t *testing.T) {
	cases := []struct {
		name   string
		scroll bool
		steps  []string // "fetch|move direction" => "rows / MOVE n / error code"
	}{
		{"forward", false, []string{
			"fetch 2=1 2", "fetch next=3", "move forward 5=MOVE 2", "fetch next=", "fetch prior=55000",
		}},
		{"no scroll absolute forward", false, []string{
			"fetch absolute 3=3", "fetch relative 2=5", "fetch absolute 1=55000",
		}},
		{"no scroll move 0", false, []string{"fetch 1=1", "move 0=MOVE 1", "fetch 0=55000"}},
		{"scroll", true, []string{
			"fetch 2=1 2", "fetch prior=1", "move last=MOVE 1", "fetch relative 0=5", "fetch absolute -2=4",
			"move backward all=MOVE 3", "fetch 0=", "fetch next=1", "move 0=MOVE 1", "fetch absolute 0=",
		}},
		{"scroll past the ends", true, []string{
			"fetch all=1 2 3 4 5", "fetch next=", "fetch prior=5", "fetch backward all=4 3 2 1", "fetch prior=",
			"fetch forward 2=1 2", "fetch -3=1", "fetch absolute 9=", "fetch prior=5", "fetch absolute -9=", "fetch next=1",
		}},
		{"move counts", true, []string{
			"move all=MOVE 5", "move backward 2=MOVE 2", "fetch relative -1=3", "move absolute 7=MOVE 0", "move relative -1=MOVE 1", "fetch 0=5",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &cursor{scroll: tc.scroll, src: &sliceSource{n: 5}, p: position{atStart: true}}
			for _, step := range tc.steps {
				cmd, want, _ := strings.Cut(step, "=")
				sts, err := parser.Parse(cmd + " c")
				if err != nil {
					t.Fatal(err)
				}
				if got := runFetch(c, sts[0].Utility.(*parser.Fetch)); got != want {
					t.Fatalf("%s: got %q, want %q", cmd, got, want)
				}
			}
		})
	}
}

// runFetch renders FETCH's rows, MOVE's tag or the error's code.
func runFetch(c *cursor, f *parser.Fetch) string {
	ctx := context.Background()
	sc, n, err := c.fetch(ctx, f)
	if err != nil {
		return err.(*pgerror.Error).Code
	}
	if f.Move {
		return fmt.Sprintf("MOVE %d", n)
	}
	var rows []string
	for {
		row, err := sc.next(ctx)
		if err != nil {
			return err.Error()
		}
		if row == nil {
			return strings.Join(rows, " ")
		}
		rows = append(rows, row[0].String())
	}
}
