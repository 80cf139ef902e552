package pgbaseline

// Workload is a query over the table bid whose result the systems keep
// fresh while bids arrive.
type Workload struct {
	// Name names the workload in reports, after the Nexmark query it
	// stands for.
	Name string
	// Query is the SELECT over bid kept in the materialized views.
	Query string
	// ResultTable creates the table named result that PostgreSQL's
	// trigger maintains, with Query's columns.
	ResultTable string
	// Maintain is the statement the trigger runs after each INSERT into
	// bid: it folds the transition table new_bids into result.
	Maintain string
}

// Workloads are the compared workloads: a projection (Nexmark q1) and a
// grouped aggregation (the per-auction counts and maxima under q4 and q5).
var Workloads = []Workload{
	{
		Name:        "q1",
		Query:       "SELECT auction, bidder, 0.908 * price AS price, date_time FROM bid",
		ResultTable: "CREATE TABLE result (auction bigint, bidder bigint, price numeric, date_time timestamp)",
		Maintain:    "INSERT INTO result SELECT auction, bidder, 0.908 * price, date_time FROM new_bids",
	},
	{
		Name:        "agg",
		Query:       "SELECT auction, count(*) AS num, max(price) AS max_price FROM bid GROUP BY auction",
		ResultTable: "CREATE TABLE result (auction bigint PRIMARY KEY, num bigint NOT NULL, max_price bigint)",
		Maintain: "INSERT INTO result SELECT auction, count(*), max(price) FROM new_bids GROUP BY auction " +
			"ON CONFLICT (auction) DO UPDATE SET num = result.num + excluded.num, max_price = greatest(result.max_price, excluded.max_price)",
	},
}
