package exec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// windowInput is (g, o, v): partition 1 has peers at o = 2, partitions 2
// and NULL have one row each.
func windowInput() exec.Op {
	return source(row(2, 5, 7), row(1, 2, 20), row(nil, 1, 1), row(1, 1, 10), row(1, 3, nil), row(1, 2, 30))
}

func frame(mode exec.FrameMode, start exec.BoundKind, startOff int, end exec.BoundKind, endOff int) exec.Frame {
	bound := func(k exec.BoundKind, off int) exec.FrameBound {
		b := exec.FrameBound{Kind: k}
		if k == exec.OffsetPreceding || k == exec.OffsetFollowing {
			b.Offset = lit(off)
		}
		return b
	}
	return exec.Frame{Mode: mode, Start: bound(start, startOff), End: bound(end, endOff)}
}

func TestWindow(t *testing.T) {
	v := col(2)
	tests := []struct {
		name string
		fn   func(t *testing.T) exec.WindowFunc
		// unordered is set for a window without ORDER BY.
		unordered bool
		// want is the function's value for the rows in window order:
		// partition 1 (o = 1, 2, 2, 3), partition 2, partition NULL.
		want []string
	}{
		{"row_number", fn("row_number"), false, []string{"1", "2", "3", "4", "1", "1"}},
		{"rank", fn("rank"), false, []string{"1", "2", "2", "4", "1", "1"}},
		{"dense_rank", fn("dense_rank"), false, []string{"1", "2", "2", "3", "1", "1"}},
		{"rank without order: all peers", fn("rank"), true, []string{"1", "1", "1", "1", "1", "1"}},
		{"percent_rank", fn("percent_rank"), false, []string{"0", "0.3333333333333333", "0.3333333333333333", "1", "0", "0"}},
		{"cume_dist", fn("cume_dist"), false, []string{"0.25", "0.75", "0.75", "1", "1", "1"}},
		{"ntile with a bigger first bucket", fn("ntile", lit(3)), false, []string{"1", "1", "2", "3", "1", "1"}},
		{"ntile with more buckets than rows", fn("ntile", lit(5)), false, []string{"1", "2", "3", "4", "1", "1"}},
		{"ntile NULL", fn("ntile", lit(nil)), false, []string{"NULL", "NULL", "NULL", "NULL", "NULL", "NULL"}},
		{"lag", fn("lag", v), false, []string{"NULL", "10", "20", "30", "NULL", "NULL"}},
		{"lead with offset and default", fn("lead", v, lit(2), lit(-1)), false, []string{"30", "NULL", "-1", "-1", "-1", "-1"}},
		{"negative lag is lead", fn("lag", v, lit(-1)), false, []string{"20", "30", "NULL", "NULL", "NULL", "NULL"}},
		{"lag with a NULL offset", fn("lag", v, lit(nil), lit(0)), false, []string{"NULL", "NULL", "NULL", "NULL", "NULL", "NULL"}},
		{"first_value", fn("first_value", v), false, []string{"10", "10", "10", "10", "7", "1"}},
		{"last_value includes peers", fn("last_value", v), false, []string{"10", "30", "30", "NULL", "7", "1"}},
		{"nth_value", fn("nth_value", v, lit(2)), false, []string{"NULL", "20", "20", "20", "NULL", "NULL"}},
		{"running sum includes peers", aggFn("sum", v), false, []string{"10", "60", "60", "60", "7", "1"}},
		{"count(*) without order: whole partition", aggFn("count"), true, []string{"4", "4", "4", "4", "1", "1"}},
		{"count(v) skips NULLs", aggFn("count", v), true, []string{"3", "3", "3", "3", "1", "1"}},
		{"rows 1 preceding", framed(aggFn("sum", v), frame(exec.FrameRows, exec.OffsetPreceding, 1, exec.CurrentRow, 0)), false,
			[]string{"10", "30", "50", "30", "7", "1"}},
		{"rows current and 1 following", framed(aggFn("sum", v), frame(exec.FrameRows, exec.CurrentRow, 0, exec.OffsetFollowing, 1)), false,
			[]string{"30", "50", "30", "NULL", "7", "1"}},
		{"sliding min", framed(aggFn("min", v), frame(exec.FrameRows, exec.OffsetPreceding, 1, exec.OffsetFollowing, 1)), false,
			[]string{"10", "10", "20", "30", "7", "1"}},
		{"empty frames", framed(aggFn("count", v), frame(exec.FrameRows, exec.OffsetPreceding, 2, exec.OffsetPreceding, 1)), false,
			[]string{"0", "1", "2", "2", "0", "0"}},
		{"huge offsets", framed(aggFn("count"), frame(exec.FrameRows, exec.OffsetPreceding, 1<<62, exec.OffsetFollowing, 1<<62)), false,
			[]string{"4", "4", "4", "4", "1", "1"}},
		{"groups", framed(aggFn("sum", v), frame(exec.FrameGroups, exec.OffsetPreceding, 1, exec.CurrentRow, 0)), false,
			[]string{"10", "60", "60", "50", "7", "1"}},
		{"groups following", framed(aggFn("count"), frame(exec.FrameGroups, exec.OffsetFollowing, 1, exec.UnboundedFollowing, 0)), false,
			[]string{"3", "1", "1", "0", "0", "0"}},
		{"range to the end", framed(aggFn("sum", v), frame(exec.FrameRange, exec.CurrentRow, 0, exec.UnboundedFollowing, 0)), false,
			[]string{"60", "50", "50", "NULL", "7", "1"}},
		{"last_value over the whole partition", framed(fn("last_value", v), frame(exec.FrameRows, exec.UnboundedPreceding, 0, exec.UnboundedFollowing, 0)), false,
			[]string{"NULL", "NULL", "NULL", "NULL", "7", "1"}},
		{"range 1 preceding", framed(aggFn("sum", v), frame(exec.FrameRange, exec.OffsetPreceding, 1, exec.CurrentRow, 0)), false,
			[]string{"10", "60", "60", "50", "7", "1"}},
		{"range between following offsets", framed(aggFn("count"), frame(exec.FrameRange, exec.OffsetFollowing, 1, exec.OffsetFollowing, 2)), false,
			[]string{"3", "1", "1", "0", "0", "0"}},
		{"range preceding offsets", framed(aggFn("count"), frame(exec.FrameRange, exec.OffsetPreceding, 2, exec.OffsetPreceding, 1)), false,
			[]string{"0", "1", "1", "3", "0", "0"}},
		{"exclude current row", framed(aggFn("sum", v), excluding(whole, exec.ExcludeCurrentRow)), false,
			[]string{"50", "40", "30", "60", "NULL", "NULL"}},
		{"exclude group", framed(aggFn("sum", v), excluding(whole, exec.ExcludeGroup)), false,
			[]string{"50", "10", "10", "60", "NULL", "NULL"}},
		{"exclude ties", framed(aggFn("sum", v), excluding(whole, exec.ExcludeTies)), false,
			[]string{"60", "30", "40", "60", "7", "1"}},
		{"exclude ties without order: only the row", framed(aggFn("count"), excluding(whole, exec.ExcludeTies)), true,
			[]string{"1", "1", "1", "1", "1", "1"}},
		{"first_value excluding the group from the default frame", framed(fn("first_value", v), excluding(exec.DefaultFrame, exec.ExcludeGroup)), false,
			[]string{"NULL", "10", "10", "10", "NULL", "NULL"}},
		{"last_value of the other peers", framed(fn("last_value", v), excluding(frame(exec.FrameGroups, exec.CurrentRow, 0, exec.CurrentRow, 0), exec.ExcludeCurrentRow)), false,
			[]string{"NULL", "30", "20", "NULL", "NULL", "NULL"}},
		{"nth_value across the excluded ties", framed(fn("nth_value", v, lit(2)), excluding(whole, exec.ExcludeTies)), false,
			[]string{"20", "20", "30", "20", "NULL", "NULL"}},
		{"last_value ignore nulls excluding the row", framed(ignoreNulls(fn("last_value", v)), excluding(whole, exec.ExcludeCurrentRow)), false,
			[]string{"30", "30", "20", "30", "NULL", "NULL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &exec.Window{Input: windowInput(), Partition: []int{0}, Funcs: []exec.WindowFunc{tt.fn(t)}}
			if !tt.unordered {
				w.Order = []exec.SortKey{{Col: 1}}
			}
			var prefixes, vals []string
			for _, r := range run(t, w) {
				i := strings.LastIndex(r, ",")
				prefixes, vals = append(prefixes, r[:i]), append(vals, r[i+1:])
			}
			equalRows(t, "values", vals, tt.want)
			order := []string{"1,1,10", "1,2,20", "1,2,30", "1,3,NULL", "2,5,7", "NULL,1,1"}
			if tt.unordered {
				// Without ORDER BY only the partitions are ordered.
				equalBags(t, "rows", prefixes, order)
			} else {
				equalRows(t, "rows", prefixes, order)
			}
		})
	}
}

