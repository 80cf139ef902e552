package parser

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	tidb "github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Parse splits sql into statements and parses each. Errors are
// *pgerror.Error: 42601 syntax errors with Position set to the 1-based
// character offset into sql, or 0A000 for recognized but unsupported forms.
// Empty statements (only comments, or bare semicolons) are skipped.
func Parse(sql string) ([]*Statement, error) {
	toks, err := lex(sql)
	if err != nil {
		return nil, err
	}
	var out []*Statement
	start := 0
	for i, tk := range toks {
		if !tk.isPunct(";") && tk.kind != tkEOF {
			continue
		}
		if i > start {
			end := token{kind: tkEOF, pos: tk.pos, end: tk.pos}
			if tk.kind != tkEOF {
				end.val = ";"
			}
			stmtToks := append(toks[start:i:i], end)
			st, err := parseStatement(&cursor{src: sql, toks: stmtToks})
			if err != nil {
				return nil, err
			}
			out = append(out, st)
		}
		start = i + 1
	}
	return out, nil
}

// showQueries are the SHOW commands that a query over a streamdb_catalog
// relation answers.
var showQueries = map[string]string{
	"jobs":        "SELECT * FROM streamdb_catalog.rescale_jobs ORDER BY job_id",
	"parallelism": "SELECT * FROM streamdb_catalog.fragments ORDER BY job_id, fragment_id, actor",
	"nodes":       "SELECT * FROM streamdb_catalog.nodes ORDER BY id",
	// SHOW DURABLE CHECKPOINT
	"durable checkpoint": "SELECT * FROM streamdb_catalog.durable_checkpoint",
}

// parseStatement parses one statement; c.toks ends with the statement's
// terminator (tkEOF, with val ";" when it was a semicolon).
func parseStatement(c *cursor) (*Statement, error) {
	show := strings.ToLower(c.at(1).val)
	end := 2
	if c.at(2).kind != tkEOF {
		show, end = show+" "+strings.ToLower(c.at(2).val), 3
	}
	if q, ok := showQueries[show]; ok && c.at(0).is("show") && c.at(end).kind == tkEOF {
		sts, err := Parse(q)
		if err != nil {
			return nil, err
		}
		st := sts[0]
		st.SQL = newStatement(c).SQL
		return st, nil
	}
	switch first := c.at(0); {
	case first.isPunct("("), first.is("select"), first.is("with"), first.is("values"), first.is("table"),
		first.is("insert"), first.is("update"), first.is("delete"):
		return parseQuery(c)
	}
	return parseUtility(c)
}

// newStatement returns a Statement covering c's tokens.
func newStatement(c *cursor) *Statement {
	first, last := c.toks[0], c.toks[len(c.toks)-2]
	return &Statement{SQL: c.src[first.pos:last.end], Offset: first.pos, input: c.src}
}

// parseQuery translates and parses a query or DML statement.
func parseQuery(c *cursor) (*Statement, error) {
	st := newStatement(c)
	toks := c.toks
	toks, st.Overriding = cutOverriding(toks)
	main, ret := splitReturning(toks)
	node, n, err := translateAndParse(&cursor{src: c.src, toks: main}, st)
	if err != nil {
		return nil, err
	}
	st.AST, st.NumParams = node, n
	if ret != nil {
		fields, n, err := selectList(&cursor{src: c.src, toks: ret})
		if err != nil {
			return nil, err
		}
		st.Returning, st.NumParams = fields, max(st.NumParams, n)
	}
	return st, nil
}

// cutOverriding cuts INSERT's OVERRIDING {SYSTEM | USER} VALUE out of
// toks and returns "system" or "user" ("" when there is none).
func cutOverriding(toks []token) ([]token, string) {
	if !toks[0].is("insert") {
		return toks, ""
	}
	depth := 0
	for i, tk := range toks {
		switch {
		case tk.isPunct("("):
			depth++
		case tk.isPunct(")"):
			depth--
		case depth == 0 && tk.is("overriding") && (toks[i+1].is("system") || toks[i+1].is("user")) && toks[i+2].is("value"):
			return append(toks[:i:i], toks[i+3:]...), toks[i+1].val
		}
	}
	return toks, ""
}

