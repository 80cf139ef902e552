package planner

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
)

// notStreamable is the error for a query shape that materialized views do
// not support yet.
func notStreamable(what string) *pgerror.Error {
	return pgerror.New(pgerror.CodeFeatureNotSupported, "%s in materialized views are not supported yet", what)
}

// clockFuncs read the statement's clock: a view maintained long after its
// creation cannot give them one value.
var clockFuncs = map[string]bool{
	"now": true, "transaction_timestamp": true, "statement_timestamp": true, "current_date": true,
	"current_timestamp": true, "localtimestamp": true, "current_time": true, "localtime": true,
}

// isClockFunc reports whether f reads the statement's clock.
func isClockFunc(f *expr.Func) bool {
	return clockFuncs[f.Name] || f.Name == "age" && len(f.Args) == 1
}

// checkStreamable rejects expressions a streaming job cannot evaluate
// incrementally: subqueries, parameters, functions of the clock, and,
// unless volatileOK, functions whose result is not determined by their
// arguments (a retraction must recompute exactly the value its insertion
// did).
func checkStreamable(volatileOK bool, es ...expr.Expr) error {
	var err error
	for _, e := range es {
		expr.Walk(e, func(x expr.Expr) bool {
			if isSequenceExpr(x) {
				err = pgerror.New(pgerror.CodeFeatureNotSupported, "sequences are not supported in materialized views").
					WithDetail("nextval() and a sequence's row change at each call, so the view could not be kept up to date.")
				return false
			}
			switch f := x.(type) {
			case *expr.Subquery, *expr.OuterRef:
				err = notStreamable("subqueries")
			case *expr.Param:
				err = pgerror.New(pgerror.CodeFeatureNotSupported, "materialized views may not be defined using bound parameters")
			case *expr.Func:
				switch {
				case isClockFunc(f):
					err = pgerror.New(pgerror.CodeFeatureNotSupported, "function %s() is not supported here in materialized views", f.Name).
						WithDetail("Its result changes over time, so the view could not be kept up to date.").
						WithHint("Compare a column with now() in WHERE or HAVING, a temporal filter: WHERE ts > now() - INTERVAL '1' HOUR.")
				case f.Volatile() && !volatileOK:
					err = pgerror.New(pgerror.CodeFeatureNotSupported, "function %s() is not supported here in materialized views", f.Name).
						WithDetail("Its result differs at each call, and over input with updates or deletes a retraction must recompute exactly the value its insertion did.").
						WithHint("Use it over an append-only table or in VALUES.")
				}
			}
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
