package meta

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/streamdb/streamdb/types"
)

// DefaultSchema is the schema that always exists, first on the default
// search_path.
const DefaultSchema = "public"

// FirstObjectID is the id of the first object created; ids below it are
// reserved (storage.SystemTableID is 0). Ids are never reused.
const FirstObjectID uint32 = 1000

// ObjectKind is the kind of a catalog object.
type ObjectKind uint8

// Object kinds.
const (
	KindTable ObjectKind = iota
	KindView             // a plain SQL view: stored query text
	KindMaterializedView
	KindSource
	KindIndex // reserved: indexes are stored with their table
	KindSequence
	// KindSubscription is a log of a relation's changes that clients
	// read (SUBSCRIBE, subscription cursors), kept for a retention.
	KindSubscription
	// KindSink is a log of a query's changes that a connector delivers
	// to another system.
	KindSink
)

// Logged reports whether objects of kind k have a job that writes their
// changes into a log (dataflow.ChangelogSpec): subscriptions and sinks.
func (k ObjectKind) Logged() bool { return k == KindSubscription || k == KindSink }

// Planned reports whether the job of objects of kind k is planned from
// their query (ViewSQL): materialized views, subscriptions and sinks.
func (k ObjectKind) Planned() bool { return k == KindMaterializedView || k.Logged() }

var kindNames = [...]string{
	KindTable:            "table",
	KindView:             "view",
	KindMaterializedView: "materialized view",
	KindSource:           "source",
	KindIndex:            "index",
	KindSequence:         "sequence",
	KindSubscription:     "subscription",
	KindSink:             "sink",
}