// splitReturning cuts a top-level RETURNING list off an INSERT, UPDATE or
// DELETE: it returns the statement's tokens and the list's tokens (each
// ending with a terminator), or nil for the list when there is none.
func splitReturning(toks []token) (main, ret []token) {
	if !toks[0].is("insert") && !toks[0].is("update") && !toks[0].is("delete") {
		return toks, nil
	}
	depth := 0
	for i, tk := range toks {
		switch {
		case tk.isPunct("(") || tk.isPunct("["):
			depth++
		case tk.isPunct(")") || tk.isPunct("]"):
			depth--
		case depth == 0 && tk.is("returning"):
			main = append(toks[:i:i], token{kind: tkEOF, pos: tk.pos, end: tk.pos, val: "RETURNING"})
			ret = make([]token, 0, len(toks)-i)
			ret = append(ret, token{kind: tkIdent, val: "select", pos: tk.pos, end: tk.end})
			return main, append(ret, toks[i+1:]...)
		}
	}
	return toks, nil
}

// selectList parses the tokens of "SELECT list" (the first token standing
// for SELECT) and returns the list's fields.
func selectList(c *cursor) ([]*ast.SelectField, int, error) {
	st := newStatement(c)
	node, n, err := translateAndParse(c, st)
	if err != nil {
		return nil, 0, err
	}
	sel, ok := node.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || sel.From != nil || sel.Where != nil {
		return nil, 0, c.syntaxErr(1)
	}
	return sel.Fields.Fields, n, nil
}

// expression parses the tokens of "SELECT expr" (the first token standing
// for SELECT) and returns the expression.
func expression(c *cursor) (ast.ExprNode, int, error) {
	fields, n, err := selectList(c)
	if err != nil {
		return nil, 0, err
	}
	if len(fields) != 1 || fields[0].AsName.O != "" || fields[0].Expr == nil {
		return nil, 0, c.syntaxErr(1)
	}
	return fields[0].Expr, n, nil
}

// translateAndParse translates c's tokens and parses the result with TiDB;
// st receives the translated text and position map. It returns the AST
// and the highest $n.
func translateAndParse(c *cursor, st *Statement) (ast.StmtNode, int, error) {
	t, err := newTranslator(c.src, c.toks)
	if err != nil {
		return nil, 0, err
	}
	fs, err := t.translate(0, len(c.toks)-1, modeQuery)
	if err != nil {
		return nil, 0, err
	}
	end := c.toks[len(c.toks)-1].pos
	r := render(fs, end)
	st.translated, st.posMap = r.text, r.posMap
	node, perr := parseTiDB(r.text)
	if perr != nil {
		return nil, 0, st.tidbError(c, perr)
	}
	if node == nil {
		return nil, 0, c.syntaxErr(0)
	}
	if err := fixup(node, r, t, end); err != nil {
		return nil, 0, err
	}
	return node, t.numParams, nil
}

// parseTiDB parses text with a pooled TiDB parser and returns its only
// statement (nil if it holds another number). The slice Parse returns is
// the parser's own and is reused by its next Parse: the statement is taken
// out before the parser goes back to the pool.
func parseTiDB(text string) (ast.StmtNode, error) {
	p := parsers.Get().(*tidb.Parser)
	defer parsers.Put(p)
	nodes, _, err := p.Parse(text, "", "")
	if err != nil || len(nodes) != 1 {
		return nil, err
	}
	return nodes[0], nil
}

// parsers pools TiDB parsers set up for translated text.
var parsers = sync.Pool{New: func() any {
	p := tidb.New()
	p.SetSQLMode(mysql.ModeANSIQuotes | mysql.ModePipesAsConcat | mysql.ModeNoBackslashEscapes)
	p.EnableWindowFunc(true)
	return p
}}

// tidbError converts a TiDB parse error into PostgreSQL's syntax error at
// the input token the error points at.
func (s *Statement) tidbError(c *cursor, err error) error {
	off, ok := nearOffset(err.Error(), s.translated)
	if !ok {
		return pgerror.New(pgerror.CodeSyntaxError, "syntax error").
			WithDetail("%s", err.Error()).WithPosition(charPos(c.src, s.Offset))
	}
	return c.syntaxErrAt(s.posMap[off])
}

// syntaxErrAt is the syntax error at the first token at or after the input
// byte offset src.
func (c *cursor) syntaxErrAt(src int) error {
	for i, tk := range c.toks {
		if tk.pos >= src || tk.kind == tkEOF {
			return c.syntaxErr(i)
		}
	}
	return c.syntaxErr(len(c.toks) - 1)
}

