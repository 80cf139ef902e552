package expr

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Ctx carries what evaluation needs beyond the input row: statement
// parameters, the rows of enclosing queries (for correlated subqueries) and
// the statement's clock.
type Ctx struct {
	Context context.Context
	Params  []types.Datum
	// Outer is the stack of enclosing rows; the innermost is last.
	Outer [][]types.Datum
	// Now is the statement's start time (now(), current_timestamp).
	Now time.Time
	// Backend is the client session that runs the statement (nil: none,
	// as in a view's dataflow).
	Backend Backend
	// Loc is the session's TimeZone (nil: UTC, as in a view's dataflow):
	// timestamptz values read, print, truncate and move by days in it.
	Loc *time.Location
	// Sequences are the node's sequences as the session sees them (nil:
	// none, as in a view's dataflow).
	Sequences Sequences
	subCache  map[*Subquery][]types.Datum
	castCache map[*Cast]types.Datum
}

// Zone returns the statement's time zone, nil for UTC (also for a nil
// Ctx, as constant folding evaluates with).
func (c *Ctx) Zone() *time.Location {
	if c == nil {
		return nil
	}
	return c.Loc
}

// zoneOf returns the statement's time zone as a location.
func zoneOf(c *Ctx) *time.Location {
	if loc := c.Zone(); loc != nil {
		return loc
	}
	return time.UTC
}

// NewCtx returns an evaluation context for one statement.
func NewCtx(ctx context.Context, params []types.Datum) *Ctx {
	return &Ctx{Context: ctx, Params: params, Now: time.Now()}
}

// ColRef reads column Idx of the input row.
type ColRef struct {
	leaf
	Idx  int
	T    types.T
	Name string
}

// Type implements Expr.
func (e *ColRef) Type() types.T { return e.T }

// Eval implements Expr.
func (e *ColRef) Eval(_ *Ctx, row []types.Datum) (types.Datum, error) { return row[e.Idx], nil }

// String implements Expr.
func (e *ColRef) String() string { return "$" + strconv.Itoa(e.Idx) }

// WithChildren implements Expr.
func (e *ColRef) WithChildren([]Expr) Expr { return e }

// OuterRef reads column Idx of the enclosing row Level levels out (1 = the
// immediately enclosing query).
type OuterRef struct {
	leaf
	Level, Idx int
	T          types.T
	Name       string
}

// Type implements Expr.
func (e *OuterRef) Type() types.T { return e.T }

// Eval implements Expr.
func (e *OuterRef) Eval(c *Ctx, _ []types.Datum) (types.Datum, error) {
	return c.Outer[len(c.Outer)-e.Level][e.Idx], nil
}

// String implements Expr.
func (e *OuterRef) String() string { return fmt.Sprintf("outer%d.$%d", e.Level, e.Idx) }

// WithChildren implements Expr.
func (e *OuterRef) WithChildren([]Expr) Expr { return e }

// Const is a constant value.
type Const struct {
	leaf
	V types.Datum
	T types.T
}

// NewConst returns a constant of type t.
func NewConst(v types.Datum, t types.T) *Const { return &Const{V: v, T: t} }

// Type implements Expr.
func (e *Const) Type() types.T { return e.T }

// Eval implements Expr.
func (e *Const) Eval(*Ctx, []types.Datum) (types.Datum, error) { return e.V, nil }

// String implements Expr.
func (e *Const) String() string {
	if e.V.IsNull() {
		// A typed NULL names its type, as PostgreSQL's EXPLAIN VERBOSE
		// does: expressions compare by their text (Equal, equal aggregate
		// and window calls computed once), and min(NULL::text) is not
		// min(NULL::date).
		if e.T.Family == types.Unknown {
			return "NULL"
		}
		return "NULL::" + e.T.String()
	}
	return "'" + string(types.FormatText(nil, e.T, e.V)) + "'::" + e.T.String()
}

// WithChildren implements Expr.
func (e *Const) WithChildren([]Expr) Expr { return e }

// Param reads statement parameter $Idx+1.
type Param struct {
	leaf
	Idx int
	T   types.T
}

// Type implements Expr.
func (e *Param) Type() types.T { return e.T }

// Eval implements Expr.
func (e *Param) Eval(c *Ctx, _ []types.Datum) (types.Datum, error) {
	if e.Idx >= len(c.Params) {
		return types.Null, pgerror.New(pgerror.CodeProtocolViolation, "there is no parameter $%d", e.Idx+1)
	}
	return c.Params[e.Idx], nil
}

