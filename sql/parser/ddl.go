package parser

import (
	"slices"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/pgerror"
)

// columnStops end a column's DEFAULT expression.
var columnStops = wordSet("not", "null", "primary", "unique", "check", "references",
	"constraint", "collate", "generated", "default")

// create parses CREATE TABLE / SOURCE / [MATERIALIZED] VIEW / INDEX /
// SCHEMA / FUNCTION / SEQUENCE / SUBSCRIPTION / ROLE / USER.
func (p *uparser) create() (any, error) {
	p.i++
	orReplace := p.accept("or", "replace")
	switch {
	case p.accept("table"):
		if orReplace {
			return nil, p.syntaxErr(p.i - 1)
		}
		if cta, err := p.createTableAs(); cta != nil || err != nil {
			return cta, err
		}
		ct := &CreateTable{}
		return ct, p.tableDef(ct)
	case p.accept("source"):
		if orReplace {
			return nil, p.syntaxErr(p.i - 1)
		}
		ct := &CreateTable{}
		if err := p.tableDef(ct); err != nil {
			return nil, err
		}
		return (*CreateSource)(ct), nil
	case p.accept("materialized", "view"):
		return p.createView(orReplace, true)
	case p.accept("sink"):
		if orReplace {
			return nil, p.syntaxErr(p.i - 1)
		}
		return p.createSink()
	case p.accept("view"):
		return p.createView(orReplace, false)
	case p.peek().is("unique") && p.at(p.i+1).is("index"):
		p.i += 2
		return p.createIndex(true)
	case p.accept("index"):
		return p.createIndex(false)
	case p.accept("function"):
		return p.createFunction(orReplace)
	case p.accept("sequence"):
		if orReplace {
			return nil, p.syntaxErr(p.i - 1)
		}
		return p.createSequence()
	case p.accept("schema"):
		if orReplace {
			return nil, p.syntaxErr(p.i - 1)
		}
		return p.createSchema()
	case p.accept("subscription"):
		if orReplace {
			return nil, p.syntaxErr(p.i - 1)
		}
		return p.createSubscription()
	case p.peek().is("role") || p.peek().is("user"):
		if orReplace {
			return nil, p.syntaxErr(p.i - 1)
		}
		user, _ := p.roleKind()
		return p.createRole(user)
	case p.peek().is("temp") || p.peek().is("temporary"):
		return nil, p.notSupported(p.i, "CREATE TEMPORARY")
	}
	return nil, p.errUnsupportedKind("CREATE", p.i)
}

// createSchema parses the rest of CREATE SCHEMA [IF NOT EXISTS] [name]
// [AUTHORIZATION role] (without a name, the schema is named after the
// role).
func (p *uparser) createSchema() (any, error) {
	cs := &CreateSchema{IfNotExists: p.ifNotExists()}
	if !p.peek().is("authorization") {
		name, err := p.ident()
		if err != nil {
			return nil, err
		}
		cs.Name = name
	}
	if p.accept("authorization") {
		role, err := p.ident()
		if err != nil {
			return nil, err
		}
		if cs.Name == "" {
			cs.Name = role
		}
	}
	if cs.Name == "" {
		return nil, p.syntaxErr(p.i)
	}
	return cs, nil
}

// ifNotExists consumes IF NOT EXISTS.
func (p *uparser) ifNotExists() bool { return p.accept("if", "not", "exists") }

// tableDef parses the rest of CREATE TABLE or CREATE SOURCE into ct. The
// column list may be left out before WITH (a connector's columns are
// checked against it later).
func (p *uparser) tableDef(ct *CreateTable) error {
	ct.IfNotExists = p.ifNotExists()
	name, err := p.objectName()
	if err != nil {
		return err
	}
	ct.Schema, ct.Name = name.Schema, name.Name
	if !p.peek().is("with") {
		if err := p.tableElements(ct); err != nil {
			return err
		}
	}
	for {
		switch {
		case p.accept("append", "only"):
			ct.AppendOnly = true
		case p.accept("with"):
			if ct.With, err = p.options(); err != nil {
				return err
			}
		case p.accept("format"):
			if ct.Format, ct.Encode, ct.EncodeOptions, err = p.formatEncode(); err != nil {
				return err
			}
		case p.peek().is("on"):
			return p.notSupported(p.i, "CREATE TABLE ... ON CONFLICT")
		default:
			return nil
		}
	}
}