// nearOffset finds the byte offset in text that a TiDB error message's
// `near "..."` part points at: the quoted part is the rest of text from
// that offset (cut at 2048 bytes, with a "(total length n)" note).
func nearOffset(msg, text string) (int, bool) {
	i := strings.Index(msg, `near "`)
	if i < 0 {
		return 0, false
	}
	rest := msg[i+len(`near "`):]
	if k := strings.LastIndex(rest, "(total length "); k >= 0 {
		if n, err := strconv.Atoi(strings.TrimSuffix(rest[k+len("(total length "):], ")")); err == nil && n <= len(text) {
			return len(text) - n, true
		}
	}
	best := -1
	for j := 0; j < len(rest) && j <= len(text); j++ {
		if rest[j] == '"' && rest[:j] == text[len(text)-j:] {
			best = j
		}
	}
	if best < 0 {
		return 0, false
	}
	return len(text) - best, true
}

// fixup restores, after parsing, what TiDB's grammar could not carry:
// `?` markers in LIMIT/OFFSET and window frame offsets become their side
// expressions (parsed now),
// and LATERAL added only to carry a column alias list is cleared. r is the
// text node was parsed from; end the input offset of the statement's end.
func fixup(node ast.Node, r rendered, t *translator, end int) error {
	f := &fixer{t: t, end: end}
	f.visit(node, r)
	if f.err != nil {
		return f.err
	}
	if ins, ok := node.(*ast.InsertStmt); ok && t.insertAlias != "" {
		if ts, ok := ins.Table.TableRefs.Left.(*ast.TableSource); ok {
			ts.AsName = ast.NewCIStr(t.insertAlias)
		}
	}
	if len(f.laterals) != len(t.laterals) {
		return pgerror.New(pgerror.CodeInternal, "parser: LATERAL bookkeeping mismatch (%d vs %d)", len(f.laterals), len(t.laterals))
	}
	for i, synthetic := range t.laterals {
		if synthetic {
			f.laterals[i].Lateral = false
		}
	}
	return nil
}

// fixer is the ast.Visitor of fixup.
type fixer struct {
	t        *translator
	end      int
	sides    map[int]int // of the text being visited
	laterals []*ast.TableSource
	err      error
}

// visit walks node, parsed from r.
func (f *fixer) visit(node ast.Node, r rendered) {
	saved := f.sides
	f.sides = r.sides
	node.Accept(f)
	f.sides = saved
}

// Enter implements ast.Visitor.
func (f *fixer) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.TableSource:
		if n.Lateral {
			f.laterals = append(f.laterals, n)
		}
	case *ast.Limit:
		n.Count = f.side(n.Count)
		n.Offset = f.side(n.Offset)
	case *ast.WindowFuncExpr:
		// A lag or lead offset other than an integer literal.
		if len(n.Args) > 1 {
			n.Args[1] = f.side(n.Args[1])
		}
	case *ast.FrameBound:
		if m, ok := n.Expr.(*paramMarker); ok {
			// TiDB gives the marker the offset of the PRECEDING or
			// FOLLOWING after it, rendered as "? PRECEDING".
			m.offset -= 2
			n.Expr = f.side(m)
			return n, true // side visited the expression
		}
	}
	return n, false
}

// Leave implements ast.Visitor.
func (f *fixer) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// side turns a `?` marker back into its side expression, parsed on its own
// (NULL, no limit, for the missing count of OFFSET alone).
func (f *fixer) side(e ast.ExprNode) ast.ExprNode {
	m, ok := e.(*paramMarker)
	if !ok || f.err != nil {
		return e
	}
	k, ok := f.sides[m.offset]
	if !ok {
		f.err = pgerror.New(pgerror.CodeInternal, "parser: unexpected parameter marker")
		return e
	}
	fs := f.t.sides[k]
	if fs == nil {
		return &Literal{Value: types.Null, Type: types.TUnknown, projectionOffset: -1}
	}
	r := render(append([]frag{{text: "SELECT", src: fs[0].src}}, fs...), f.end)
	node, err := parseTiDB(r.text)
	if err != nil || node == nil {
		f.err = f.t.syntaxErrAt(fs[0].src)
		return e
	}
	sel, ok := node.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		f.err = f.t.syntaxErrAt(fs[0].src)
		return e
	}
	x := sel.Fields.Fields[0].Expr
	f.visit(x, r)
	return x
}

// Position maps a byte offset in the statement's translated text (as TiDB
// reports it) to a 1-based character position in the original input.
func (s *Statement) Position(translatedOffset int) int {
	if len(s.posMap) == 0 {
		return charPos(s.input, s.Offset)
	}
	translatedOffset = min(max(translatedOffset, 0), len(s.posMap)-1)
	return charPos(s.input, s.posMap[translatedOffset])
}

// charPos converts a byte offset in text to a 1-based character position.
func charPos(text string, byteOff int) int {
	byteOff = min(byteOff, len(text))
	return utf8.RuneCountInString(text[:byteOff]) + 1
}
