package types

// The sizes of a RowArena's allocations, in datums: the first is small, so
// that an arena serving one row (a single-row INSERT) costs little, and
// each next one twice the last, up to arenaBlock, so that an arena serving
// a batch allocates rarely.
const (
	firstBlock = 16
	arenaBlock = 1024
)

// RowArena hands out rows that share large allocations, so that building
// a row for a batch (a stream's chunk, a statement's changes, decoded COPY
// data) costs no allocation of its own. The rows stay valid as long as
// anything holds them; keep one RowArena per producer so that an
// allocation serves many rows. The zero value is ready to use.
type RowArena struct {
	free []Datum
	// block is the size of the last allocation.
	block int
}

// Row returns storage for a new row of n datums, all NULL. A row is never
// nil, also of no columns: operators tell a nil row from a row (an
// aggregation without aggregates over no group key has one, of none).
func (a *RowArena) Row(n int) []Datum {
	if a.free == nil || cap(a.free)-len(a.free) < n {
		a.block = min(max(2*a.block, firstBlock), arenaBlock)
		a.free = make([]Datum, 0, max(n, a.block))
	}
	start := len(a.free)
	a.free = a.free[:start+n]
	return a.free[start : start+n : start+n]
}