// String implements Expr.
func (e *Param) String() string { return "$param" + strconv.Itoa(e.Idx+1) }

// WithChildren implements Expr.
func (e *Param) WithChildren([]Expr) Expr { return e }

// Cast converts its argument to type To with PostgreSQL cast semantics.
// Assign selects assignment semantics (errors instead of truncation).
//
// Compare marks a date converted to the timestamp type it is compared with
// (a join's hash key), which never fails, as PostgreSQL's cross-type
// comparison operators (types.DateAsInstant).
type Cast struct {
	E       Expr
	To      types.T
	Assign  bool
	Compare bool
}

// Type implements Expr.
func (e *Cast) Type() types.T { return e.To }

// Eval implements Expr.
func (e *Cast) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	v, err := e.E.Eval(c, row)
	if err != nil || v.IsNull() {
		return v, err
	}
	if e.Compare && v.Kind() == types.KindDate {
		return types.DateAsInstant(v, e.To, c.Zone()), nil
	}
	if _, ok := e.E.(*Const); ok {
		// A cast of a literal that depends on the time zone (castTo leaves
		// it unfolded) runs once per statement.
		if r, ok := c.castCache[e]; ok {
			return r, nil
		}
		r, err := e.cast(c, v)
		if err == nil {
			if c.castCache == nil {
				c.castCache = map[*Cast]types.Datum{}
			}
			c.castCache[e] = r
		}
		return r, err
	}
	return e.cast(c, v)
}

func (e *Cast) cast(c *Ctx, v types.Datum) (types.Datum, error) {
	if e.Assign {
		return types.CastAssignZone(v, e.E.Type(), e.To, c.Zone())
	}
	return types.CastZone(v, e.E.Type(), e.To, c.Zone())
}

// String implements Expr.
func (e *Cast) String() string { return "(" + e.E.String() + ")::" + e.To.String() }

// Children implements Expr.
func (e *Cast) Children() []Expr { return []Expr{e.E} }

// WithChildren implements Expr.
func (e *Cast) WithChildren(ch []Expr) Expr { c := *e; c.E = ch[0]; return &c }

// And is an n-ary AND with three-valued logic.
type And struct{ Args []Expr }

// Type implements Expr.
func (e *And) Type() types.T { return types.TBool }

// Eval implements Expr.
func (e *And) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	return evalLogic(c, row, e.Args, false)
}

// String implements Expr.
func (e *And) String() string { return "(" + joinStrings(e.Args, " AND ") + ")" }

// Children implements Expr.
func (e *And) Children() []Expr { return e.Args }

// WithChildren implements Expr.
func (e *And) WithChildren(ch []Expr) Expr { return &And{Args: ch} }

// Or is an n-ary OR with three-valued logic.
type Or struct{ Args []Expr }

// Type implements Expr.
func (e *Or) Type() types.T { return types.TBool }

// Eval implements Expr.
func (e *Or) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	return evalLogic(c, row, e.Args, true)
}

// String implements Expr.
func (e *Or) String() string { return "(" + joinStrings(e.Args, " OR ") + ")" }

// Children implements Expr.
func (e *Or) Children() []Expr { return e.Args }

// WithChildren implements Expr.
func (e *Or) WithChildren(ch []Expr) Expr { return &Or{Args: ch} }

// evalLogic evaluates AND (decisive=false) or OR (decisive=true): the first
// argument equal to decisive decides; otherwise NULL if any argument was
// NULL, else !decisive.
func evalLogic(c *Ctx, row []types.Datum, args []Expr, decisive bool) (types.Datum, error) {
	null := false
	for _, a := range args {
		v, err := a.Eval(c, row)
		if err != nil {
			return v, err
		}
		if v.IsNull() {
			null = true
		} else if v.Bool() == decisive {
			return v, nil
		}
	}
	if null {
		return types.Null, nil
	}
	return types.NewBool(!decisive), nil
}

// Not negates a boolean (NULL stays NULL).
type Not struct{ E Expr }

// Type implements Expr.
func (e *Not) Type() types.T { return types.TBool }

// Eval implements Expr.
func (e *Not) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	v, err := e.E.Eval(c, row)
	if err != nil || v.IsNull() {
		return v, err
	}
	return types.NewBool(!v.Bool()), nil
}

// String implements Expr.
func (e *Not) String() string { return "NOT " + e.E.String() }