// tableElements parses ( column or constraint, ... ).
func (p *uparser) tableElements(ct *CreateTable) error {
	if err := p.expectPunct("("); err != nil {
		return err
	}
	for !p.acceptPunct(")") {
		if len(ct.Columns) > 0 || ct.PrimaryKey != nil || ct.Unique != nil || ct.Watermark != nil {
			if err := p.expectPunct(","); err != nil {
				return err
			}
		}
		if err := p.tableElement(ct); err != nil {
			return err
		}
	}
	return nil
}

// tableElement parses one column definition or table constraint.
func (p *uparser) tableElement(ct *CreateTable) error {
	if p.accept("constraint") {
		if _, err := p.ident(); err != nil {
			return err
		}
	}
	switch tk := p.peek(); {
	case p.accept("primary", "key"):
		if ct.PrimaryKey != nil {
			return errMultiplePrimaryKeys(p, tk)
		}
		cols, err := p.identList()
		ct.PrimaryKey = cols
		return err
	case p.accept("unique"):
		cols, err := p.identList()
		ct.Unique = append(ct.Unique, cols)
		return err
	case tk.is("check"), tk.is("foreign"), tk.is("exclude"):
		return p.notSupported(p.i, strings.ToUpper(tk.val)+" constraint")
	case tk.is("watermark") && p.at(p.i+1).is("for"):
		p.i += 2
		return p.watermark(ct)
	case tk.is("like"):
		return p.notSupported(p.i, "CREATE TABLE ... LIKE")
	}
	return p.column(ct)
}

// watermark parses the rest of WATERMARK FOR column AS expr.
func (p *uparser) watermark(ct *CreateTable) error {
	if ct.Watermark != nil {
		return p.notSupported(p.i-2, "more than one WATERMARK")
	}
	col, err := p.ident()
	if err != nil {
		return err
	}
	if err := p.expect("as"); err != nil {
		return err
	}
	end := p.exprEnd(p.i, nil)
	expr, _, err := expression(p.selectCursor(p.i, end))
	if err != nil {
		return err
	}
	ct.Watermark = &Watermark{Column: col, Expr: expr, ExprSQL: p.text(p.i, end)}
	p.i = end
	return nil
}

// column parses a column definition.
func (p *uparser) column(ct *CreateTable) error {
	name, err := p.ident()
	if err != nil {
		return err
	}
	typ, j, err := p.typeName(p.i)
	if err != nil {
		return err
	}
	p.i = j
	col := ColumnDef{Name: name, TypeName: typ}
	for {
		tk := p.peek()
		switch {
		case p.accept("not", "null"):
			col.NotNull = true
		case p.accept("null"):
		case p.accept("primary", "key"):
			if ct.PrimaryKey != nil {
				return errMultiplePrimaryKeys(p, tk)
			}
			col.PrimaryKey, col.NotNull = true, true
			ct.PrimaryKey = []string{name}
		case p.accept("unique"):
			col.Unique = true
		case p.accept("constraint"):
			if _, err := p.ident(); err != nil {
				return err
			}
		case p.accept("collate"):
			if _, err := p.objectName(); err != nil {
				return err
			}
		case p.accept("default"):
			end := p.exprEnd(p.i, columnStops)
			if col.Default, _, err = expression(p.selectCursor(p.i, end)); err != nil {
				return err
			}
			col.DefaultSQL = p.text(p.i, end)
			p.i = end
		case tk.is("as"):
			// RisingWave's generated column: AS proctime() alone, the
			// time of the insert, which is what DEFAULT proctime() gives.
			if !p.at(p.i+1).is("proctime") || !p.at(p.i+2).isPunct("(") || !p.at(p.i+3).isPunct(")") {
				return p.notSupported(p.i, "a generated column other than AS proctime()")
			}
			if col.Default, _, err = expression(p.selectCursor(p.i+1, p.i+4)); err != nil {
				return err
			}
			col.DefaultSQL = p.text(p.i+1, p.i+4)
			p.i += 4
		case p.accept("generated"):
			if err := p.identity(&col); err != nil {
				return err
			}
		case tk.is("check"), tk.is("references"):
			return p.notSupported(p.i, "a "+strings.ToUpper(tk.val)+" column option")
		default:
			ct.Columns = append(ct.Columns, col)
			return nil
		}
	}
}