// String returns the kind as PostgreSQL names it in messages ("materialized
// view").
func (k ObjectKind) String() string {
	if k == KindSchema {
		return "schema"
	}
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// MarshalText implements encoding.TextMarshaler.
func (k ObjectKind) MarshalText() ([]byte, error) {
	if int(k) >= len(kindNames) && k != KindSchema {
		return nil, fmt.Errorf("meta: unknown object kind %d", uint8(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *ObjectKind) UnmarshalText(b []byte) error {
	if string(b) == KindSchema.String() {
		*k = KindSchema
		return nil
	}
	i := slices.Index(kindNames[:], string(b))
	if i < 0 {
		return fmt.Errorf("meta: unknown object kind %q", b)
	}
	*k = ObjectKind(i)
	return nil
}

// Table is a relation in the catalog: a table, view, materialized view or
// source. A *Table obtained from the catalog is shared and must not be
// modified.
type Table struct {
	ID     uint32     `json:"id"`
	Schema string     `json:"schema"`
	Name   string     `json:"name"`
	Kind   ObjectKind `json:"kind"`
	// Columns in order of their place in stored rows: a hidden row-id
	// column, if any, is last but for columns ALTER TABLE added since;
	// dropped columns stay, hidden (Column.Dropped).
	Columns []Column `json:"columns"`
	// PK holds indexes into Columns; for a table without a declared primary
	// key it is the hidden row-id column.
	PK []int `json:"pk,omitempty"`
	// HiddenRowID marks a hidden int8 column "_row_id" (PK[0]) as the
	// primary key. On create, set it with an empty PK and without the
	// column: the catalog appends both.
	HiddenRowID bool `json:"hidden_row_id,omitempty"`
	AppendOnly  bool `json:"append_only,omitempty"`
	// RowBlocks marks a materialized view over an append-only stream whose
	// rows are stored in row blocks (types.DecodeRowBlock): one key per
	// vnode and epoch of an actor, the primary key of the block's first
	// row, instead of one key per row.
	RowBlocks bool `json:"row_blocks,omitempty"`
	// ViewSQL is the query text of a view.
	ViewSQL string `json:"view_sql,omitempty"`
	// Indexes are secondary indexes (metadata only for now).
	Indexes []Index `json:"indexes,omitempty"`
	// StateTables are the ids of a materialized view's operator state
	// tables, in the order its plan allocates them.
	StateTables []uint32 `json:"state_tables,omitempty"`
	// Parallelism is a job's actor count per parallel fragment (0: the
	// node's default): a materialized view's, a source's or a table's
	// with a connector.
	Parallelism int `json:"parallelism,omitempty"`
	// Assignment maps each vnode of the job's parallel fragments to the
	// slot of the actor owning it, as the last committed rescale step left
	// it; nil: contiguous ranges over Parallelism actors.
	Assignment []int `json:"assignment,omitempty"`
	// Placement maps each actor slot of the job to the node running it
	// (a singleton fragment, a table's writer, runs at slot 0's); nil:
	// every actor on the cluster's first node (Catalog.Origin).
	Placement []string `json:"placement,omitempty"`
	// Rescale is the job's rescale in progress, nil if none.
	Rescale *Rescale `json:"rescale,omitempty"`
	// DependsOn holds the ids of the objects a view reads.
	DependsOn []uint32 `json:"depends_on,omitempty"`
	// Functions holds the ids of the SQL functions a view's query calls
	// (inlined into its plan): they cannot be dropped while it exists.
	Functions []uint32 `json:"functions,omitempty"`
	// Options are the WITH options of a source or of a table fed by a
	// connector, as the connector resolved them.
	Options map[string]string `json:"options,omitempty"`
	// Watermark is the WATERMARK FOR clause of a table or source, nil if
	// none.
	Watermark *Watermark `json:"watermark,omitempty"`
	// WatermarkColumns of a materialized view are the indexes of the
	// columns whose watermarks its changes carry.
	WatermarkColumns []int `json:"watermark_columns,omitempty"`
	// EmitOnWindowClose marks a materialized view defined with EMIT ON
	// WINDOW CLOSE.
	EmitOnWindowClose bool `json:"emit_on_window_close,omitempty"`
	// Zone is the TimeZone a materialized view's expressions run in: the
	// one of the session that created it ("": UTC), as PostgreSQL reads
	// a view's literals when it is defined.
	Zone string `json:"zone,omitempty"`
	// SearchPath is the search_path a view's query resolves unqualified
	// names in: the one of the session that created it (nil: public).
	SearchPath []string `json:"search_path,omitempty"`
	// Comment is the relation's COMMENT ON text ("" means none).
	Comment string `json:"comment,omitempty"`
	// Retention is how long a subscription's log keeps each epoch's
	// changes (0: until they are delivered, for a sink).
	Retention time.Duration `json:"retention,omitempty"`
	// Since is the epoch from which a subscription's log holds every
	// change: the one its backfill ended in.
	Since uint64 `json:"since,omitempty"`
	// SessionNode is the node whose session made a temporary
	// subscription (a SUBSCRIBE to a relation or a query), "" for every
	// other object: the node drops it when the SUBSCRIBE ends, or when it
	// starts again.
	SessionNode string `json:"owner,omitempty"`
	// Owner is the oid of the role owning the relation (0: the bootstrap
	// superuser; see OwnerID); ACL what others were granted on it (nil:
	// nothing was ever granted or revoked).
	Owner uint32 `json:"owner_id,omitempty"`
	ACL   ACL    `json:"acl,omitempty"`
	// Sequence holds a sequence's options (KindSequence only).
	Sequence *Sequence `json:"sequence,omitempty"`
}

// Watermark is WATERMARK FOR column AS expression: the rows of a table or
// source promise that later rows have the column at or above the largest
// value of the expression over the rows so far.
type Watermark struct {
	// Column indexes Columns.
	Column int `json:"column"`
	// Expr is the expression's SQL text over the relation's columns.
	Expr string `json:"expr"`
	// StateTable stores the watermark reached at each checkpoint.
	StateTable uint32 `json:"state_table"`
}

// ConnectorOption is the option naming the connector of a source or table.
const ConnectorOption = "connector"

// Connector returns the connector feeding a source or table, "" if none.
func (t *Table) Connector() string { return t.Options[ConnectorOption] }

// ShownOption is the value of option key as catalogs and SHOW CREATE
// show it: secrets (options named like a password or secret, and the
// password of a URL) are masked, so that reading the catalog does not
// reveal a connector's credentials.
func ShownOption(key, value string) string {
	k := strings.ToLower(key)
	if strings.Contains(k, "password") || strings.Contains(k, "secret") {
		return "********"
	}
	if u, err := url.Parse(value); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "********")
			return strings.Replace(u.String(), url.QueryEscape("********"), "********", 1)
		}
	}
	return value
}

// Width is the number of t's visible columns: those a row written to it
// gives, not the hidden row id nor dropped columns.
func (t *Table) Width() int {
	n := 0
	for _, c := range t.Columns {
		if !c.Hidden {
			n++
		}
	}
	return n
}

// RowIDColumn is the name of the hidden row-id column.
const RowIDColumn = "_row_id"

// ColumnIndex returns the index of the named column, or -1.
func (t *Table) ColumnIndex(name string) int {
	return slices.IndexFunc(t.Columns, func(c Column) bool { return c.Name == name })
}

// Index is a secondary index of a table.
type Index struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
	// Include are the columns of INCLUDE (...), stored with the index but
	// no part of its key.
	Include []string `json:"include,omitempty"`
	Unique  bool     `json:"unique,omitempty"`
}

// AllColumns are the index's key columns, then its included ones.
func (idx Index) AllColumns() []string { return slices.Concat(idx.Columns, idx.Include) }

// Column is a column of a relation.
type Column struct {
	Name    string
	Type    types.T
	NotNull bool
	// Default is the default expression as SQL text; "" means none.
	Default string
	Hidden  bool
	// Comment is the column's COMMENT ON COLUMN text ("" means none).
	Comment string
	// Dropped marks a column ALTER TABLE ... DROP COLUMN removed: hidden,
	// renamed, NULL in new rows, kept so that stored rows keep their
	// layout.
	Dropped bool
	// Identity is 'a' for GENERATED ALWAYS AS IDENTITY, 'd' for BY
	// DEFAULT, 0 for none (pg_attribute.attidentity): the column takes the
	// next value of the sequence it owns.
	Identity byte
}

