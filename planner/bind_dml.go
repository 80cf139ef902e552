package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
	"slices"
)

// Insert writes the rows of Source into Table. Source produces full rows
// of the table's visible columns, already cast to their types; a hidden row
// id is assigned by the writer.
type Insert struct {
	Table  *meta.Table
	Source Node
	// SkipConflicts (ON CONFLICT DO NOTHING) skips rows whose primary key
	// is taken, by the table or an earlier row of the statement.
	SkipConflicts bool
	// OnConflict (ON CONFLICT (key) DO UPDATE SET ...) updates the row
	// holding a taken key instead, setting each column Col to Expr
	// evaluated over that row followed by the proposed one (EXCLUDED).
	OnConflict []Assignment
	// Returning is the RETURNING list over each row inserted or updated
	// (not the ones ON CONFLICT DO NOTHING skips); nil if none.
	Returning *Project
}

// Assignment is one SET column = Expr of UPDATE or ON CONFLICT DO UPDATE.
type Assignment struct {
	Col  int
	Expr expr.Expr
}

// Update rewrites the rows of Table selected by Source. Source produces the
// old row followed by the new row (both full rows, hidden columns included).
type Update struct {
	Table  *meta.Table
	Source Node
	// Returning is the RETURNING list over each new row; nil if none.
	Returning *Project
}

// Delete removes the rows of Table produced by Source (full rows).
type Delete struct {
	Table  *meta.Table
	Source Node
	// Returning is the RETURNING list over each deleted row; nil if none.
	Returning *Project
}

// BindInsert binds INSERT INTO t [(cols)] [OVERRIDING overriding VALUE]
// VALUES ... | SELECT ... [RETURNING returning]; overriding is "system",
// "user" or "".
func (b *Binder) BindInsert(st *ast.InsertStmt, returning []*ast.SelectField, overriding string) (*Insert, error) {
	privs := []meta.Privilege{meta.PrivInsert}
	if returning != nil {
		privs = append(privs, meta.PrivSelect)
	}
	if len(st.OnDuplicate) > 1 {
		// ON CONFLICT DO UPDATE reads and updates the conflicting row.
		privs = append(privs, meta.PrivUpdate, meta.PrivSelect)
	}
	t, err := b.dmlTable(st.Table.TableRefs, privs...)
	if err != nil {
		return nil, err
	}
	skip, sets, err := b.onConflict(st, t)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, c := range st.Columns {
		names = append(names, c.Name.O)
	}
	target, err := insertTargets(t, names)
	if err != nil {
		return nil, err
	}
	// Values given to identity columns: refused for GENERATED ALWAYS
	// unless OVERRIDING SYSTEM VALUE, ignored with OVERRIDING USER VALUE.
	given := func(col meta.Column) (bool, error) {
		switch {
		case col.Identity == 0 || overriding == "system":
			return true, nil
		case overriding == "user":
			return false, nil
		case col.Identity == 'a':
			return false, pgerror.New("428C9", "cannot insert a non-DEFAULT value into column %q", col.Name).
				WithDetail("Column %q is an identity column defined as GENERATED ALWAYS.", col.Name).
				WithHint("Use OVERRIDING SYSTEM VALUE to override.")
		}
		return true, nil
	}
	// Without a column list, as many leading columns as there are values
	// take them (none for DEFAULT VALUES, the SQL front's () VALUES ()),
	// the others their defaults.
	short := func(n int) {
		if names == nil && n < len(target) {
			target = target[:n]
		}
	}
	root := &scope{}
	var src Node
	switch {
	case st.Select != nil:
		if src, err = b.bindQuery(st.Select, root, nil); err != nil {
			return nil, err
		}
		short(len(src.Columns()))
		if len(src.Columns()) > len(target) {
			return nil, pgerror.New(pgerror.CodeSyntaxError, "INSERT has more expressions than target columns")
		}
		if len(src.Columns()) < len(target) {
			return nil, pgerror.New(pgerror.CodeSyntaxError, "INSERT has more target columns than expressions")
		}
		for j, i := range target {
			if ok, err := given(t.Columns[i]); err != nil {
				return nil, err
			} else if !ok {
				// An ignored value: the default takes its place.
				target[j] = -1
			}
		}
	default:
		v := &Values{}
		s := root.child(nil, nil)
		if len(st.Lists) > 0 {
			short(len(st.Lists[0]))
		}
		for _, list := range st.Lists {
			if len(list) > len(target) {
				return nil, pgerror.New(pgerror.CodeSyntaxError, "INSERT has more expressions than target columns")
			}
			if len(list) < len(target) {
				return nil, pgerror.New(pgerror.CodeSyntaxError, "INSERT has more target columns than expressions")
			}
			row := make([]expr.Expr, len(list))
			for j, n := range list {
				col := t.Columns[target[j]]
				_, isDefault := n.(*ast.DefaultExpr)
				if !isDefault {
					ok, err := given(col)
					if err != nil {
						return nil, err
					}
					isDefault = !ok
				}
				if isDefault {
					if row[j], err = b.defaultValue(t, col); err != nil {
						return nil, err
					}
					continue
				}
				e, err := b.bindExpr(n, s)
				if err != nil {
					return nil, err
				}
				if row[j], err = b.assign(e, col); err != nil {
					return nil, err
				}
			}
			v.Rows = append(v.Rows, row)
		}
		for _, i := range target {
			v.Cols = append(v.Cols, Column{Name: t.Columns[i].Name, T: t.Columns[i].Type})
		}
		src = v
	}

	proj, err := b.insertProject(t, target, src)
	if err != nil {
		return nil, err
	}
	ret, err := b.bindReturning(t, tableAlias(st.Table.TableRefs), returning)
	if err != nil {
		return nil, err
	}
	return &Insert{Table: t, Source: proj, SkipConflicts: skip, OnConflict: sets, Returning: ret}, nil
}

