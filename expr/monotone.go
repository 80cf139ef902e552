package expr

// Monotone reports the input column of which e is a non-decreasing
// function, all its other operands being constants: the column itself, the
// column plus or minus a constant, tumble_start/tumble_end, date_trunc and
// date_bin of it, and widening casts of integers. A watermark on that
// column is then one on e: e evaluated at the watermark.
func Monotone(e Expr) (col int, ok bool) {
	switch x := e.(type) {
	case *ColRef:
		return x.Idx, true
	case *Binary:
		switch {
		case x.Op == "+" && isConst(x.L):
			return Monotone(x.R)
		case (x.Op == "+" || x.Op == "-") && isConst(x.R):
			return Monotone(x.L)
		}
	case *Func:
		arg := -1
		switch x.Name {
		case "tumble_start", "tumble_end":
			arg = 0
		case "date_trunc", "date_bin":
			arg = 1
		}
		if arg < 0 || arg >= len(x.Args) {
			return 0, false
		}
		for i, a := range x.Args {
			if i != arg && !isConst(a) {
				return 0, false
			}
		}
		return Monotone(x.Args[arg])
	case *Cast:
		if intRank(x.E.Type().Family) > 0 && intRank(x.E.Type().Family) <= intRank(x.To.Family) {
			return Monotone(x.E)
		}
	}
	return 0, false
}

func isConst(e Expr) bool {
	_, ok := e.(*Const)
	return ok
}