// errMultiplePrimaryKeys is PostgreSQL's error for a second primary key.
func errMultiplePrimaryKeys(p *uparser, tk token) error {
	return pgerror.New("42P16", "multiple primary keys for table are not allowed").WithPosition(charPos(p.src, tk.pos))
}

// createView parses the rest of CREATE [OR REPLACE] [MATERIALIZED] VIEW.
func (p *uparser) createView(orReplace, materialized bool) (any, error) {
	cv := &CreateView{OrReplace: orReplace, Materialized: materialized, IfNotExists: p.ifNotExists()}
	var err error
	if cv.Name, err = p.objectName(); err != nil {
		return nil, err
	}
	if p.peek().isPunct("(") {
		if cv.Columns, err = p.identList(); err != nil {
			return nil, err
		}
	}
	if p.accept("with") {
		if cv.With, err = p.options(); err != nil {
			return nil, err
		}
	}
	if err := p.expect("as"); err != nil {
		return nil, err
	}
	end := len(p.toks) - 1
	if end-p.i > 4 && p.at(end-4).is("emit") && p.at(end-3).is("on") && p.at(end-2).is("window") && p.at(end-1).is("close") {
		cv.EmitOnWindowClose = true
		end -= 4
	}
	if cv.Query, err = p.definingQuery(end); err != nil {
		return nil, err
	}
	return cv, nil
}

// definingQuery parses the query of CREATE VIEW or CREATE TABLE AS, from
// the current token up to token end.
func (p *uparser) definingQuery(end int) (*Statement, error) {
	switch q := p.peek(); {
	case q.is("select"), q.is("with"), q.is("values"), q.is("table"), q.isPunct("("):
	default:
		return nil, p.syntaxErr(p.i)
	}
	q, err := parseQuery(p.subCursor(p.i, end))
	if err != nil {
		return nil, err
	}
	switch q.AST.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
	default:
		return nil, p.syntaxErr(p.i)
	}
	p.i = len(p.toks) - 1
	return q, nil
}

// createTableAs parses the rest of CREATE TABLE [IF NOT EXISTS] name
// [(column, ...)] AS query [WITH [NO] DATA], or returns nil with the
// cursor unmoved when the statement is a plain CREATE TABLE.
func (p *uparser) createTableAs() (*CreateTableAs, error) {
	start := p.i
	cta := &CreateTableAs{IfNotExists: p.ifNotExists()}
	var err error
	if cta.Name, err = p.objectName(); err != nil {
		p.i = start
		return nil, nil
	}
	if p.peek().isPunct("(") {
		// A column-name list, not column definitions, when AS follows it.
		depth, k := 0, p.i
		for ; k < len(p.toks)-1; k++ {
			if p.at(k).isPunct("(") {
				depth++
			} else if p.at(k).isPunct(")") {
				if depth--; depth == 0 {
					break
				}
			}
		}
		if !p.at(k + 1).is("as") {
			p.i = start
			return nil, nil
		}
		if cta.Columns, err = p.identList(); err != nil {
			return nil, err
		}
	}
	if !p.accept("as") {
		p.i = start
		return nil, nil
	}
	end := len(p.toks) - 1
	switch {
	case end-p.i > 3 && p.at(end-3).is("with") && p.at(end-2).is("no") && p.at(end-1).is("data"):
		cta.NoData, end = true, end-3
	case end-p.i > 2 && p.at(end-2).is("with") && p.at(end-1).is("data"):
		end -= 2
	}
	if cta.Query, err = p.definingQuery(end); err != nil {
		return nil, err
	}
	return cta, nil
}

