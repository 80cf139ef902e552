// Package planner turns parsed SQL (the TiDB AST as translated by
// sql/parser) into typed logical plans: it binds names against the catalog,
// resolves operators and functions with PostgreSQL's typing rules, plans
// aggregation, window functions, sorting and subqueries, and builds
// executable batch plans.
// Streaming plans for materialized views build on the same logical plans.
package planner

import (
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Column is one output column of a plan node.
type Column struct {
	Name string
	// Table is the name (or alias) that qualifies the column in scope, "" for
	// computed columns.
	Table string
	T     types.T
	// Hidden columns (a table's row id) are not expanded by *.
	Hidden bool
	// Merged marks a hidden column that a join's USING or NATURAL merged
	// into one output column: * skips it, its table's t.* keeps it.
	Merged bool
	// TableID and Attr identify a base-table column for RowDescription.
	TableID uint32
	Attr    int16
}

// Node is a logical plan node.
type Node interface {
	Columns() []Column
	Inputs() []Node
	explain() string
}

// Scan reads a base table.
type Scan struct {
	Table *meta.Table
	Cols  []Column
	// ProcTime: the table was named FOR SYSTEM_TIME AS OF PROCTIME(), the
	// right side of a processing-time temporal join (Join.Temporal).
	ProcTime bool
}

// Values produces constant rows (also the one empty row of a FROM-less SELECT).
type Values struct {
	Rows [][]expr.Expr
	Cols []Column
}

// Filter keeps rows for which Cond is true.
type Filter struct {
	Input Node
	Cond  expr.Expr
}

// Project computes Exprs over each input row.
type Project struct {
	Input Node
	Exprs []expr.Expr
	Cols  []Column
}

// JoinKind is the kind of a join.
type JoinKind = exec.JoinKind

// Join kinds.
const (
	InnerJoin = exec.Inner
	LeftJoin  = exec.Left
	RightJoin = exec.Right
	FullJoin  = exec.Full
	SemiJoin  = exec.Semi
	AntiJoin  = exec.Anti
)

// Join combines two inputs; output columns are the left's then the right's
// (the left's only for SemiJoin and AntiJoin, which the streaming planner
// alone makes: decorrelate). On is evaluated over the concatenated row;
// nil means a cross join.
type Join struct {
	Kind JoinKind
	L, R Node
	On   expr.Expr
	// Temporal: R is a table read FOR SYSTEM_TIME AS OF PROCTIME(). A
	// batch query joins it as it is; a view looks each left change up in
	// R's current rows, and R's later changes leave earlier output alone.
	Temporal bool
}

// Aggregate groups its input by Group and computes Aggs per group. Output:
// the group values, then the aggregate results.
type Aggregate struct {
	Input Node
	Group []expr.Expr
	Aggs  []*expr.AggFunc
	Cols  []Column
	// EmptySets are the numbers of the grouping sets that group by no
	// column, over an Expand whose set number is the last of Group: like
	// an aggregation without GROUP BY, each has a row for empty input too.
	EmptySets []int
}

// Expand emits each input row once per grouping set: for set number i,
// the row with its columns Nulled[i] set to NULL, followed by i (bigint).
// An Aggregate grouping by the grouping columns and the set number above
// it computes every grouping set in one pass.
type Expand struct {
	Input  Node
	Nulled [][]int
	Cols   []Column
}

// Distinct removes duplicate rows.
type Distinct struct{ Input Node }

// SortKey is one ORDER BY key over the input's columns.
type SortKey struct {
	Col        int
	Desc       bool
	NullsFirst bool
}

// Sort orders its input.
type Sort struct {
	Input Node
	Keys  []SortKey
}

// Limit skips Offset rows then passes at most Count (nil: no limit).
type Limit struct {
	Input         Node
	Count, Offset expr.Expr
	// WithTies (FETCH ... WITH TIES) also keeps the rows that are peers of
	// the last counted one by the keys of Input, a Sort.
	WithTies bool
}

// WindowFunc is one window function call of a Window node.
type WindowFunc = exec.WindowFunc

// Window computes window functions over the partitions of its input: the
// rows equal on the Partition columns, each ordered by Order. Output: the
// input's columns, then one column per function.
type Window struct {
	Input     Node
	Partition []int
	Order     []SortKey
	Funcs     []WindowFunc
	Cols      []Column
}

// SetOpKind is UNION, EXCEPT or INTERSECT.
type SetOpKind = exec.SetOpKind

// Set operation kinds.
const (
	Union     = exec.Union
	Except    = exec.Except
	Intersect = exec.Intersect
)

// SetOp combines two inputs with the same column types.
type SetOp struct {
	Kind SetOpKind
	All  bool
	L, R Node
	Cols []Column
}

// ProjectSet appends the values of set-returning functions to each input
// row: per input row it yields as many rows as the longest function
// yields, a function that ran out giving NULL (PostgreSQL's rule for
// several of them in a select list). With Ordinality the row's number
// (from 1, int8) follows. Cols: the input's, then one per function (and
// the ordinality).
type ProjectSet struct {
	Input      Node
	Funcs      []*expr.SetFunc
	Ordinality bool
	Cols       []Column
}

// Apply is a lateral join: R is evaluated for each row of L, which it
// reads as its innermost outer row (expr.OuterRef level 1). Kind is
// InnerJoin or LeftJoin; On, if set, filters the concatenated rows.
type Apply struct {
	Kind JoinKind
	L, R Node
	On   expr.Expr
}

// Columns implements Node.
func (n *Scan) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *Values) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *Filter) Columns() []Column { return n.Input.Columns() }