// BindCopy binds COPY schema.name [(columns)] FROM STDIN as an INSERT
// whose Source is a Project over a Values without rows that stands for the
// copied rows: rows of the named columns (all visible ones if none), in
// order, of their types. The executor runs the Project's expressions over
// the rows it reads; they fill in the defaults of the other columns.
func (b *Binder) BindCopy(schema, name string, columns []string) (*Insert, error) {
	t, err := b.dmlTarget(schema, name, meta.PrivInsert)
	if err != nil {
		return nil, err
	}
	target, err := insertTargets(t, columns)
	if err != nil {
		return nil, err
	}
	src := &Values{}
	for _, i := range target {
		src.Cols = append(src.Cols, Column{Name: t.Columns[i].Name, T: t.Columns[i].Type})
	}
	proj, err := b.insertProject(t, target, src)
	if err != nil {
		return nil, err
	}
	return &Insert{Table: t, Source: proj}, nil
}

// insertTargets returns the indexes of the columns of t an INSERT or COPY
// names, or of every visible column if it names none.
func insertTargets(t *meta.Table, names []string) ([]int, error) {
	if len(names) == 0 {
		return visibleColumns(t), nil
	}
	var target []int
	seen := map[int]bool{}
	for _, name := range names {
		i := t.ColumnIndex(name)
		if i < 0 || t.Columns[i].Hidden {
			return nil, pgerror.New(pgerror.CodeUndefinedColumn, "column %q of relation %q does not exist", name, t.Name)
		}
		if seen[i] {
			return nil, pgerror.New(pgerror.CodeDuplicateColumn, "column %q specified more than once", name)
		}
		seen[i] = true
		target = append(target, i)
	}
	return target, nil
}

// insertProject projects src, whose columns feed the target columns of t
// in order, onto t's visible columns: the others get their defaults.
func (b *Binder) insertProject(t *meta.Table, target []int, src Node) (*Project, error) {
	// pos[i] is the source column feeding table column i, or -1 (default).
	pos := make([]int, len(t.Columns))
	for i := range pos {
		pos[i] = -1
	}
	for j, i := range target {
		if i >= 0 {
			pos[i] = j
		}
	}
	srcCols := src.Columns()
	var exprs []expr.Expr
	var cols []Column
	for _, i := range visibleColumns(t) {
		col := t.Columns[i]
		var e expr.Expr
		var err error
		if pos[i] >= 0 {
			e = &expr.ColRef{Idx: pos[i], T: srcCols[pos[i]].T, Name: col.Name}
			if e, err = b.assign(e, col); err != nil {
				return nil, err
			}
		} else if e, err = b.defaultValue(t, col); err != nil {
			return nil, err
		}
		exprs = append(exprs, e)
		cols = append(cols, Column{Name: col.Name, T: col.Type})
	}
	return &Project{Input: src, Exprs: exprs, Cols: cols}, nil
}

