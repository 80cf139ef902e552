package meta

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/pgerror"
)

// The system schemas: their relations are built in (planner), and no user
// schema may take their names.
const (
	PgCatalogSchema         = "pg_catalog"
	InformationSchemaSchema = "information_schema"
	StreamdbCatalogSchema   = "streamdb_catalog"
)

// Schema is a namespace of relations created by CREATE SCHEMA; the default
// schema, public, always exists and has no record.
type Schema struct {
	ID   uint32 `json:"id"`
	Name string `json:"name"`
	// Owner is the oid of the role owning it (0: the bootstrap superuser;
	// see OwnerID); ACL what others were granted on it.
	Owner uint32 `json:"owner,omitempty"`
	ACL   ACL    `json:"acl,omitempty"`
}

// HasSchema reports whether the user schema name (or public) exists.
func (c *Catalog) HasSchema(name string) bool {
	_, ok := c.schemas[name]
	return ok || name == DefaultSchema
}

// Schema returns the user schema name (not public, which has no record).
func (c *Catalog) Schema(name string) (*Schema, bool) {
	s, ok := c.schemas[name]
	return s, ok
}

// Schemas returns the user schemas created by CREATE SCHEMA, by name.
func (c *Catalog) Schemas() []*Schema {
	out := make([]*Schema, 0, len(c.schemas))
	for _, s := range c.schemas {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Schema) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func checkSchema(c *Catalog, schema string) error {
	if !c.HasSchema(schema) {
		return pgerror.New(pgerror.CodeInvalidSchemaName, "schema %q does not exist", schema)
	}
	return nil
}

// createSchema adds the schema name, assigning its id; with ifNotExists a
// schema of that name is left as it is.
func (c *Catalog) createSchema(name string, ifNotExists bool, owner uint32) (*Catalog, error) {
	switch {
	case c.HasSchema(name) || name == PgCatalogSchema || name == InformationSchemaSchema || name == StreamdbCatalogSchema:
		if ifNotExists {
			return c, nil
		}
		return c, pgerror.New(pgerror.CodeDuplicateSchema, "schema %q already exists", name)
	case strings.HasPrefix(name, "pg_"):
		return c, pgerror.New(pgerror.CodeReservedName, "unacceptable schema name %q", name).
			WithDetail("The prefix \"pg_\" is reserved for system schemas.")
	}
	n := c.clone()
	n.schemas = make(map[string]*Schema, len(c.schemas)+1)
	for k, v := range c.schemas {
		n.schemas[k] = v
	}
	n.schemas[name] = &Schema{ID: n.nextID, Name: name, Owner: owner}
	n.nextID++
	return n.seal(), nil
}

// dropSchema removes the schema name and, with cascade, its relations and
// everything that depends on them, which it returns (dependents first).
// Without cascade a schema holding relations is 2BP01.
func (c *Catalog) dropSchema(name string, ifExists, cascade bool) (*Catalog, []*Table, error) {
	if _, ok := c.schemas[name]; !ok {
		switch {
		case name == DefaultSchema || name == PgCatalogSchema || name == InformationSchemaSchema || name == StreamdbCatalogSchema:
			return c, nil, pgerror.New(pgerror.CodeFeatureNotSupported, "cannot drop schema %s: it is built in", name)
		case ifExists:
			return c, nil, nil
		}
		return c, nil, pgerror.New(pgerror.CodeInvalidSchemaName, "schema %q does not exist", name)
	}
	var dropped, inSchema []*Table
	seen := map[uint32]bool{}
	for _, t := range c.ordered {
		if t.Schema == name {
			inSchema = append(inSchema, t)
		}
	}
	var fns []*Function
	for _, f := range c.functions {
		if f.Schema == name {
			fns = append(fns, f)
		}
	}
	if len(inSchema)+len(fns) > 0 && !cascade {
		var lines []string
		for _, t := range inSchema {
			lines = append(lines, fmt.Sprintf("%s %s.%s depends on schema %s", t.Kind, t.Schema, t.Name, name))
		}
		for _, f := range fns {
			lines = append(lines, fmt.Sprintf("function %s.%s depends on schema %s", f.Schema, f.Signature(), name))
		}
		return c, nil, pgerror.New(pgerror.CodeDependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", name).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, t := range inSchema {
		for _, d := range c.withDependents(t) {
			if !seen[d.ID] {
				seen[d.ID] = true
				dropped = append(dropped, d)
			}
		}
	}
	n := c.clone()
	for _, d := range dropped {
		n.remove(d)
	}
	n, more, err := n.seal().dropFunctions(fns, true, "")
	if err != nil {
		return c, nil, err
	}
	dropped = append(more, dropped...)
	n.schemas = make(map[string]*Schema, len(c.schemas))
	for k, v := range c.schemas {
		if k != name {
			n.schemas[k] = v
		}
	}
	return n.seal(), dropped, nil
}

// Resolve finds the relation schema.name or, with schema "", the first
// relation called name in the schemas of searchPath that exist (as
// PostgreSQL's search_path resolves unqualified names); an empty
// searchPath is the default schema alone.
func (c *Catalog) Resolve(searchPath []string, schema, name string) (*Table, bool) {
	if schema != "" {
		return c.Table(schema, name)
	}
	if len(searchPath) == 0 {
		return c.Table(DefaultSchema, name)
	}
	for _, s := range searchPath {
		if t, ok := c.byName[qualName{s, name}]; ok {
			return t, true
		}
	}
	return nil, false
}

// ExistingSchemas returns the schemas of searchPath that exist, in order
// (for an empty searchPath, the default schema).
func (c *Catalog) ExistingSchemas(searchPath []string) []string {
	if len(searchPath) == 0 {
		return []string{DefaultSchema}
	}
	var out []string
	for _, s := range searchPath {
		if c.HasSchema(s) {
			out = append(out, s)
		}
	}
	return out
}

// CreationSchema is the schema an unqualified CREATE puts its object in:
// the first schema of searchPath that exists (3F000 if none does).
func (c *Catalog) CreationSchema(searchPath []string) (string, error) {
	if s := c.ExistingSchemas(searchPath); len(s) > 0 {
		return s[0], nil
	}
	return "", pgerror.New(pgerror.CodeInvalidSchemaName, "no schema has been selected to create in")
}