// qualName is a schema-qualified name. Relations and indexes share one
// namespace per schema, as in PostgreSQL.
type qualName struct{ schema, name string }

// Catalog is an immutable snapshot of the catalog. Every change (DDL, id
// allocations, cluster settings) builds a new Catalog, so readers never
// lock and a *Catalog identifies its version: what is bound against it
// stays valid while Meta.Catalog returns the same pointer. Epoch commits
// do not change it (see Meta.CommittedEpoch).
type Catalog struct {
	byID    map[uint32]*Table
	byName  map[qualName]*Table
	indexes map[qualName]*Table // index name → its table
	ordered []*Table            // by schema, then name
	nextID  uint32
	// schemas are the schemas CREATE SCHEMA made (public is implicit);
	// the map is replaced, never modified, when one is added or dropped.
	schemas map[string]*Schema
	// functions are the user functions, sorted (see withFunctions); the
	// slice is replaced, never modified.
	functions []*Function
	// roles are the users and roles, sorted by name (see withRoles);
	// the slice is replaced, never modified.
	roles []*Role
	// public is the default schema's record once GRANT or OWNER TO
	// changed it (nil: publicSchema).
	public *Schema
	// system holds cluster settings (ALTER SYSTEM SET).
	system map[string]string
	// clusterID, voters and nodes describe the cluster's members.
	clusterID string
	voters    int
	origin    string
	nodes     map[string]*Node
}

func newCatalog() *Catalog {
	return &Catalog{
		byID:    map[uint32]*Table{},
		byName:  map[qualName]*Table{},
		indexes: map[qualName]*Table{},
		nextID:  FirstObjectID,
		roles:   bootstrapRoles(),
	}
}

func schemaOrDefault(schema string) string {
	if schema == "" {
		return DefaultSchema
	}
	return schema
}

// Table returns the relation schema.name ("" means the default schema).
func (c *Catalog) Table(schema, name string) (*Table, bool) {
	t, ok := c.byName[qualName{schemaOrDefault(schema), name}]
	return t, ok
}

// TableByID returns the relation with the given id.
func (c *Catalog) TableByID(id uint32) (*Table, bool) {
	t, ok := c.byID[id]
	return t, ok
}

// System returns a cluster setting and whether it was ever set.
func (c *Catalog) System(name string) (string, bool) {
	v, ok := c.system[name]
	return v, ok
}

// Tables returns every relation, sorted by schema and name. The slice is
// shared and must not be modified.
func (c *Catalog) Tables() []*Table { return c.ordered }

// Index returns the named index and its table.
func (c *Catalog) Index(schema, name string) (*Table, *Index, bool) {
	t, ok := c.indexes[qualName{schemaOrDefault(schema), name}]
	if !ok {
		return nil, nil, false
	}
	i := slices.IndexFunc(t.Indexes, func(x Index) bool { return x.Name == name })
	return t, &t.Indexes[i], true
}

// clone returns a copy to modify; Tables stay shared until replaced.
func (c *Catalog) clone() *Catalog {
	n := &Catalog{
		byID:      make(map[uint32]*Table, len(c.byID)+1),
		byName:    make(map[qualName]*Table, len(c.byName)+1),
		indexes:   make(map[qualName]*Table, len(c.indexes)+1),
		nextID:    c.nextID,
		schemas:   c.schemas,
		functions: c.functions,
		roles:     c.roles,
		public:    c.public,
		system:    c.system,
		clusterID: c.clusterID,
		voters:    c.voters,
		origin:    c.origin,
		nodes:     c.nodes,
	}
	for _, t := range c.byID {
		n.put(t)
	}
	return n
}

// put adds t, or replaces the table with its id.
func (c *Catalog) put(t *Table) {
	if old, ok := c.byID[t.ID]; ok {
		c.remove(old)
	}
	c.byID[t.ID] = t
	c.byName[qualName{t.Schema, t.Name}] = t
	for _, idx := range t.Indexes {
		c.indexes[qualName{t.Schema, idx.Name}] = t
	}
}

func (c *Catalog) remove(t *Table) {
	delete(c.byID, t.ID)
	delete(c.byName, qualName{t.Schema, t.Name})
	for _, idx := range t.Indexes {
		delete(c.indexes, qualName{t.Schema, idx.Name})
	}
}

// seal rebuilds the ordered list after changes.
func (c *Catalog) seal() *Catalog {
	c.ordered = make([]*Table, 0, len(c.byID))
	for _, t := range c.byID {
		c.ordered = append(c.ordered, t)
	}
	slices.SortFunc(c.ordered, func(a, b *Table) int {
		return cmp.Or(cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name))
	})
	return c
}