// assign converts a value for storing into col (assignment cast rules).
func (b *Binder) assign(e expr.Expr, col meta.Column) (expr.Expr, error) {
	if c, ok := e.(*expr.Const); ok && c.T.Family == types.Unknown && !c.V.IsNull() {
		// An untyped literal is read by the column type's input function.
		v, err := types.CastAssign(c.V, c.T, col.Type)
		switch {
		case err != nil:
			return nil, err
		case types.ZoneDependent(c.T, col.Type):
			// Read in the session's time zone when the statement runs.
			return &expr.Cast{E: e, To: col.Type, Assign: true}, nil
		}
		return expr.NewConst(v, col.Type), nil
	}
	e, err := b.coerce(e, col.Type)
	if err != nil {
		return nil, err
	}
	if e.Type() == col.Type {
		return e, nil
	}
	from := e.Type()
	if !assignable(from, col.Type) {
		return nil, pgerror.New(pgerror.CodeDatatypeMismatch, "column %q is of type %s but expression is of type %s", col.Name, col.Type, from).
			WithHint("You will need to rewrite or cast the expression.")
	}
	if c, ok := e.(*expr.Const); ok {
		if c.V.IsNull() {
			return expr.NewConst(types.Null, col.Type), nil
		}
		if v, err := types.CastAssign(c.V, from, col.Type); err != nil {
			return nil, err
		} else if !types.ZoneDependent(from, col.Type) {
			return expr.NewConst(v, col.Type), nil
		}
	}
	return &expr.Cast{E: e, To: col.Type, Assign: true}, nil
}

// assignable reports whether PostgreSQL has an implicit or assignment cast
// from one type to another.
func assignable(from, to types.T) bool {
	switch {
	case from.Family == types.Array && to.Family == types.Array:
		return assignable(from.ElemType(), to.ElemType())
	case from.Family == to.Family:
		return true
	case from.IsNumeric() && to.IsNumeric():
		return true
	case from.IsString() && to.IsString():
		return true
	case to.IsString():
		return true // every type has an assignment cast to text
	case isDateTime(from) && isDateTime(to):
		return true
	}
	return false
}

func isDateTime(t types.T) bool {
	return t.Family == types.Date || t.Family == types.Timestamp || t.Family == types.TimestampTZ
}

// defaultValue binds a column's DEFAULT (NULL when it has none), the
// next value of its sequence for an identity column.
func (b *Binder) defaultValue(t *meta.Table, col meta.Column) (expr.Expr, error) {
	if col.Identity != 0 {
		seq, ok := b.cat.ColumnSequence(t, t.ColumnIndex(col.Name))
		if !ok {
			return nil, pgerror.New(pgerror.CodeInternal, "identity column %q of %q has no sequence", col.Name, t.Name)
		}
		next, err := expr.NewFunc("nextval", []expr.Expr{expr.NewConst(types.NewInt(int64(seq.ID)), types.TOid)})
		if err != nil {
			return nil, err
		}
		return b.assign(next, col)
	}
	if col.Default == "" {
		return expr.NewConst(types.Null, col.Type), nil
	}
	stmts, err := parser.Parse("SELECT " + col.Default)
	if err != nil {
		return nil, err
	}
	sel, ok := stmts[0].AST.(*ast.SelectStmt)
	if !ok || len(sel.Fields.Fields) != 1 {
		return nil, pgerror.New(pgerror.CodeInternal, "invalid default for column %q of %q", col.Name, t.Name)
	}
	e, err := b.bindExpr(sel.Fields.Fields[0].Expr, &scope{})
	if err != nil {
		return nil, err
	}
	return b.assign(e, col)
}

func visibleColumns(t *meta.Table) []int {
	var out []int
	for i, c := range t.Columns {
		if !c.Hidden {
			out = append(out, i)
		}
	}
	return out
}

// dmlTable resolves the single target table of a DML statement, which
// needs privs on it.
func (b *Binder) dmlTable(refs *ast.Join, privs ...meta.Privilege) (*meta.Table, error) {
	if refs == nil || refs.Right != nil {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "DML on more than one table is not supported")
	}
	ts, ok := refs.Left.(*ast.TableSource)
	if !ok {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "DML target must be a table")
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "DML target must be a table")
	}
	return b.dmlTarget(tn.Schema.O, tn.Name.O, privs...)
}