// Columns implements Node.
func (n *Project) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *Join) Columns() []Column {
	if n.Kind == SemiJoin || n.Kind == AntiJoin {
		return n.L.Columns()
	}
	return concatCols(n.L, n.R)
}

// concatCols returns l's columns followed by r's.
func concatCols(l, r Node) []Column {
	lc, rc := l.Columns(), r.Columns()
	return append(append(make([]Column, 0, len(lc)+len(rc)), lc...), rc...)
}

// Columns implements Node.
func (n *Aggregate) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *Expand) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *Distinct) Columns() []Column { return n.Input.Columns() }

// Columns implements Node.
func (n *Sort) Columns() []Column { return n.Input.Columns() }

// Columns implements Node.
func (n *Limit) Columns() []Column { return n.Input.Columns() }

// Columns implements Node.
func (n *SetOp) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *Window) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *ProjectSet) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *Apply) Columns() []Column { return concatCols(n.L, n.R) }

// Inputs implements Node.
func (n *Scan) Inputs() []Node { return nil }

// Inputs implements Node.
func (n *ProjectSet) Inputs() []Node { return []Node{n.Input} }

// Inputs implements Node.
func (n *Apply) Inputs() []Node { return []Node{n.L, n.R} }

// Inputs implements Node.
func (n *Values) Inputs() []Node { return nil }

// Inputs implements Node.
func (n *Filter) Inputs() []Node { return []Node{n.Input} }

// Inputs implements Node.
func (n *Project) Inputs() []Node { return []Node{n.Input} }

// Inputs implements Node.
func (n *Join) Inputs() []Node { return []Node{n.L, n.R} }

// Inputs implements Node.
func (n *Aggregate) Inputs() []Node { return []Node{n.Input} }

// Inputs implements Node.
func (n *Expand) Inputs() []Node { return []Node{n.Input} }

// Inputs implements Node.
func (n *Distinct) Inputs() []Node { return []Node{n.Input} }

// Inputs implements Node.
func (n *Sort) Inputs() []Node { return []Node{n.Input} }

// Inputs implements Node.
func (n *Limit) Inputs() []Node { return []Node{n.Input} }

// Inputs implements Node.
func (n *SetOp) Inputs() []Node { return []Node{n.L, n.R} }

// Inputs implements Node.
func (n *Window) Inputs() []Node { return []Node{n.Input} }

func (n *Scan) explain() string     { return "Scan " + n.Table.Name }
func (n *Values) explain() string   { return fmt.Sprintf("Values (%d rows)", len(n.Rows)) }
func (n *Filter) explain() string   { return "Filter " + n.Cond.String() }
func (n *Distinct) explain() string { return "Distinct" }
func (n *Project) explain() string {
	parts := make([]string, len(n.Exprs))
	for i, e := range n.Exprs {
		parts[i] = e.String()
	}
	return "Project " + strings.Join(parts, ", ")
}
func (n *Join) explain() string {
	if n.Temporal {
		return n.Kind.String() + "TemporalJoin" + onText(n.On)
	}
	return n.Kind.String() + "Join" + onText(n.On)
}
func (n *Apply) explain() string { return n.Kind.String() + "Apply" + onText(n.On) }
func (n *ProjectSet) explain() string {
	parts := make([]string, len(n.Funcs))
	for i, f := range n.Funcs {
		parts[i] = f.String()
	}
	ord := ""
	if n.Ordinality {
		ord = " WITH ORDINALITY"
	}
	return "ProjectSet " + strings.Join(parts, ", ") + ord
}

