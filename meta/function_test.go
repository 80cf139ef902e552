package meta

import (
	"encoding/json"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// TestFunctions applies function DDL in turn and checks each outcome's
// SQLSTATE, that views calling a function hold it (or go with CASCADE),
// and that the catalog's functions survive a JSON round trip.
func TestFunctions(t *testing.T) {
	intArg := []Column{{Name: "a", Type: types.TInt4}}
	c := newCatalog().seal()
	steps := []struct {
		name string
		do   func(c *Catalog) (*Catalog, error)
		code string // "" for success
		fns  int    // functions after the step
	}{
		{"create", func(c *Catalog) (*Catalog, error) {
			return c.createFunction(&Function{Name: "f", Args: intArg, Returns: types.TInt4, Body: "SELECT a", Volatility: 'i'}, false)
		}, "", 1},
		{"duplicate", func(c *Catalog) (*Catalog, error) {
			return c.createFunction(&Function{Name: "f", Args: intArg, Returns: types.TInt4, Body: "SELECT 1", Volatility: 'v'}, false)
		}, pgerror.CodeDuplicateFunction, 1},
		{"overload", func(c *Catalog) (*Catalog, error) {
			return c.createFunction(&Function{Name: "f", Returns: types.TText, Body: "SELECT 'x'", Volatility: 'v'}, false)
		}, "", 2},
		{"replace return type", func(c *Catalog) (*Catalog, error) {
			return c.createFunction(&Function{Name: "f", Args: intArg, Returns: types.TInt8, Body: "SELECT a", Volatility: 'v'}, true)
		}, pgerror.CodeInvalidFunctionDefinition, 2},
		{"missing schema", func(c *Catalog) (*Catalog, error) {
			return c.createFunction(&Function{Schema: "nope", Name: "g", Returns: types.TInt4, Body: "SELECT 1", Volatility: 'v'}, false)
		}, pgerror.CodeInvalidSchemaName, 2},
		{"view calling f(integer)", func(c *Catalog) (*Catalog, error) {
			f := c.ResolveFunctions(nil, "", "f")[0]
			c, _, err := c.createTable(&Table{Name: "v", Kind: KindView, ViewSQL: "SELECT f(1)", Functions: []uint32{f.ID}}, false)
			return c, err
		}, "", 2},
		{"replace body while used", func(c *Catalog) (*Catalog, error) {
			return c.createFunction(&Function{Name: "f", Args: intArg, Returns: types.TInt4, Body: "SELECT a + 1", Volatility: 'v'}, true)
		}, pgerror.CodeFeatureNotSupported, 2},
		{"drop ambiguous", func(c *Catalog) (*Catalog, error) {
			c, _, err := c.dropFunction("", "f", nil, false, false)
			return c, err
		}, pgerror.CodeAmbiguousFunction, 2},
		{"drop used", func(c *Catalog) (*Catalog, error) {
			c, _, err := c.dropFunction("", "f", []types.T{types.TInt4}, false, false)
			return c, err
		}, pgerror.CodeDependentObjectsStillExist, 2},
		{"drop missing", func(c *Catalog) (*Catalog, error) {
			c, _, err := c.dropFunction("", "f", []types.T{types.TInt8}, false, false)
			return c, err
		}, pgerror.CodeUndefinedFunction, 2},
		{"drop cascade", func(c *Catalog) (*Catalog, error) {
			c, dropped, err := c.dropFunction("", "f", []types.T{types.TInt4}, false, true)
			if len(dropped) != 1 || dropped[0].Name != "v" {
				t.Errorf("drop cascade dropped %v", dropped)
			}
			return c, err
		}, "", 1},
	}
	for _, s := range steps {
		n, err := s.do(c)
		if got := pgerror.Code(err); err != nil && got != s.code || err == nil && s.code != "" {
			t.Fatalf("%s: error %v, want SQLSTATE %q", s.name, err, s.code)
		}
		if err == nil {
			c = n
		}
		if len(c.Functions()) != s.fns {
			t.Fatalf("%s: %d functions, want %d", s.name, len(c.Functions()), s.fns)
		}
	}
	if _, ok := c.Table("", "v"); ok {
		t.Fatal("view v survived DROP FUNCTION ... CASCADE")
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Catalog
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if got, want := back.Functions()[0], c.Functions()[0]; got.Signature() != want.Signature() || got.Returns != want.Returns || got.Body != want.Body || got.Volatility != want.Volatility {
		t.Fatalf("round trip: %+v, want %+v", got, want)
	}
}