// fn is a window function that is not an aggregate.
func fn(name string, args ...expr.Expr) func(*testing.T) exec.WindowFunc {
	return func(*testing.T) exec.WindowFunc {
		return exec.WindowFunc{Name: name, Args: args, Frame: exec.DefaultFrame}
	}
}

// aggFn is an aggregate used as a window function; no args is count(*).
func aggFn(name string, args ...expr.Expr) func(*testing.T) exec.WindowFunc {
	return func(t *testing.T) exec.WindowFunc {
		a := agg(t, name, false, args...)
		return exec.WindowFunc{Name: name, Args: a.Args, Agg: a, Frame: exec.DefaultFrame}
	}
}

func framed(f func(*testing.T) exec.WindowFunc, fr exec.Frame) func(*testing.T) exec.WindowFunc {
	return func(t *testing.T) exec.WindowFunc {
		w := f(t)
		w.Frame = fr
		return w
	}
}

// whole is ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING.
var whole = frame(exec.FrameRows, exec.UnboundedPreceding, 0, exec.UnboundedFollowing, 0)

// excluding returns fr with exclusion x.
func excluding(fr exec.Frame, x exec.FrameExclusion) exec.Frame {
	fr.Exclude = x
	return fr
}

func ignoreNulls(f func(*testing.T) exec.WindowFunc) func(*testing.T) exec.WindowFunc {
	return func(t *testing.T) exec.WindowFunc {
		w := f(t)
		w.IgnoreNulls = true
		return w
	}
}

