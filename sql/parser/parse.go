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
}

// parseStatement parses one statement; c.toks ends with the statement's
// terminator (tkEOF, with val ";" when it was a semicolon).
func parseStatement(c *cursor) (*Statement, error) {
	if q, ok := showQueries[strings.ToLower(c.at(1).val)]; ok && c.at(0).is("show") && c.at(2).kind == tkEOF {
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
	main, ret := splitReturning(c.toks)
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
	p := parsers.Get().(*tidb.Parser)
	nodes, _, perr := p.Parse(r.text, "", "")
	parsers.Put(p)
	if perr != nil {
		return nil, 0, st.tidbError(c, perr)
	}
	if len(nodes) != 1 {
		return nil, 0, c.syntaxErr(0)
	}
	node := nodes[0]
	if err := fixup(node, r.params, t.laterals); err != nil {
		return nil, 0, err
	}
	return node, t.numParams, nil
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
	src := s.posMap[off]
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
// `?` markers in LIMIT/OFFSET become pg_param(n) again, and LATERAL added
// only to carry a column alias list is cleared.
func fixup(node ast.Node, params map[int]int, laterals []bool) error {
	v := &fixer{params: params}
	node.Accept(v)
	if v.err != nil {
		return v.err
	}
	if len(v.laterals) != len(laterals) {
		return pgerror.New(pgerror.CodeInternal, "parser: LATERAL bookkeeping mismatch (%d vs %d)", len(v.laterals), len(laterals))
	}
	for i, synthetic := range laterals {
		if synthetic {
			v.laterals[i].Lateral = false
		}
	}
	return nil
}

// fixer is the ast.Visitor of fixup.
type fixer struct {
	params   map[int]int
	laterals []*ast.TableSource
	err      error
}

// Enter implements ast.Visitor.
func (f *fixer) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.TableSource:
		if n.Lateral {
			f.laterals = append(f.laterals, n)
		}
	case *ast.Limit:
		n.Count = f.param(n.Count)
		n.Offset = f.param(n.Offset)
	}
	return n, false
}

// Leave implements ast.Visitor.
func (f *fixer) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// param turns a `?` marker back into pg_param(n).
func (f *fixer) param(e ast.ExprNode) ast.ExprNode {
	m, ok := e.(*paramMarker)
	if !ok {
		return e
	}
	n, ok := f.params[m.offset]
	if !ok {
		f.err = pgerror.New(pgerror.CodeInternal, "parser: unexpected parameter marker")
		return e
	}
	arg := &Literal{Value: types.NewInt(int64(n)), Type: types.TInt4, projectionOffset: -1}
	return &ast.FuncCallExpr{FnName: ast.NewCIStr("pg_param"), Args: []ast.ExprNode{arg}}
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
