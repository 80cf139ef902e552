package meta

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Function is a user-defined scalar SQL function (CREATE FUNCTION ...
// LANGUAGE sql), inlined into the queries that call it. A *Function
// obtained from the catalog is shared and must not be modified.
type Function struct {
	// ID is the function's object id (pg_proc.oid).
	ID     uint32
	Schema string
	Name   string
	// Args are the parameters: Name ("" when unnamed), Type and Default
	// (the DEFAULT expression's SQL text, "" for none).
	Args    []Column
	Returns types.T
	// Body is the body's text: the query of AS '...', or the expression
	// of RETURN expr when Return is set.
	Body   string
	Return bool
	// Volatility is PostgreSQL's provolatile: 'i', 's' or 'v'.
	Volatility byte
	// Strict marks STRICT (RETURNS NULL ON NULL INPUT): NULL if any
	// argument is NULL.
	Strict bool
	// Owner is the oid of the role owning it (0: the bootstrap
	// superuser): who may replace or drop it.
	Owner uint32
}

// functionJSON is a Function as the catalog persists it: types by OID and
// modifier, like columns.
type functionJSON struct {
	ID         uint32    `json:"id"`
	Schema     string    `json:"schema"`
	Name       string    `json:"name"`
	Args       []Column  `json:"args,omitempty"`
	ReturnOID  types.OID `json:"return_oid"`
	ReturnMod  int32     `json:"return_mod"`
	Body       string    `json:"body"`
	Return     bool      `json:"return,omitempty"`
	Volatility string    `json:"volatility"`
	Strict     bool      `json:"strict,omitempty"`
	Owner      uint32    `json:"owner,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (f *Function) MarshalJSON() ([]byte, error) {
	return json.Marshal(functionJSON{f.ID, f.Schema, f.Name, f.Args, f.Returns.OID(), f.Returns.Mod, f.Body, f.Return, string(f.Volatility), f.Strict, f.Owner})
}

// UnmarshalJSON implements json.Unmarshaler.
func (f *Function) UnmarshalJSON(b []byte) error {
	var j functionJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	t, err := typeOf(j.ReturnOID, j.ReturnMod, "function "+j.Name)
	if err != nil || len(j.Volatility) != 1 {
		return cmp.Or(err, fmt.Errorf("meta: function %q has volatility %q", j.Name, j.Volatility))
	}
	*f = Function{ID: j.ID, Schema: j.Schema, Name: j.Name, Args: j.Args, Returns: t, Body: j.Body, Return: j.Return,
		Volatility: j.Volatility[0], Strict: j.Strict, Owner: j.Owner}
	return nil
}

// OwnerID returns the role owning f.
func (f *Function) OwnerID() uint32 {
	if f.Owner == 0 {
		return BootstrapRoleID
	}
	return f.Owner
}

// ArgTypes returns the types of f's parameters.
func (f *Function) ArgTypes() []types.T {
	out := make([]types.T, len(f.Args))
	for i, a := range f.Args {
		out[i] = a.Type
	}
	return out
}

// Signature returns name(type, ...), as PostgreSQL names a function in
// messages: f(integer, text).
func (f *Function) Signature() string { return Signature(f.Name, f.ArgTypes()) }

// Signature returns name(type, ...) for the argument types ts.
func Signature(name string, ts []types.T) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.String()
	}
	return name + "(" + strings.Join(names, ", ") + ")"
}

// sameArgTypes reports whether f takes exactly the types ts (modifiers
// aside, as PostgreSQL ignores them in signatures).
func (f *Function) sameArgTypes(ts []types.T) bool {
	return slices.EqualFunc(f.Args, ts, func(a Column, t types.T) bool { return a.Type.WithoutMod() == t.WithoutMod() })
}

// Functions returns every user function, sorted by schema, name and id.
// The slice is shared and must not be modified.
func (c *Catalog) Functions() []*Function { return c.functions }

// FunctionByID returns the function with the given id.
func (c *Catalog) FunctionByID(id uint32) (*Function, bool) {
	i := slices.IndexFunc(c.functions, func(f *Function) bool { return f.ID == id })
	if i < 0 {
		return nil, false
	}
	return c.functions[i], true
}

// ResolveFunctions returns the functions called name in schema or, with
// schema "", in the existing schemas of searchPath, in search-path order.
func (c *Catalog) ResolveFunctions(searchPath []string, schema, name string) []*Function {
	schemas := []string{schema}
	if schema == "" {
		schemas = c.ExistingSchemas(searchPath)
	}
	var out []*Function
	for _, s := range schemas {
		for _, f := range c.functions {
			if f.Schema == s && f.Name == name {
				out = append(out, f)
			}
		}
	}
	return out
}

// withFunctions returns a copy of c whose functions are fs, sorted.
func (c *Catalog) withFunctions(fs []*Function) *Catalog {
	n := c.clone()
	slices.SortFunc(fs, func(a, b *Function) int {
		return cmp.Or(cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
	n.functions = fs
	return n.seal()
}

// createFunction adds f, assigning its id, or with orReplace replaces the
// function of its schema, name and argument types, which must return the
// same type and keep its parameters' names (42P13, as PostgreSQL).
func (c *Catalog) createFunction(f *Function, orReplace bool) (*Catalog, error) {
	f.Schema = schemaOrDefault(f.Schema)
	if err := checkSchema(c, f.Schema); err != nil {
		return c, err
	}
	fs := slices.Clone(c.functions)
	i := slices.IndexFunc(fs, func(o *Function) bool {
		return o.Schema == f.Schema && o.Name == f.Name && o.sameArgTypes(f.ArgTypes())
	})
	if i < 0 {
		f.ID = c.nextID
		n := c.withFunctions(append(fs, f))
		n.nextID++
		return n, nil
	}
	old := fs[i]
	hint := fmt.Sprintf("Use DROP FUNCTION %s first.", old.Signature())
	switch {
	case !orReplace:
		return c, pgerror.New(pgerror.CodeDuplicateFunction, "function %q already exists with same argument types", f.Name)
	case !c.Owns(f.OwnerID(), old.OwnerID()):
		return c, MustOwn("function", old.Signature())
	case old.Returns != f.Returns:
		return c, pgerror.New(pgerror.CodeInvalidFunctionDefinition, "cannot change return type of existing function").WithHint("%s", hint)
	}
	for k, a := range old.Args {
		if a.Name != "" && a.Name != f.Args[k].Name {
			return c, pgerror.New(pgerror.CodeInvalidFunctionDefinition, "cannot change name of input parameter %q", a.Name).WithHint("%s", hint)
		}
	}
	if users := c.functionUsers(old.ID); len(users) > 0 && old.Body != f.Body {
		return c, pgerror.New(pgerror.CodeFeatureNotSupported, "cannot replace function %s: %s %s uses it", old.Signature(), users[0].Kind, users[0].Name).
			WithHint("Views inline the functions they call; drop the view first.")
	}
	f.ID = old.ID
	fs[i] = f
	return c.withFunctions(fs), nil
}

// functionUsers returns the relations whose queries call the function id.
func (c *Catalog) functionUsers(id uint32) []*Table {
	var out []*Table
	for _, t := range c.ordered {
		if slices.Contains(t.Functions, id) {
			out = append(out, t)
		}
	}
	return out
}

// dropFunction removes the function schema.name taking argTypes (any
// argument types when argTypes is nil, if the name is unique) and, with
// cascade, the views that call it and their dependents, which it returns.
// Without cascade a function that views call is 2BP01.
// FunctionsMatching returns the functions schema.name taking argTypes
// (nil: any), which DROP FUNCTION drops.
func (c *Catalog) FunctionsMatching(schema, name string, argTypes []types.T) []*Function {
	schema = schemaOrDefault(schema)
	var match []*Function
	for _, f := range c.functions {
		if f.Schema == schema && f.Name == name && (argTypes == nil || f.sameArgTypes(argTypes)) {
			match = append(match, f)
		}
	}
	return match
}

func (c *Catalog) dropFunction(schema, name string, argTypes []types.T, ifExists, cascade bool) (*Catalog, []*Table, error) {
	match := c.FunctionsMatching(schema, name, argTypes)
	switch {
	case len(match) > 1:
		return c, nil, pgerror.New(pgerror.CodeAmbiguousFunction, "function name %q is not unique", name).
			WithHint("Specify the argument list to select the function unambiguously.")
	case len(match) == 0 && ifExists:
		return c, nil, nil
	case len(match) == 0 && argTypes == nil:
		return c, nil, pgerror.New(pgerror.CodeUndefinedFunction, "could not find a function named %q", name)
	case len(match) == 0:
		return c, nil, pgerror.New(pgerror.CodeUndefinedFunction, "function %s does not exist", Signature(name, argTypes))
	}
	f := match[0]
	n, dropped, err := c.dropFunctions([]*Function{f}, cascade, fmt.Sprintf("function %s", f.Signature()))
	return n, dropped, err
}

// dropFunctions removes fs and, with cascade, the relations calling them
// and their dependents (returned, dependents first); without cascade such
// relations are 2BP01, what naming the object being dropped.
func (c *Catalog) dropFunctions(fs []*Function, cascade bool, what string) (*Catalog, []*Table, error) {
	var dropped []*Table
	var lines []string
	seen := map[uint32]bool{}
	for _, f := range fs {
		for _, u := range c.functionUsers(f.ID) {
			lines = append(lines, fmt.Sprintf("%s %s depends on function %s", u.Kind, u.Name, f.Signature()))
			for _, d := range c.withDependents(u) {
				if !seen[d.ID] {
					seen[d.ID] = true
					dropped = append(dropped, d)
				}
			}
		}
	}
	if len(lines) > 0 && !cascade {
		return c, nil, pgerror.New(pgerror.CodeDependentObjectsStillExist, "cannot drop %s because other objects depend on it", what).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	n := c.withFunctions(slices.DeleteFunc(slices.Clone(c.functions), func(f *Function) bool { return slices.Contains(fs, f) }))
	for _, d := range dropped {
		n.remove(d)
	}
	return n.seal(), dropped, nil
}