// dmlTarget resolves the table schema.name that DML or COPY writes to,
// which needs each of privs on it.
func (b *Binder) dmlTarget(schema, name string, privs ...meta.Privilege) (*meta.Table, error) {
	t, err := b.table(schema, name)
	if err != nil {
		return nil, err
	}
	for _, p := range privs {
		if err := b.require(t, p); err != nil {
			return nil, err
		}
	}
	if t.Kind != meta.KindTable {
		return nil, pgerror.New(pgerror.CodeWrongObjectType, "cannot change %s %q", t.Kind, t.Name)
	}
	if c := t.Connector(); c != "" {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "cannot change table %q: its rows come from connector %s", t.Name, c).
			WithHint("Write to a table without a connector, and combine the two in a view if needed.")
	}
	return t, nil
}

// dmlScan binds the rows a DML statement touches: the table filtered by WHERE.
func (b *Binder) dmlScan(t *meta.Table, alias string, where ast.ExprNode) (Node, *scope, error) {
	scan := &Scan{Table: t, Cols: tableColumns(t, alias)}
	s := (&scope{}).child(scan.Cols, nil)
	var n Node = scan
	if where != nil {
		cond, err := b.bindCondition(where, s, "WHERE")
		if err != nil {
			return nil, nil, err
		}
		n = &Filter{Input: n, Cond: cond}
	}
	return n, s, nil
}

func tableAlias(refs *ast.Join) string {
	if ts, ok := refs.Left.(*ast.TableSource); ok {
		return ts.AsName.O
	}
	return ""
}

// BindUpdate binds UPDATE t SET c = e, ... [WHERE ...] [RETURNING
// returning].
func (b *Binder) BindUpdate(st *ast.UpdateStmt, returning []*ast.SelectField) (*Update, error) {
	if st.Order != nil || st.Limit != nil {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "UPDATE does not support ORDER BY or LIMIT")
	}
	t, err := b.dmlTable(st.TableRefs.TableRefs, dmlPrivileges(meta.PrivUpdate, st.Where, returning)...)
	if err != nil {
		return nil, err
	}
	if err := appendOnlyCheck(t, "UPDATE"); err != nil {
		return nil, err
	}
	alias := tableAlias(st.TableRefs.TableRefs)
	in, s, err := b.dmlScan(t, alias, st.Where)
	if err != nil {
		return nil, err
	}
	n := len(t.Columns)
	exprs := make([]expr.Expr, 2*n)
	cols := make([]Column, 2*n)
	for i, c := range t.Columns {
		ref := &expr.ColRef{Idx: i, T: c.Type, Name: c.Name}
		exprs[i], exprs[n+i] = ref, ref
		cols[i] = Column{Name: c.Name, T: c.Type}
		cols[n+i] = cols[i]
	}
	sets, err := b.bindAssignments(t, st.List, s, nil)
	if err != nil {
		return nil, err
	}
	for _, a := range sets {
		exprs[n+a.Col] = a.Expr
	}
	ret, err := b.bindReturning(t, alias, returning)
	if err != nil {
		return nil, err
	}
	return &Update{Table: t, Source: &Project{Input: in, Exprs: exprs, Cols: cols}, Returning: ret}, nil
}

// dmlPrivileges are the privileges UPDATE or DELETE (priv) needs on its
// table: SELECT too when a WHERE or RETURNING reads its rows.
func dmlPrivileges(priv meta.Privilege, where ast.ExprNode, returning []*ast.SelectField) []meta.Privilege {
	if where != nil || returning != nil {
		return []meta.Privilege{priv, meta.PrivSelect}
	}
	return []meta.Privilege{priv}
}

// BindDelete binds DELETE FROM t [WHERE ...] [RETURNING returning].
func (b *Binder) BindDelete(st *ast.DeleteStmt, returning []*ast.SelectField) (*Delete, error) {
	if st.IsMultiTable || st.Order != nil || st.Limit != nil {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "this form of DELETE is not supported")
	}
	t, err := b.dmlTable(st.TableRefs.TableRefs, dmlPrivileges(meta.PrivDelete, st.Where, returning)...)
	if err != nil {
		return nil, err
	}
	if err := appendOnlyCheck(t, "DELETE"); err != nil {
		return nil, err
	}
	alias := tableAlias(st.TableRefs.TableRefs)
	in, _, err := b.dmlScan(t, alias, st.Where)
	if err != nil {
		return nil, err
	}
	ret, err := b.bindReturning(t, alias, returning)
	if err != nil {
		return nil, err
	}
	return &Delete{Table: t, Source: in, Returning: ret}, nil
}

