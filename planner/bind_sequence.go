package planner

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// isSequenceCall reports whether name is a function bindSequenceFunc
// binds.
func isSequenceCall(name string) bool {
	return expr.SequenceFuncs[name] || name == "pg_sequence_last_value" || name == "pg_get_serial_sequence"
}

// bindSequenceFunc binds nextval, currval, setval and
// pg_sequence_last_value, whose first argument, a regclass, may be a
// string naming the sequence ('s', 'sch.s', '"S"'), and
// pg_get_serial_sequence(table, column).
func (b *Binder) bindSequenceFunc(name string, args []expr.Expr) (expr.Expr, error) {
	if name == "pg_get_serial_sequence" {
		return b.bindSerialSequence(args)
	}
	if len(args) > 0 {
		if c, ok := args[0].(*expr.Const); ok && c.T.Family == types.Unknown && !c.V.IsNull() {
			t, err := b.relationNamed(c.V.Str())
			if err != nil {
				return nil, err
			}
			if err := b.require(t, sequencePrivileges[name]); err != nil {
				return nil, err
			}
			args[0] = expr.NewConst(types.NewInt(int64(t.ID)), types.TOid)
		} else if args[0].Type().IsString() {
			return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "%s() of a text value is not supported", name).
				WithHint("Name the sequence with a literal: %s('name').", name)
		}
	}
	return expr.NewFunc(name, args)
}

// sequencePrivileges are the privileges of which a sequence function
// needs one on its sequence, as in PostgreSQL.
var sequencePrivileges = map[string]meta.Privilege{
	"nextval":                meta.PrivUsage | meta.PrivUpdate,
	"currval":                meta.PrivUsage | meta.PrivSelect,
	"setval":                 meta.PrivUpdate,
	"pg_sequence_last_value": meta.PrivUsage | meta.PrivSelect,
}

// relationNamed resolves a relation name as regclass reads it: dotted,
// each part lowercased unless double-quoted.
func (b *Binder) relationNamed(s string) (*meta.Table, error) {
	parts := SplitQualified(s)
	switch len(parts) {
	case 1:
		return b.table("", parts[0])
	case 2:
		return b.table(parts[0], parts[1])
	}
	return nil, pgerror.New("42602", "improper relation name (too many dotted names): %s", s)
}

// SplitQualified splits a.b."C" at the dots outside quotes, unquoting
// each part.
func SplitQualified(s string) []string {
	var parts []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"':
			quoted = !quoted
		case s[i] == '.' && !quoted:
			parts = append(parts, unquote(s[start:i]))
			start = i + 1
		}
	}
	return append(parts, unquote(s[start:]))
}

// bindSerialSequence binds pg_get_serial_sequence(table, column): the
// schema-qualified name of the sequence the column owns (serial or
// identity), NULL if none; both arguments must be constants.
func (b *Binder) bindSerialSequence(args []expr.Expr) (expr.Expr, error) {
	if len(args) != 2 {
		return nil, pgerror.New(pgerror.CodeUndefinedFunction, "function pg_get_serial_sequence with %d arguments does not exist", len(args))
	}
	var names [2]string
	for i, a := range args {
		c, ok := a.(*expr.Const)
		if !ok || !c.T.IsString() && c.T.Family != types.Unknown {
			return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "pg_get_serial_sequence() takes constant names")
		}
		if c.V.IsNull() {
			return expr.NewConst(types.Null, types.TText), nil
		}
		names[i] = c.V.Str()
	}
	t, err := b.relationNamed(names[0])
	if err != nil {
		return nil, err
	}
	col := t.ColumnIndex(names[1])
	if col < 0 || t.Columns[col].Hidden {
		return nil, pgerror.New(pgerror.CodeUndefinedColumn, "column %q of relation %q does not exist", names[1], t.Name)
	}
	if s, ok := b.cat.ColumnSequence(t, col); ok {
		return expr.NewConst(types.NewString(expr.QuoteIdent(s.Schema)+"."+expr.QuoteIdent(s.Name)), types.TText), nil
	}
	return expr.NewConst(types.Null, types.TText), nil
}

// seqField reads a field of a sequence's row (SELECT * FROM s):
// last_value, log_cnt or is_called.
type seqField struct {
	id    uint32
	field int
}

// seqFields are the columns of a sequence's row.
var seqFields = []Column{{Name: "last_value", T: types.TInt8}, {Name: "log_cnt", T: types.TInt8}, {Name: "is_called", T: types.TBool}}

func (f *seqField) Type() types.T { return seqFields[f.field].T }
func (f *seqField) String() string {
	return "sequence_" + seqFields[f.field].Name + "(" + types.NewInt(int64(f.id)).String() + ")"
}
func (f *seqField) Children() []expr.Expr              { return nil }
func (f *seqField) WithChildren([]expr.Expr) expr.Expr { return f }

// Eval implements expr.Expr.
func (f *seqField) Eval(c *expr.Ctx, _ []types.Datum) (types.Datum, error) {
	if c == nil || c.Sequences == nil {
		return dNull, pgerror.New(pgerror.CodeFeatureNotSupported, "reading a sequence needs a client session")
	}
	last, logCnt, called, err := c.Sequences.Row(f.id)
	switch {
	case err != nil:
		return dNull, err
	case f.field == 0:
		return dInt(last), nil
	case f.field == 1:
		return dInt(logCnt), nil
	}
	return dBool(called), nil
}

// bindSequenceRow binds a sequence in FROM: its one row of last_value,
// log_cnt and is_called, as this node sees them.
func bindSequenceRow(t *meta.Table, alias string) Node {
	v := &Values{Rows: [][]expr.Expr{make([]expr.Expr, len(seqFields))}}
	for i, c := range seqFields {
		v.Rows[0][i] = &seqField{id: t.ID, field: i}
		c.Table, c.TableID, c.Attr = alias, t.ID, int16(i+1)
		v.Cols = append(v.Cols, c)
	}
	return v
}

// isSequenceExpr reports whether x reads or advances a sequence.
func isSequenceExpr(x expr.Expr) bool {
	switch f := x.(type) {
	case *seqField:
		return true
	case *expr.Func:
		return expr.SequenceFuncs[f.Name] || f.Name == "pg_sequence_last_value"
	}
	return false
}
