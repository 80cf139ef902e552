package sql

import (
	"context"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// seqOptions turns the options of CREATE or ALTER SEQUENCE (or of an
// identity column) into the catalog's, and OWNED BY's column, resolved in
// cat (nil without OWNED BY; Table 0 for OWNED BY NONE).
func (s *Session) seqOptions(cat *meta.Catalog, opts []parser.SeqOption) (meta.SeqOptions, *meta.SeqOwner, error) {
	var o meta.SeqOptions
	var owner *meta.SeqOwner
	for _, x := range opts {
		switch x.Name {
		case "as":
			t, err := types.ParseTypeName(x.Type)
			if err != nil {
				return o, nil, err
			}
			o.As = t.OID()
		case "increment":
			o.Increment = x.Value
		case "minvalue":
			o.Min, o.NoMin = x.Value, x.No
		case "maxvalue":
			o.Max, o.NoMax = x.Value, x.No
		case "start":
			o.Start = x.Value
		case "restart":
			o.Restart, o.RestartWith = true, x.Value
		case "cache":
			o.Cache = x.Value
		case "cycle":
			o.Cycle = new(!x.No)
		case "owned by":
			var err error
			if owner, err = s.seqOwner(cat, x.Owner); err != nil {
				return o, nil, err
			}
		}
	}
	return o, owner, nil
}

// seqOwner resolves OWNED BY [schema.]table.column (nil parts: NONE).
func (s *Session) seqOwner(cat *meta.Catalog, parts []string) (*meta.SeqOwner, error) {
	if parts == nil {
		return &meta.SeqOwner{}, nil
	}
	if len(parts) < 2 || len(parts) > 3 {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "invalid OWNED BY option").WithHint("Specify OWNED BY table.column or OWNED BY NONE.")
	}
	n := parser.ObjectName{Name: parts[len(parts)-2]}
	if len(parts) == 3 {
		n.Schema = parts[0]
	}
	t, ok := cat.Resolve(s.searchPath(), n.Schema, n.Name)
	if !ok {
		return nil, pgerror.New(pgerror.CodeUndefinedTable, "relation %q does not exist", n.Name)
	}
	col := parts[len(parts)-1]
	i := t.ColumnIndex(col)
	if i < 0 || t.Columns[i].Hidden {
		return nil, pgerror.New(pgerror.CodeUndefinedColumn, "column %q of relation %q does not exist", col, t.Name)
	}
	return &meta.SeqOwner{Table: t.ID, Column: i}, nil
}

// createSequence runs CREATE SEQUENCE.
func (s *Session) createSequence(ctx context.Context, x *parser.CreateSequence) (pgwire.Rows, error) {
	cat := s.e.Meta.Catalog()
	schema, err := s.createIn(cat, x.Name)
	if err != nil {
		return nil, err
	}
	o, owner, err := s.seqOptions(cat, x.Options)
	if err != nil {
		return nil, err
	}
	seq, err := meta.NewSequence(o)
	if err != nil {
		return nil, err
	}
	if owner != nil {
		seq.OwnedTable, seq.OwnedColumn = owner.Table, owner.Column
	}
	t := &meta.Table{Schema: schema, Name: x.Name.Name, Kind: meta.KindSequence, Sequence: seq, Owner: s.currentRole()}
	if _, err := s.e.Meta.CreateTable(ctx, t, x.IfNotExists); err != nil {
		return nil, err
	}
	return done("CREATE SEQUENCE"), nil
}

// alterSequence runs ALTER SEQUENCE.
func (s *Session) alterSequence(ctx context.Context, x *parser.AlterSequence) (pgwire.Rows, error) {
	cat := s.e.Meta.Catalog()
	o, owner, err := s.seqOptions(cat, x.Options)
	if err != nil {
		return nil, err
	}
	schema := s.schemaOf(cat, x.Name)
	if err := s.mustOwn(cat, meta.KindSequence, schema, x.Name.Name); err != nil {
		return nil, err
	}
	alter := func(g *meta.SeqGiveBack) error {
		return s.e.Meta.AlterSequence(ctx, schema, x.Name.Name, o, owner, x.IfExists, g)
	}
	if t, ok := cat.Table(schema, x.Name.Name); ok && t.Kind == meta.KindSequence {
		err = s.e.seqs.Alter(t, alter)
	} else {
		err = alter(nil)
	}
	if err != nil {
		return nil, err
	}
	return done("ALTER SEQUENCE"), nil
}