// Children implements Expr.
func (e *Not) Children() []Expr { return []Expr{e.E} }

// WithChildren implements Expr.
func (e *Not) WithChildren(ch []Expr) Expr { return &Not{E: ch[0]} }

// IsNull tests for NULL (IS NULL, or IS NOT NULL when Not is set).
type IsNull struct {
	E   Expr
	Not bool
}

// Type implements Expr.
func (e *IsNull) Type() types.T { return types.TBool }

// Eval implements Expr.
func (e *IsNull) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	v, err := e.E.Eval(c, row)
	if err != nil {
		return v, err
	}
	if v.Kind() == types.KindRecord {
		return types.NewBool(rowIsNull(v, e.Not)), nil
	}
	return types.NewBool(v.IsNull() != e.Not), nil
}

// String implements Expr.
func (e *IsNull) String() string {
	if e.Not {
		return e.E.String() + " IS NOT NULL"
	}
	return e.E.String() + " IS NULL"
}

// Children implements Expr.
func (e *IsNull) Children() []Expr { return []Expr{e.E} }

// WithChildren implements Expr.
func (e *IsNull) WithChildren(ch []Expr) Expr { return &IsNull{E: ch[0], Not: e.Not} }

// IsBool is IS [NOT] TRUE / IS [NOT] FALSE: never NULL.
type IsBool struct {
	E     Expr
	Value bool
	Not   bool
}

// Type implements Expr.
func (e *IsBool) Type() types.T { return types.TBool }

// Eval implements Expr.
func (e *IsBool) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	v, err := e.E.Eval(c, row)
	if err != nil {
		return v, err
	}
	is := !v.IsNull() && v.Bool() == e.Value
	return types.NewBool(is != e.Not), nil
}

// String implements Expr.
func (e *IsBool) String() string {
	return fmt.Sprintf("%s IS %v %v", e.E.String(), map[bool]string{true: "NOT", false: ""}[e.Not], e.Value)
}

// Children implements Expr.
func (e *IsBool) Children() []Expr { return []Expr{e.E} }

// WithChildren implements Expr.
func (e *IsBool) WithChildren(ch []Expr) Expr { c := *e; c.E = ch[0]; return &c }

// Case is a searched CASE: the first true When selects its Then.
type Case struct {
	Whens, Thens []Expr
	Else         Expr // nil means NULL
	T            types.T
}

// Type implements Expr.
func (e *Case) Type() types.T { return e.T }

// Eval implements Expr.
func (e *Case) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	for i, w := range e.Whens {
		v, err := w.Eval(c, row)
		if err != nil {
			return v, err
		}
		if !v.IsNull() && v.Bool() {
			return e.Thens[i].Eval(c, row)
		}
	}
	if e.Else == nil {
		return types.Null, nil
	}
	return e.Else.Eval(c, row)
}

// String implements Expr.
func (e *Case) String() string {
	s := "CASE"
	for i := range e.Whens {
		s += " WHEN " + e.Whens[i].String() + " THEN " + e.Thens[i].String()
	}
	if e.Else != nil {
		s += " ELSE " + e.Else.String()
	}
	return s + " END"
}

// Children implements Expr.
func (e *Case) Children() []Expr {
	ch := append(append([]Expr{}, e.Whens...), e.Thens...)
	if e.Else != nil {
		ch = append(ch, e.Else)
	}
	return ch
}

// WithChildren implements Expr.
func (e *Case) WithChildren(ch []Expr) Expr {
	n := len(e.Whens)
	c := &Case{Whens: ch[:n], Thens: ch[n : 2*n], T: e.T}
	if e.Else != nil {
		c.Else = ch[2*n]
	}
	return c
}

// Coalesce returns its first non-NULL argument.
type Coalesce struct {
	Args []Expr
	T    types.T
}

// Type implements Expr.
func (e *Coalesce) Type() types.T { return e.T }

// Eval implements Expr.
func (e *Coalesce) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	for _, a := range e.Args {
		v, err := a.Eval(c, row)
		if err != nil || !v.IsNull() {
			return v, err
		}
	}
	return types.Null, nil
}

// String implements Expr.
func (e *Coalesce) String() string { return "coalesce(" + joinStrings(e.Args, ", ") + ")" }

// Children implements Expr.
func (e *Coalesce) Children() []Expr { return e.Args }

// WithChildren implements Expr.
func (e *Coalesce) WithChildren(ch []Expr) Expr { return &Coalesce{Args: ch, T: e.T} }