// createIndex parses the rest of CREATE [UNIQUE] INDEX.
func (p *uparser) createIndex(unique bool) (any, error) {
	ci := &CreateIndex{Unique: unique}
	if p.peek().is("concurrently") {
		p.i++
	}
	ci.IfNotExists = p.ifNotExists()
	if !p.peek().is("on") {
		name, err := p.ident()
		if err != nil {
			return nil, err
		}
		ci.Name = name
	}
	if err := p.expect("on"); err != nil {
		return nil, err
	}
	p.accept("only")
	var err error
	if ci.Table, err = p.objectName(); err != nil {
		return nil, err
	}
	if p.accept("using") {
		if _, err := p.ident(); err != nil {
			return nil, err
		}
	}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	for {
		if p.peek().isPunct("(") {
			return nil, p.notSupported(p.i, "an index on an expression")
		}
		col, err := p.ident()
		if err != nil {
			return nil, err
		}
		if p.peek().isPunct("(") {
			return nil, p.notSupported(p.i-1, "an index on an expression")
		}
		ci.Columns = append(ci.Columns, col)
		if p.accept("collate") {
			if _, err := p.objectName(); err != nil {
				return nil, err
			}
		}
		_ = p.accept("asc") || p.accept("desc")
		_ = p.accept("nulls", "first") || p.accept("nulls", "last")
		if p.acceptPunct(")") {
			break
		}
		if err := p.expectPunct(","); err != nil {
			return nil, err
		}
	}
	if p.accept("include") {
		var err error
		if ci.Include, err = p.identList(); err != nil {
			return nil, err
		}
	}
	if tk := p.peek(); tk.is("where") || tk.is("with") {
		return nil, p.notSupported(p.i, "CREATE INDEX ... "+strings.ToUpper(tk.val))
	}
	// RisingWave's DISTRIBUTED BY (cols) picks the index's distribution
	// key; streamdb's indexes choose their own, so the clause is accepted
	// and ignored.
	if p.accept("distributed", "by") {
		if _, err := p.identList(); err != nil {
			return nil, err
		}
	}
	return ci, nil
}

// dropKinds are the object kinds DROP knows, by their first word.
var dropKinds = map[string]string{
	"table": "TABLE", "view": "VIEW", "index": "INDEX", "source": "SOURCE", "sink": "SINK", "schema": "SCHEMA", "sequence": "SEQUENCE",
	"subscription": "SUBSCRIPTION",
}

// drop parses DROP kind [IF EXISTS] name, ... [CASCADE|RESTRICT].
func (p *uparser) drop() (any, error) {
	p.i++
	d := &DropObject{}
	if p.accept("function") {
		return p.dropFunction()
	}
	if _, ok := p.roleKind(); ok {
		return p.dropRole()
	}
	if p.accept("materialized", "view") {
		d.Kind = "MATERIALIZED VIEW"
	} else if kind, ok := dropKinds[p.peek().val]; ok && p.peek().kind == tkIdent {
		d.Kind = kind
		p.i++
	} else {
		return nil, p.errUnsupportedKind("DROP", p.i)
	}
	if d.Kind == "INDEX" {
		p.accept("concurrently")
	}
	d.IfExists = p.accept("if", "exists")
	for {
		name, err := p.objectName()
		if err != nil {
			return nil, err
		}
		d.Names = append(d.Names, name)
		if !p.acceptPunct(",") {
			break
		}
	}
	d.Cascade = p.dropBehavior()
	return d, nil
}

// dropBehavior consumes an optional CASCADE or RESTRICT and reports
// whether it was CASCADE.
func (p *uparser) dropBehavior() bool {
	if p.accept("cascade") {
		return true
	}
	p.accept("restrict")
	return false
}

// rename parses the rest of ALTER kind [IF EXISTS] name RENAME: TO
// new_name, or [COLUMN] column TO new_name.
func (p *uparser) rename(kind string, name ObjectName, ifExists bool) (any, error) {
	if p.accept("to") {
		newName, err := p.ident()
		return &AlterRename{Kind: kind, Name: name, NewName: newName, IfExists: ifExists}, err
	}
	if kind == "INDEX" || kind == "SINK" {
		return nil, p.syntaxErr(p.i)
	}
	p.accept("column")
	column, err := p.ident()
	if err != nil {
		return nil, err
	}
	if err := p.expect("to"); err != nil {
		return nil, err
	}
	newName, err := p.ident()
	return &AlterRenameColumn{Kind: kind, Name: name, Column: column, NewName: newName}, err
}

