package expr

import "github.com/streamdb/streamdb/types"

// NewAnd returns the AND of args as PostgreSQL's eval_const_expressions
// simplifies it: a constant false makes the whole AND false (the other
// arguments are never evaluated), constant trues drop out and constant
// NULLs leave one NULL; an AND of one argument is that argument, of none
// true. An argument that is itself an AND stays one (a BETWEEN, say, which
// GROUP BY may name): the binder flattens a AND b AND c as PostgreSQL's
// grammar does.
func NewAnd(args ...Expr) Expr { return newLogic(args, false) }

// NewOr is NewAnd's dual: a constant true makes the whole OR true,
// constant falses drop out.
func NewOr(args ...Expr) Expr { return newLogic(args, true) }

// NewNot returns NOT e, folded when e is a constant.
func NewNot(e Expr) Expr {
	if c, ok := e.(*Const); ok {
		if c.V.IsNull() {
			return c
		}
		return NewConst(types.NewBool(!c.V.Bool()), types.TBool)
	}
	return &Not{E: e}
}

// newLogic builds AND (decisive false) or OR (decisive true).
func newLogic(args []Expr, decisive bool) Expr {
	var out []Expr
	null := false
	for _, a := range args {
		c, ok := a.(*Const)
		switch {
		case !ok:
			out = append(out, a)
		case c.V.IsNull():
			null = true
		case c.V.Bool() == decisive:
			return NewConst(types.NewBool(decisive), types.TBool)
		}
	}
	if null {
		out = append(out, NewConst(types.Null, types.TBool))
	}
	switch len(out) {
	case 0:
		return NewConst(types.NewBool(!decisive), types.TBool)
	case 1:
		return out[0]
	}
	if decisive {
		return &Or{Args: out}
	}
	return &And{Args: out}
}