func TestWindowErrors(t *testing.T) {
	tests := []struct {
		name string
		fn   exec.WindowFunc
		code string
	}{
		{"ntile 0", exec.WindowFunc{Name: "ntile", Args: []expr.Expr{lit(0)}, Frame: exec.DefaultFrame}, "22014"},
		{"nth_value 0", exec.WindowFunc{Name: "nth_value", Args: []expr.Expr{col(2), lit(0)}, Frame: exec.DefaultFrame}, "22016"},
		{"negative start", exec.WindowFunc{Name: "first_value", Args: []expr.Expr{col(2)},
			Frame: frame(exec.FrameRows, exec.OffsetPreceding, -1, exec.CurrentRow, 0)}, "22013"},
		{"NULL end", exec.WindowFunc{Name: "first_value", Args: []expr.Expr{col(2)},
			Frame: exec.Frame{Mode: exec.FrameRows, End: exec.FrameBound{Kind: exec.OffsetFollowing, Offset: lit(nil)}}}, "22004"},
	}
	for _, tt := range tests {
		_, err := exec.Collect(newCtx(), &exec.Window{Input: windowInput(), Funcs: []exec.WindowFunc{tt.fn}})
		var pe *pgerror.Error
		if !errors.As(err, &pe) || pe.Code != tt.code {
			t.Errorf("%s: error %v, want SQLSTATE %s", tt.name, err, tt.code)
		}
	}
}

func TestWindowEmptyAndEarlyStop(t *testing.T) {
	w := func(in exec.Op) *exec.Window {
		return &exec.Window{Input: in, Order: []exec.SortKey{{Col: 0}}, Funcs: []exec.WindowFunc{{Name: "row_number", Frame: exec.DefaultFrame}}}
	}
	equalRows(t, "empty input", run(t, w(ints())), nil)
	equalRows(t, "early stop", take(t, w(ints(3, 1, 2)), 2), []string{"1,1", "2,2"})
}

