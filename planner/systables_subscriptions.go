package planner

import (
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/types"
)

// subscriptionTables list the subscriptions in streamdb_catalog (they are
// not relations, so pg_class leaves them out): the temporary ones of
// SUBSCRIBE are not listed.
var subscriptionTables = map[string]*sysTable{
	"subscriptions": {
		cols: sysCols("schema text", "name text", "definition text", "retention interval", "since_epoch int8"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range cat.Tables() {
				if t.Kind == meta.KindSubscription && t.SessionNode == "" {
					rows = append(rows, []types.Datum{dStr(t.Schema), dStr(t.Name), dStr(t.ViewSQL),
						types.NewInterval(types.IntervalValue{Micros: t.Retention.Microseconds()}), dInt(int64(t.Since))})
				}
			}
			return rows
		},
	},
}

// relations returns the catalog's objects that are relations: all but
// subscriptions and sinks, whose logs are read by SUBSCRIBE and delivery.
func relations(cat *meta.Catalog) []*meta.Table {
	var out []*meta.Table
	for _, t := range cat.Tables() {
		if !t.Kind.Logged() {
			out = append(out, t)
		}
	}
	return out
}
