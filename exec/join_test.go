package exec_test

import (
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
)

// joinInputs are the sides of the join tests: (key, name) rows with
// duplicate and NULL keys on both sides.
func joinInputs() (l, r *spy) {
	l = source(row(1, "l1"), row(2, "l2"), row(2, "l2b"), row(nil, "ln"), row(4, "l4"))
	r = source(row(2, "r2"), row(2, "r2b"), row(3, "r3"), row(nil, "rn"), row(1, "r1"))
	return l, r
}

// keyed returns a join on l.key = r.key, hashed or as a nested loop.
func keyed(t *testing.T, kind exec.JoinKind, hashed bool, residual expr.Expr) *exec.Join {
	l, r := joinInputs()
	j := &exec.Join{Kind: kind, Left: l, Right: r, LeftWidth: 2, RightWidth: 2, On: residual}
	if hashed {
		j.LeftKeys, j.RightKeys = []expr.Expr{col(0)}, []expr.Expr{col(0)}
		return j
	}
	eq := bin(t, "=", col(0), col(2))
	if residual != nil {
		eq = &expr.And{Args: []expr.Expr{eq, residual}}
	}
	j.On = eq
	return j
}

func TestJoinKinds(t *testing.T) {
	matches := []string{"1,l1,1,r1", "2,l2,2,r2", "2,l2,2,r2b", "2,l2b,2,r2", "2,l2b,2,r2b"}
	leftOnly := []string{"NULL,ln,NULL,NULL", "4,l4,NULL,NULL"}
	rightOnly := []string{"NULL,NULL,3,r3", "NULL,NULL,NULL,rn"}
	// Residual: the right name must not be r2b.
	resMatches := []string{"1,l1,1,r1", "2,l2,2,r2", "2,l2b,2,r2"}
	resRightOnly := []string{"NULL,NULL,2,r2b", "NULL,NULL,3,r3", "NULL,NULL,NULL,rn"}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name     string
		kind     exec.JoinKind
		residual bool
		want     []string
	}{
		{"inner", exec.Inner, false, matches},
		{"left", exec.Left, false, cat(matches, leftOnly)},
		{"right", exec.Right, false, cat(matches, rightOnly)},
		{"full", exec.Full, false, cat(matches, leftOnly, rightOnly)},
		{"inner residual", exec.Inner, true, resMatches},
		{"left residual", exec.Left, true, cat(resMatches, leftOnly)},
		{"right residual", exec.Right, true, cat(resMatches, resRightOnly)},
		{"full residual", exec.Full, true, cat(resMatches, leftOnly, resRightOnly)},
	}
	for _, tt := range tests {
		for _, hashed := range []bool{true, false} {
			name := tt.name + "/nested loop"
			if hashed {
				name = tt.name + "/hash"
			}
			t.Run(name, func(t *testing.T) {
				var residual expr.Expr
				if tt.residual {
					residual = bin(t, "<>", textCol(3), lit("r2b"))
				}
				equalBags(t, "rows", run(t, keyed(t, tt.kind, hashed, residual)), tt.want)
			})
		}
	}
}

func TestJoinOrder(t *testing.T) {
	// Matches stream in left order, each left row's matches in right order;
	// unmatched right rows follow at the end in right order.
	got := run(t, keyed(t, exec.Full, true, nil))
	want := []string{
		"1,l1,1,r1", "2,l2,2,r2", "2,l2,2,r2b", "2,l2b,2,r2", "2,l2b,2,r2b",
		"NULL,ln,NULL,NULL", "4,l4,NULL,NULL", "NULL,NULL,3,r3", "NULL,NULL,NULL,rn",
	}
	equalRows(t, "rows", got, want)
}