func TestWindowFuncString(t *testing.T) {
	a := agg(t, "sum", false, col(2))
	tests := []struct {
		fn   exec.WindowFunc
		want string
	}{
		{exec.WindowFunc{Name: "row_number", Frame: exec.DefaultFrame}, "row_number()"},
		{exec.WindowFunc{Name: "lag", Args: []expr.Expr{col(0), lit(2)}, Frame: exec.DefaultFrame}, "lag($0, '2'::bigint)"},
		{exec.WindowFunc{Name: "sum", Args: a.Args, Agg: a, Frame: frame(exec.FrameRows, exec.OffsetPreceding, 1, exec.UnboundedFollowing, 0)},
			"sum($2) ROWS BETWEEN '1'::bigint PRECEDING AND UNBOUNDED FOLLOWING"},
		{exec.WindowFunc{Name: "sum", Args: a.Args, Agg: a, Frame: excluding(exec.DefaultFrame, exec.ExcludeTies)},
			"sum($2) RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE TIES"},
	}
	for _, tt := range tests {
		if got := tt.fn.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

// TestWindowFramesProp checks the running aggregation against summing each
// row's ROWS frame, less its exclusion, by definition; the ordering column
// has peers.
func TestWindowFramesProp(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 12).Draw(t, "rows")
		rows := make([][]types.Datum, n)
		for i := range rows {
			rows[i] = row(rapid.IntRange(0, 3).Draw(t, "k"), rapid.IntRange(-5, 5).Draw(t, "v"))
		}
		kinds := []exec.BoundKind{exec.UnboundedPreceding, exec.OffsetPreceding, exec.CurrentRow, exec.OffsetFollowing, exec.UnboundedFollowing}
		start := rapid.IntRange(0, 3).Draw(t, "start")
		end := rapid.IntRange(start, 4).Draw(t, "end")
		so, eo := rapid.IntRange(0, 4).Draw(t, "start offset"), rapid.IntRange(0, 4).Draw(t, "end offset")
		if kinds[start] == exec.OffsetFollowing && kinds[end] == exec.OffsetFollowing {
			eo = max(eo, so)
		}
		fr := frame(exec.FrameRows, kinds[start], so, kinds[end], eo)
		fr.Exclude = exec.FrameExclusion(rapid.IntRange(0, 3).Draw(t, "exclude"))
		a, _ := expr.NewAgg("count", []expr.Expr{col(1)}, false, false)
		s, _ := expr.NewAgg("sum", []expr.Expr{col(1)}, false, false)
		got, err := exec.Collect(newCtx(), &exec.Window{Input: source(rows...), Order: []exec.SortKey{{Col: 0}},
			Funcs: []exec.WindowFunc{{Name: "count", Args: a.Args, Agg: a, Frame: fr}, {Name: "sum", Args: s.Args, Agg: s, Frame: fr},
				{Name: "first_value", Args: []expr.Expr{col(1)}, Frame: fr}, {Name: "last_value", Args: []expr.Expr{col(1)}, Frame: fr}}})
		if err != nil {
			t.Fatal(err)
		}
		edge := func(k exec.BoundKind, off, i int, isEnd bool) int {
			switch k {
			case exec.UnboundedPreceding:
				return 0
			case exec.UnboundedFollowing:
				return n
			case exec.OffsetPreceding:
				i -= off
			case exec.OffsetFollowing:
				i += off
			}
			if isEnd {
				i++
			}
			return min(max(i, 0), n)
		}
		excluded := func(i, j int) bool {
			peer := got[i][0].Int() == got[j][0].Int()
			switch fr.Exclude {
			case exec.ExcludeCurrentRow:
				return i == j
			case exec.ExcludeGroup:
				return peer
			case exec.ExcludeTies:
				return peer && i != j
			}
			return false
		}
		for i, r := range got {
			lo, hi := edge(kinds[start], so, i, false), edge(kinds[end], eo, i, true)
			var in []int64
			for j := lo; j < hi; j++ {
				if !excluded(i, j) {
					in = append(in, got[j][1].Int())
				}
			}
			sum, first, last := int64(0), "NULL", "NULL"
			for _, v := range in {
				sum += v
			}
			if len(in) > 0 {
				first, last = types.NewInt(in[0]).String(), types.NewInt(in[len(in)-1]).String()
			}
			if r[2].Int() != int64(len(in)) {
				t.Fatalf("row %d: count %d, want %d (frame %s)", i, r[2].Int(), len(in), fr)
			}
			if len(in) == 0 && !r[3].IsNull() || len(in) > 0 && r[3].String() != types.NewInt(sum).String() {
				t.Fatalf("row %d: sum %s, want %d (frame %s)", i, r[3], sum, fr)
			}
			if r[4].String() != first || r[5].String() != last {
				t.Fatalf("row %d: first, last %s, %s, want %s, %s (frame %s)", i, r[4], r[5], first, last, fr)
			}
		}
	})
}