func onText(on expr.Expr) string {
	if on == nil {
		return ""
	}
	return " ON " + on.String()
}
func (n *Aggregate) explain() string {
	parts := make([]string, 0, len(n.Group)+len(n.Aggs))
	for _, g := range n.Group {
		parts = append(parts, g.String())
	}
	for _, a := range n.Aggs {
		parts = append(parts, a.String())
	}
	return "Aggregate " + strings.Join(parts, ", ")
}
func (n *Expand) explain() string { return fmt.Sprintf("Expand nulled=%v", n.Nulled) }
func (n *Sort) explain() string   { return fmt.Sprintf("Sort %v", n.Keys) }
func (n *Limit) explain() string {
	if n.WithTies {
		return "Limit with ties"
	}
	return "Limit"
}
func (n *SetOp) explain() string {
	all := ""
	if n.All {
		all = " All"
	}
	return n.Kind.String() + all
}
func (n *Window) explain() string {
	order := make([]string, len(n.Order))
	for i, k := range n.Order {
		order[i] = fmt.Sprintf("$%d", k.Col)
		if k.Desc {
			order[i] += " DESC"
		}
		switch {
		case k.NullsFirst && !k.Desc:
			order[i] += " NULLS FIRST"
		case !k.NullsFirst && k.Desc:
			order[i] += " NULLS LAST"
		}
	}
	funcs := make([]string, len(n.Funcs))
	for i := range n.Funcs {
		funcs[i] = n.Funcs[i].String()
	}
	return fmt.Sprintf("Window partition=%v order=[%s] %s", n.Partition, strings.Join(order, " "), strings.Join(funcs, ", "))
}

// Explain renders a plan tree, one node per line, children indented.
func Explain(n Node) []string {
	var lines []string
	var walk func(n Node, depth int)
	walk = func(n Node, depth int) {
		lines = append(lines, strings.Repeat("  ", depth)+n.explain())
		for _, in := range n.Inputs() {
			walk(in, depth+1)
		}
	}
	walk(n, 0)
	return lines
}

// Dependencies returns the ids of the tables and views a plan reads,
// including through subqueries in expressions.
func Dependencies(n Node) []uint32 {
	var out []uint32
	for _, t := range scanned(n) {
		out = append(out, t.ID)
	}
	return out
}

// CheckBatch refuses a plan that a batch query cannot run: one reading a
// source, which stores nothing (only materialized views over it can).
func CheckBatch(n Node) error {
	for _, t := range scanned(n) {
		if t.Kind == meta.KindSource {
			return pgerror.New(pgerror.CodeFeatureNotSupported, "cannot read source %q directly: a source stores no rows", t.Name).
				WithHint("Create a materialized view over it, e.g. CREATE MATERIALIZED VIEW v AS SELECT * FROM %s, and query the view; or create a table with the connector instead.", t.Name)
		}
	}
	return nil
}

// scanned returns the relations a plan reads, once each, including through
// subqueries in expressions.
func scanned(n Node) []*meta.Table {
	seen := map[uint32]bool{}
	var out []*meta.Table
	var walk func(Node)
	walk = func(n Node) {
		if s, ok := n.(*Scan); ok && !seen[s.Table.ID] {
			seen[s.Table.ID] = true
			out = append(out, s.Table)
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
		for _, e := range exprsOf(n) {
			expr.Walk(e, func(x expr.Expr) bool {
				if sq, ok := x.(*expr.Subquery); ok {
					if p, ok := sq.Plan.(*subPlan); ok {
						walk(p.node)
					}
				}
				return true
			})
		}
	}
	walk(n)
	return out
}

// exprsOf returns the expressions a node evaluates.
func exprsOf(n Node) []expr.Expr {
	switch x := n.(type) {
	case *Filter:
		return []expr.Expr{x.Cond}
	case *Project:
		return x.Exprs
	case *Join:
		return nonNil(x.On)
	case *Apply:
		return nonNil(x.On)
	case *ProjectSet:
		var out []expr.Expr
		for _, f := range x.Funcs {
			out = append(out, f.Args...)
		}
		return out
	case *Aggregate:
		out := append([]expr.Expr(nil), x.Group...)
		for _, a := range x.Aggs {
			out = append(out, a.Args...)
		}
		return out
	case *Values:
		var out []expr.Expr
		for _, r := range x.Rows {
			out = append(out, r...)
		}
		return out
	case *Limit:
		return nonNil(x.Count, x.Offset)
	case *Window:
		var out []expr.Expr
		for _, f := range x.Funcs {
			out = append(out, f.Args...)
			if f.Agg != nil {
				out = append(out, nonNil(f.Agg.Filter)...)
			}
			out = append(out, nonNil(f.Frame.Start.Offset, f.Frame.End.Offset)...)
		}
		return out
	}
	return nil
}

func nonNil(es ...expr.Expr) []expr.Expr {
	var out []expr.Expr
	for _, e := range es {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}