// ownedSequences returns the sequences CREATE TABLE makes for the serial
// and identity columns of x, whose types tableFromDef gave t.
func (s *Session) ownedSequences(x *parser.CreateTable, t *meta.Table) ([]meta.OwnedSequence, error) {
	var out []meta.OwnedSequence
	for i, c := range x.Columns {
		_, serial := parser.SerialType(c.TypeName)
		if !serial && c.Identity == "" {
			continue
		}
		o, _, err := s.seqOptions(nil, c.IdentityOptions)
		switch {
		case err != nil:
			return nil, err
		case serial && c.Identity != "":
			return nil, pgerror.New(pgerror.CodeSyntaxError, "both default and identity specified for column %q of table %q", c.Name, t.Name)
		case c.Default != nil:
			return nil, pgerror.New(pgerror.CodeSyntaxError, "multiple default values specified for column %q of table %q", c.Name, t.Name)
		case !t.Columns[i].Type.IsInteger():
			return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "identity column type must be smallint, integer, or bigint")
		}
		out = append(out, meta.OwnedSequence{Column: i, Options: o})
	}
	return out, nil
}

// identities maps GENERATED's words to attidentity.
var identities = map[string]byte{"always": 'a', "by default": 'd'}

// seqState is a session's sequence state: currval's values, lastval's
// sequence.
type seqState struct {
	cur  map[uint32]int64
	last uint32
}

// nodeSequences are the engine's sequence values with the session's
// state: what expr.Ctx.Sequences asks.
type nodeSequences struct {
	seqs *control.Sequences
	cat  func() *meta.Catalog
	st   *seqState
}

// NextVal implements expr.Sequences.
func (n nodeSequences) NextVal(ctx context.Context, id uint32) (int64, error) {
	v, err := n.seqs.NextVal(ctx, id)
	if err == nil {
		if n.st.cur == nil {
			n.st.cur = map[uint32]int64{}
		}
		n.st.cur[id], n.st.last = v, id
	}
	return v, err
}

// CurrVal implements expr.Sequences.
func (n nodeSequences) CurrVal(id uint32) (int64, error) {
	t, err := control.Lookup(n.cat(), id)
	if err != nil {
		return 0, err
	}
	v, ok := n.st.cur[id]
	if !ok {
		return 0, pgerror.New(pgerror.CodeObjectNotInState, "currval of sequence %q is not yet defined in this session", t.Name)
	}
	return v, nil
}

// LastVal implements expr.Sequences.
func (n nodeSequences) LastVal() (int64, error) {
	if n.st.last != 0 {
		if _, err := control.Lookup(n.cat(), n.st.last); err == nil {
			return n.st.cur[n.st.last], nil
		}
	}
	return 0, pgerror.New(pgerror.CodeObjectNotInState, "lastval is not yet defined in this session")
}

// SetVal implements expr.Sequences: is_called makes value currval's.
func (n nodeSequences) SetVal(ctx context.Context, id uint32, value int64, called bool) error {
	if err := n.seqs.SetVal(ctx, id, value, called); err != nil {
		return err
	}
	if called {
		if n.st.cur == nil {
			n.st.cur = map[uint32]int64{}
		}
		n.st.cur[id] = value
	}
	return nil
}

// Row implements expr.Sequences.
func (n nodeSequences) Row(id uint32) (int64, int64, bool, error) { return n.seqs.Row(id) }

// newCtx returns the evaluation context of a statement of the session:
// its backend, time zone and sequences.
func (s *Session) newCtx(ctx context.Context, params []types.Datum) *expr.Ctx {
	c := expr.NewCtx(ctx, params)
	c.Backend = s
	c.Loc = s.vars.zone()
	c.Sequences = nodeSequences{seqs: s.e.seqs, cat: s.e.Meta.Catalog, st: &s.seqs}
	return c
}