// TestWindowRangeOffsetsProp checks RANGE frames with offsets against
// their definition over the ordered rows: a scan for the values within the
// offsets, in either direction, NULLs first or last, a NULL row's frame
// being its peers.
func TestWindowRangeOffsetsProp(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 12).Draw(t, "rows")
		rows := make([][]types.Datum, n)
		for i := range rows {
			var v any
			if !rapid.Bool().Draw(t, "null") || i%3 != 0 {
				v = rapid.IntRange(-5, 5).Draw(t, "v")
			}
			rows[i] = row(i, v)
		}
		kinds := []exec.BoundKind{exec.UnboundedPreceding, exec.OffsetPreceding, exec.CurrentRow, exec.OffsetFollowing, exec.UnboundedFollowing}
		start := rapid.IntRange(0, 3).Draw(t, "start")
		end := rapid.IntRange(max(start, 1), 4).Draw(t, "end")
		so, eo := rapid.IntRange(0, 3).Draw(t, "start offset"), rapid.IntRange(0, 3).Draw(t, "end offset")
		key := exec.SortKey{Col: 1, Desc: rapid.Bool().Draw(t, "desc"), NullsFirst: rapid.Bool().Draw(t, "nulls first")}
		fr := frame(exec.FrameRange, kinds[start], so, kinds[end], eo)
		a, _ := expr.NewAgg("count", nil, false, true)
		got, err := exec.Collect(newCtx(), &exec.Window{Input: source(rows...), Order: []exec.SortKey{key},
			Funcs: []exec.WindowFunc{{Name: "count", Agg: a, Frame: fr}}})
		if err != nil {
			t.Fatal(err)
		}
		// The values in window order, and where the non-NULL ones are.
		vals := make([]types.Datum, len(got))
		lo, hi := 0, 0
		for i, r := range got {
			vals[i] = r[1]
			if !r[1].IsNull() {
				if hi == 0 {
					lo = i
				}
				hi = i + 1
			}
		}
		dir := int64(1)
		if key.Desc {
			dir = -1
		}
		// after reports whether w comes at or after the position of value
		// v + off in window order.
		after := func(w types.Datum, v, off int64) bool { return dir*w.Int() >= dir*v+off }
		for i, r := range got {
			first, last := i, i+1 // the row's peers
			for first > 0 && types.Compare(vals[first-1], vals[i]) == 0 {
				first--
			}
			for last < len(vals) && types.Compare(vals[last], vals[i]) == 0 {
				last++
			}
			edge := func(k exec.BoundKind, off int, isEnd bool) int {
				switch {
				case k == exec.UnboundedPreceding:
					return 0
				case k == exec.UnboundedFollowing:
					return len(vals)
				case k == exec.CurrentRow || vals[i].IsNull():
					if isEnd {
						return last
					}
					return first
				}
				o := int64(off)
				if k == exec.OffsetPreceding {
					o = -o
				}
				j := lo
				if isEnd {
					// The first row past v + o.
					for j < hi && !after(vals[j], vals[i].Int(), o+1) {
						j++
					}
					return j
				}
				for j < hi && !after(vals[j], vals[i].Int(), o) {
					j++
				}
				return j
			}
			want := max(0, edge(kinds[end], eo, true)-edge(kinds[start], so, false))
			if r[2].Int() != int64(want) {
				t.Fatalf("row %d (%s): count %d, want %d (frame %s, order %+v, values %v)", i, vals[i], r[2].Int(), want, fr, key, vals)
			}
		}
	})
}
