package meta

import (
	"encoding/json"
	"fmt"

	"github.com/streamdb/streamdb/types"
)

// columnJSON is a column as the catalog persists it: the type by PostgreSQL
// OID and modifier, which are stable, rather than by types.Family.
type columnJSON struct {
	Name    string    `json:"name"`
	TypeOID types.OID `json:"type_oid"`
	TypeMod int32     `json:"type_mod"`
	NotNull bool      `json:"not_null,omitempty"`
	Default string    `json:"default,omitempty"`
	Hidden  bool      `json:"hidden,omitempty"`
	Comment string    `json:"comment,omitempty"`
	Dropped bool      `json:"dropped,omitempty"`
	// Identity is Column.Identity as a string ("" for none).
	Identity string `json:"identity,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (c Column) MarshalJSON() ([]byte, error) {
	var identity string
	if c.Identity != 0 {
		identity = string(c.Identity)
	}
	return json.Marshal(columnJSON{c.Name, c.Type.OID(), c.Type.Mod, c.NotNull, c.Default, c.Hidden, c.Comment, c.Dropped, identity})
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *Column) UnmarshalJSON(b []byte) error {
	var j columnJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	t, err := typeOf(j.TypeOID, j.TypeMod, "column "+j.Name)
	if err != nil {
		return err
	}
	t.Mod = j.TypeMod
	*c = Column{Name: j.Name, Type: t, NotNull: j.NotNull, Default: j.Default, Hidden: j.Hidden, Comment: j.Comment, Dropped: j.Dropped}
	if len(j.Identity) == 1 {
		c.Identity = j.Identity[0]
	}
	return nil
}

// typeOf returns the type of a persisted OID and modifier; what names
// its owner in the error.
func typeOf(oid types.OID, mod int32, what string) (types.T, error) {
	t, ok := types.FromOID(oid)
	if !ok {
		return t, fmt.Errorf("meta: %s has unknown type oid %d", what, oid)
	}
	t.Mod = mod
	return t, nil
}

// catalogJSON is the persisted form of a Catalog. A snapshot of the FSM
// keeps the committed epoch in it too, where it always was.
type catalogJSON struct {
	NextID         uint32            `json:"next_id"`
	CommittedEpoch uint64            `json:"committed_epoch,omitempty"`
	System         map[string]string `json:"system,omitempty"`
	Schemas        []*Schema         `json:"schemas,omitempty"`
	PublicSchema   *Schema           `json:"public_schema,omitempty"`
	Functions      []*Function       `json:"functions,omitempty"`
	Roles          []*Role           `json:"roles,omitempty"`
	Tables         []*Table          `json:"tables"`
	ClusterID      string            `json:"cluster_id,omitempty"`
	Voters         int               `json:"voters,omitempty"`
	Origin         string            `json:"origin,omitempty"`
	Nodes          []*Node           `json:"nodes,omitempty"`
}

// toJSON returns the persisted form of c with committed as the committed
// epoch.
func (c *Catalog) toJSON(committed uint64) catalogJSON {
	return catalogJSON{NextID: c.nextID, CommittedEpoch: committed, System: c.system, Schemas: c.Schemas(), PublicSchema: c.public, Functions: c.functions, Roles: c.roles, Tables: c.ordered,
		ClusterID: c.clusterID, Voters: c.voters, Origin: c.origin, Nodes: c.Nodes()}
}

// fromJSON returns the catalog and the committed epoch j holds.
func fromJSON(j catalogJSON) (*Catalog, uint64) {
	n := newCatalog()
	n.nextID = j.NextID
	n.system = j.System
	if len(j.Schemas) > 0 {
		n.schemas = map[string]*Schema{}
		for _, s := range j.Schemas {
			n.schemas[s.Name] = s
		}
	}
	n.public = j.PublicSchema
	n.functions = j.Functions
	if j.Roles != nil {
		n.roles = j.Roles
	}
	n.clusterID, n.voters, n.origin = j.ClusterID, j.Voters, j.Origin
	for _, t := range j.Tables {
		n.put(t)
	}
	if len(j.Nodes) > 0 {
		n.nodes = map[string]*Node{}
		for _, nd := range j.Nodes {
			n.nodes[nd.ID] = nd
		}
	}
	return n.seal(), j.CommittedEpoch
}

// MarshalJSON implements json.Marshaler.
func (c *Catalog) MarshalJSON() ([]byte, error) { return json.Marshal(c.toJSON(0)) }

// UnmarshalJSON implements json.Unmarshaler.
func (c *Catalog) UnmarshalJSON(b []byte) error {
	var j catalogJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	n, _ := fromJSON(j)
	*c = *n
	return nil
}