// appendOnlyCheck refuses UPDATE and DELETE on an APPEND ONLY table: its
// streams carry inserts only, which lets views drop retraction state.
func appendOnlyCheck(t *meta.Table, stmt string) error {
	if !t.AppendOnly {
		return nil
	}
	return pgerror.New(pgerror.CodeFeatureNotSupported, "%s is not allowed on append-only table %q", stmt, t.Name).
		WithHint("Create the table without APPEND ONLY to change or delete rows.")
}

// onConflict reads the SQL front's form of ON CONFLICT [(cols)] DO NOTHING
// (ON DUPLICATE KEY UPDATE pg_on_conflict = pg_conflict_do_nothing(cols))
// and of ON CONFLICT (cols) DO UPDATE SET ... (pg_conflict_do_update(cols)
// followed by the assignments); the columns, if given, must be t's
// primary key, its only unique constraint.
func (b *Binder) onConflict(st *ast.InsertStmt, t *meta.Table) (skip bool, sets []Assignment, err error) {
	if st.IsReplace {
		return false, nil, pgerror.New(pgerror.CodeFeatureNotSupported, "REPLACE is not supported").WithHint("use INSERT ... ON CONFLICT")
	}
	if st.OnDuplicate == nil {
		return false, nil, nil
	}
	var call *ast.FuncCallExpr
	if st.OnDuplicate[0].Column.Name.L == "pg_on_conflict" {
		call, _ = st.OnDuplicate[0].Expr.(*ast.FuncCallExpr)
	}
	update := call != nil && call.FnName.L == "pg_conflict_do_update"
	if call == nil || !update && (call.FnName.L != "pg_conflict_do_nothing" || len(st.OnDuplicate) > 1) {
		return false, nil, pgerror.New(pgerror.CodeFeatureNotSupported, "ON DUPLICATE KEY UPDATE is not supported").WithHint("use INSERT ... ON CONFLICT")
	}
	if len(call.Args) > 0 {
		var names []string
		for _, a := range call.Args {
			if c, ok := a.(*ast.ColumnNameExpr); ok {
				names = append(names, c.Name.Name.O)
			}
		}
		var pk []string
		for _, i := range t.PK {
			if !t.Columns[i].Hidden {
				pk = append(pk, t.Columns[i].Name)
			}
		}
		slices.Sort(names)
		slices.Sort(pk)
		if len(pk) == 0 || !slices.Equal(slices.Compact(names), pk) {
			return false, nil, pgerror.New(pgerror.CodeInvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
		}
	}
	if !update {
		return true, nil, nil
	}
	// The assignments see the existing row under the table's name (or
	// its alias) and the proposed one as EXCLUDED.
	cols := append(tableColumns(t, tableAlias(st.Table.TableRefs)), tableColumns(t, "excluded")...)
	sets, err = b.bindAssignments(t, st.OnDuplicate[1:], (&scope{}).child(cols, nil), func(i int) error {
		if slices.Contains(t.PK, i) {
			return pgerror.New(pgerror.CodeFeatureNotSupported, "ON CONFLICT DO UPDATE may not change the primary key column %q", t.Columns[i].Name)
		}
		return nil
	})
	return false, sets, err
}

// bindAssignments binds SET column = expr, ... of t (UPDATE, ON CONFLICT
// DO UPDATE) over scope s; check, if set, vets each target column.
func (b *Binder) bindAssignments(t *meta.Table, list []*ast.Assignment, s *scope, check func(col int) error) ([]Assignment, error) {
	var out []Assignment
	seen := map[int]bool{}
	for _, a := range list {
		i := t.ColumnIndex(a.Column.Name.O)
		if i < 0 || t.Columns[i].Hidden {
			return nil, pgerror.New(pgerror.CodeUndefinedColumn, "column %q of relation %q does not exist", a.Column.Name.O, t.Name)
		}
		if seen[i] {
			return nil, pgerror.New(pgerror.CodeSyntaxError, "multiple assignments to same column %q", a.Column.Name.O)
		}
		seen[i] = true
		if check != nil {
			if err := check(i); err != nil {
				return nil, err
			}
		}
		var e expr.Expr
		var err error
		if _, ok := a.Expr.(*ast.DefaultExpr); ok {
			e, err = b.defaultValue(t, t.Columns[i])
		} else if e, err = b.bindExpr(a.Expr, s); err == nil {
			e, err = b.assign(e, t.Columns[i])
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Assignment{Col: i, Expr: e})
	}
	return out, nil
}
