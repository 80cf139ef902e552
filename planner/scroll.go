package planner

// Scrollable reports whether a cursor over query n goes backward when
// declared with neither SCROLL nor NO SCROLL. PostgreSQL allows it when
// every node of the plan can scan backward: scans, filters, projections,
// sorts, limits, VALUES lists, functions in FROM and UNION ALL; not
// joins, aggregates, DISTINCT, window functions, other set operations, or
// a SELECT without FROM.
func Scrollable(n Node) bool {
	switch x := n.(type) {
	case *Values:
		return len(x.Cols) > 0
	case *ProjectSet:
		// A function in FROM: set-returning functions over the empty row.
		v, ok := x.Input.(*Values)
		return ok && len(v.Cols) == 0
	case *SetOp:
		if x.Kind != Union || !x.All {
			return false
		}
	case *Scan, *Filter, *Project, *Sort, *Limit:
	default:
		return false
	}
	for _, in := range n.Inputs() {
		if !Scrollable(in) {
			return false
		}
	}
	return true
}