// alterColumns parses the actions of ALTER TABLE name ADD [COLUMN] [IF
// NOT EXISTS] column_def and DROP [COLUMN] [IF EXISTS] column [CASCADE |
// RESTRICT], separated by commas.
func (p *uparser) alterColumns(name ObjectName, ifExists bool) (any, error) {
	ac := &AlterColumns{Name: name, IfExists: ifExists}
	for {
		var act ColumnAction
		switch {
		case p.accept("add"):
			if p.peek().is("constraint") || p.peek().is("primary") || p.peek().is("unique") || p.peek().is("check") || p.peek().is("foreign") {
				return nil, p.notSupported(p.i, "ALTER TABLE ADD "+strings.ToUpper(p.peek().val))
			}
			p.accept("column")
			act.IfNotExists = p.ifNotExists()
			ct := &CreateTable{}
			at := p.i
			if err := p.column(ct); err != nil {
				return nil, err
			}
			if ct.PrimaryKey != nil || ct.Columns[0].Unique {
				return nil, p.notSupported(at, "ALTER TABLE ADD COLUMN with a key")
			}
			act.Add = &ct.Columns[0]
		case p.accept("drop"):
			if p.peek().is("constraint") {
				return nil, p.notSupported(p.i, "ALTER TABLE DROP CONSTRAINT")
			}
			p.accept("column")
			act.IfExists = p.accept("if", "exists")
			column, err := p.ident()
			if err != nil {
				return nil, err
			}
			act.Drop = column
			p.dropBehavior() // a dropped column takes nothing with it
		default:
			return nil, p.syntaxErr(p.i)
		}
		ac.Actions = append(ac.Actions, act)
		if !p.acceptPunct(",") {
			return ac, nil
		}
	}
}

// objectKinds are the kind words statements name objects by, "MATERIALIZED
// VIEW" before "VIEW".
var objectKinds = []string{"MATERIALIZED VIEW", "TABLE", "VIEW", "SOURCE", "SINK", "SUBSCRIPTION", "INDEX", "SEQUENCE", "COLUMN"}

// objectKind consumes the words of one of the kinds allowed (uppercase,
// as objectKinds spells them) and returns it, or "" with nothing consumed.
func (p *uparser) objectKind(allowed ...string) string {
	for _, kind := range objectKinds {
		if slices.Contains(allowed, kind) && p.accept(strings.Fields(strings.ToLower(kind))...) {
			return kind
		}
	}
	return ""
}

// comment parses COMMENT ON {TABLE|VIEW|MATERIALIZED VIEW|SOURCE} name IS
// {'text'|NULL} and COMMENT ON COLUMN relation.column IS ....
func (p *uparser) comment() (any, error) {
	p.i++
	if err := p.expect("on"); err != nil {
		return nil, err
	}
	c := &Comment{Kind: p.objectKind("MATERIALIZED VIEW", "TABLE", "VIEW", "SOURCE", "COLUMN")}
	if c.Kind == "" {
		return nil, p.errUnsupportedKind("COMMENT ON", p.i)
	}
	parts := []string{}
	for {
		part, err := p.ident()
		if err != nil {
			return nil, err
		}
		parts = append(parts, part)
		if !p.acceptPunct(".") {
			break
		}
	}
	switch {
	case c.Kind != "COLUMN" && len(parts) <= 2:
		c.Name = ObjectName{Name: parts[len(parts)-1]}
		if len(parts) == 2 {
			c.Name.Schema = parts[0]
		}
	case c.Kind == "COLUMN" && len(parts) == 2:
		c.Name, c.Column = ObjectName{Name: parts[0]}, parts[1]
	case c.Kind == "COLUMN" && len(parts) == 3:
		c.Name, c.Column = ObjectName{Schema: parts[0], Name: parts[1]}, parts[2]
	default:
		return nil, p.syntaxErr(p.i - 1)
	}
	if err := p.expect("is"); err != nil {
		return nil, err
	}
	switch tk := p.peek(); {
	case tk.is("null"):
		p.i++
	case tk.kind == tkString:
		p.i++
		c.Text = tk.val
	default:
		return nil, p.syntaxErr(p.i)
	}
	return c, nil
}

