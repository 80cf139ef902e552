package planner

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
)

// scope is the set of columns visible to expressions at one query level.
// Lookups that miss go to the parent (the enclosing query), producing outer
// references and marking the subqueries in between as correlated.
type scope struct {
	cols   []Column
	parent *scope
	depth  int
	// sub is the subquery this scope belongs to (nil at the top level).
	sub *subqueryInfo
	// grouping is the aggregation of a grouped query while the
	// expressions over its output (select list, HAVING, ORDER BY, outside
	// aggregate arguments) bind: a subquery there runs once per group and
	// reads a grouped column of this scope from the Aggregate's output.
	grouping *aggCollector
}

// subqueryInfo records what binding a subquery found out about it.
type subqueryInfo struct {
	correlated bool
}

func (s *scope) child(cols []Column, sub *subqueryInfo) *scope {
	return &scope{cols: cols, parent: s, depth: s.depth + 1, sub: sub}
}

// lookup finds a column: exact qualifier match, then visible columns before
// hidden ones. It returns the index, or -1 when absent.
func (s *scope) lookup(table, name string) (int, error) {
	found := -1
	hiddenFound := -1
	for i, c := range s.cols {
		if c.Name != name || (table != "" && c.Table != table) {
			continue
		}
		if c.Hidden && table == "" {
			if hiddenFound < 0 {
				hiddenFound = i
			}
			continue
		}
		if found >= 0 && !(table == "" && c.Hidden) {
			return -1, pgerror.New(pgerror.CodeAmbiguousColumn, "column reference %q is ambiguous", qualified(table, name))
		}
		found = i
	}
	if found < 0 {
		found = hiddenFound
	}
	return found, nil
}

// resolve binds a column reference in s or an enclosing scope.
func (s *scope) resolve(table, name string) (expr.Expr, error) {
	for cur, level := s, 0; cur != nil; cur, level = cur.parent, level+1 {
		i, err := cur.lookup(table, name)
		if err != nil {
			return nil, err
		}
		if i < 0 {
			continue
		}
		c := cur.cols[i]
		if level == 0 {
			return &expr.ColRef{Idx: i, T: c.T, Name: qualified(c.Table, c.Name)}, nil
		}
		for mark := s; mark != cur; mark = mark.parent {
			if mark.sub != nil {
				mark.sub.correlated = true
			}
		}
		if cur.grouping != nil {
			if i = cur.grouping.groupColumn(i); i < 0 {
				return nil, pgerror.New(pgerror.CodeGroupingError, "subquery uses ungrouped column \"%s\" from outer query", qualified(c.Table, c.Name))
			}
		}
		return &expr.OuterRef{Level: level, Idx: i, T: c.T, Name: c.Name}, nil
	}
	if table == "" && s.hasTable(name) {
		return s.wholeRow(name)
	}
	if table != "" && !s.hasTable(table) {
		return nil, pgerror.New(pgerror.CodeUndefinedTable, "missing FROM-clause entry for table %q", table)
	}
	if table != "" {
		// PostgreSQL quotes neither part of a qualified name here.
		return nil, pgerror.New(pgerror.CodeUndefinedColumn, "column %s.%s does not exist", table, name)
	}
	return nil, pgerror.New(pgerror.CodeUndefinedColumn, "column %q does not exist", name)
}

func (s *scope) hasTable(table string) bool {
	for cur := s; cur != nil; cur = cur.parent {
		for _, c := range cur.cols {
			if c.Table == table {
				return true
			}
		}
	}
	return false
}

func qualified(table, name string) string {
	if table == "" {
		return name
	}
	return table + "." + name
}