func TestJoinSpecialInputs(t *testing.T) {
	tests := []struct {
		name string
		join func(t *testing.T) *exec.Join
		want []string
	}{
		{"cross join", func(*testing.T) *exec.Join {
			return &exec.Join{Kind: exec.Inner, Left: ints(1, 2), Right: ints(nil, 3), LeftWidth: 1, RightWidth: 1}
		}, []string{"1,NULL", "1,3", "2,NULL", "2,3"}},
		{"left join of empty right", func(*testing.T) *exec.Join {
			return &exec.Join{Kind: exec.Left, Left: ints(1, nil), Right: ints(), LeftWidth: 1, RightWidth: 1,
				LeftKeys: []expr.Expr{col(0)}, RightKeys: []expr.Expr{col(0)}}
		}, []string{"1,NULL", "NULL,NULL"}},
		{"right join of empty left", func(*testing.T) *exec.Join {
			return &exec.Join{Kind: exec.Right, Left: ints(), Right: ints(1, nil), LeftWidth: 1, RightWidth: 1,
				LeftKeys: []expr.Expr{col(0)}, RightKeys: []expr.Expr{col(0)}}
		}, []string{"NULL,1", "NULL,NULL"}},
		{"NULL keys never match", func(*testing.T) *exec.Join {
			return &exec.Join{Kind: exec.Full, Left: ints(nil), Right: ints(nil), LeftWidth: 1, RightWidth: 1,
				LeftKeys: []expr.Expr{col(0)}, RightKeys: []expr.Expr{col(0)}}
		}, []string{"NULL,NULL", "NULL,NULL"}},
		{"two key columns", func(*testing.T) *exec.Join {
			l := source(row(1, 1), row(1, 2), row(1, nil))
			r := source(row(1, 2), row(2, 2), row(1, nil))
			return &exec.Join{Kind: exec.Inner, Left: l, Right: r, LeftWidth: 2, RightWidth: 2,
				LeftKeys: []expr.Expr{col(0), col(1)}, RightKeys: []expr.Expr{col(0), col(1)}}
		}, []string{"1,2,1,2"}},
		{"key expressions", func(t *testing.T) *exec.Join {
			return &exec.Join{Kind: exec.Inner, Left: ints(1, 2, 3), Right: ints(2, 4, 6), LeftWidth: 1, RightWidth: 1,
				LeftKeys: []expr.Expr{bin(t, "*", col(0), lit(2))}, RightKeys: []expr.Expr{col(0)}}
		}, []string{"1,2", "2,4", "3,6"}},
		{"NULL residual is no match", func(t *testing.T) *exec.Join {
			return &exec.Join{Kind: exec.Left, Left: ints(1), Right: ints(1), LeftWidth: 1, RightWidth: 1,
				LeftKeys: []expr.Expr{col(0)}, RightKeys: []expr.Expr{col(0)}, On: lit(nil)}
		}, []string{"1,NULL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			equalBags(t, "rows", run(t, tt.join(t)), tt.want)
		})
	}
}

func TestJoinEarlyStop(t *testing.T) {
	tests := []struct {
		name string
		kind exec.JoinKind
		n    int
		want []string
		// leftProduced is how many left rows were pulled before stopping.
		leftProduced int
	}{
		{"inner, within a left row's matches", exec.Inner, 2, []string{"1,l1,1,r1", "2,l2,2,r2"}, 2},
		{"left, at a NULL-extended row", exec.Left, 6, []string{
			"1,l1,1,r1", "2,l2,2,r2", "2,l2,2,r2b", "2,l2b,2,r2", "2,l2b,2,r2b", "NULL,ln,NULL,NULL"}, 4},
		{"full, among unmatched right rows", exec.Full, 8, []string{
			"1,l1,1,r1", "2,l2,2,r2", "2,l2,2,r2b", "2,l2b,2,r2", "2,l2b,2,r2b",
			"NULL,ln,NULL,NULL", "4,l4,NULL,NULL", "NULL,NULL,3,r3"}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := keyed(t, tt.kind, true, nil)
			equalRows(t, "rows", take(t, j, tt.n), tt.want)
			if got := j.Left.(*spy).produced; got != tt.leftProduced {
				t.Errorf("left produced %d rows, want %d", got, tt.leftProduced)
			}
		})
	}
}