// alter parses ALTER {MATERIALIZED VIEW|TABLE|SINK|SOURCE|SUBSCRIPTION}
// name SET PARALLELISM {=|TO} n and ALTER {TABLE|VIEW|MATERIALIZED
// VIEW|SOURCE|INDEX|SINK|SUBSCRIPTION} name RENAME ....
func (p *uparser) alter() (any, error) {
	p.i++
	if p.accept("system") {
		if p.accept("remove", "node") {
			tk := p.peek()
			if tk.kind != tkString && tk.kind != tkIdent && tk.kind != tkQIdent {
				return nil, p.syntaxErr(p.i)
			}
			p.i++
			return &RemoveNode{Node: tk.val, Force: p.accept("force")}, nil
		}
		if p.accept("rebalance") {
			r := &Rebalance{}
			if p.accept("with") {
				var err error
				if r.With, err = p.options(); err != nil {
					return nil, err
				}
			}
			return r, nil
		}
		if p.accept("drain", "node") {
			tk := p.peek()
			if tk.kind != tkString && tk.kind != tkIdent && tk.kind != tkQIdent {
				return nil, p.syntaxErr(p.i)
			}
			p.i++
			r := &Rebalance{Drain: tk.val}
			if p.accept("with") {
				var err error
				if r.With, err = p.options(); err != nil {
					return nil, err
				}
			}
			return r, nil
		}
		if !p.peek().is("set") {
			return nil, p.notSupported(p.i, "ALTER SYSTEM "+strings.ToUpper(p.peek().val))
		}
		sv, err := p.set()
		if err != nil {
			return nil, err
		}
		return &AlterSystem{Set: sv.(*SetVar)}, nil
	}
	if _, ok := p.roleKind(); ok {
		return p.alterRole()
	}
	if p.accept("schema") {
		name, err := p.ident()
		if err != nil {
			return nil, err
		}
		if !p.accept("owner", "to") {
			return nil, p.notSupported(p.i, "ALTER SCHEMA "+strings.ToUpper(p.peek().val))
		}
		return p.ownerTo(&AlterOwner{Kind: "SCHEMA", Name: ObjectName{Name: name}})
	}
	a := &AlterParallelism{Kind: p.objectKind("MATERIALIZED VIEW", "TABLE", "SINK", "SOURCE", "VIEW", "INDEX", "SEQUENCE", "SUBSCRIPTION")}
	if a.Kind == "" {
		return nil, p.errUnsupportedKind("ALTER", p.i)
	}
	ifExists := p.accept("if", "exists")
	var err error
	if a.Name, err = p.objectName(); err != nil {
		return nil, err
	}
	if p.accept("rename") {
		return p.rename(a.Kind, a.Name, ifExists)
	}
	if p.accept("owner", "to") {
		return p.ownerTo(&AlterOwner{Kind: a.Kind, Name: a.Name, IfExists: ifExists})
	}
	if a.Kind == "SEQUENCE" {
		return p.alterSequence(a.Name, ifExists)
	}
	if a.Kind == "TABLE" && (p.peek().is("add") || p.peek().is("drop")) {
		return p.alterColumns(a.Name, ifExists)
	}
	if ifExists || a.Kind == "VIEW" || a.Kind == "INDEX" || !p.peek().is("set") || !p.at(p.i+1).is("parallelism") {
		return nil, p.notSupported(p.i, "ALTER "+a.Kind+" "+strings.ToUpper(p.peek().val))
	}
	p.i += 2
	if !p.acceptPunct("=") {
		if err := p.expect("to"); err != nil {
			return nil, err
		}
	}
	if p.accept("default") {
		a.Default = true
	} else {
		n := p.peek()
		v, convErr := strconv.Atoi(n.val)
		if n.kind != tkInt || convErr != nil || v < 1 {
			return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "parallelism must be a positive integer or DEFAULT").
				WithPosition(charPos(p.src, n.pos))
		}
		p.i++
		a.Parallelism = v
	}
	if p.accept("with") {
		var err error
		if a.With, err = p.options(); err != nil {
			return nil, err
		}
	}
	return a, nil
}
