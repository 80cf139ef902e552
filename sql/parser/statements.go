package parser

import "github.com/pingcap/tidb/pkg/parser/ast"

// Statement is one parsed SQL statement. Exactly one of AST and Utility is set.
type Statement struct {
	// SQL is this statement's original text, trimmed, without the ';'.
	SQL string
	// Offset is the byte offset of SQL within the text given to Parse.
	Offset int
	// AST is the TiDB AST of a SELECT, INSERT, UPDATE, DELETE, set operation
	// or WITH query, translated as the package doc describes; nil otherwise.
	AST ast.StmtNode
	// Utility is a pointer to one of the statement structs of this package
	// (*CreateTable, *DropObject, *SetVar, ...) when AST is nil.
	Utility any
	// NumParams is the highest $n used by the statement.
	NumParams int
	// Returning is the RETURNING list of an INSERT, UPDATE or DELETE; nil if none.
	Returning []*ast.SelectField
	// Overriding is INSERT's OVERRIDING {SYSTEM | USER} VALUE: "system",
	// "user" or "".
	Overriding string

	// translated is the text given to TiDB; posMap maps each of its bytes to
	// a byte offset in the original input (len(translated)+1 entries).
	translated string
	posMap     []int
	// input is the whole text given to Parse, for byte → character mapping.
	input string
}

// Input returns the whole text given to Parse that held the statement,
// as pg_cursors shows a cursor's.
func (s *Statement) Input() string { return s.input }

// ObjectName is a possibly schema-qualified object name, already case-folded.
type ObjectName struct {
	Schema string
	Name   string
}

// String returns the name as schema.name, or name when unqualified.
func (n ObjectName) String() string {
	if n.Schema == "" {
		return n.Name
	}
	return n.Schema + "." + n.Name
}

// CreateTable is CREATE TABLE.
type CreateTable struct {
	Schema      string
	Name        string
	IfNotExists bool
	Columns     []ColumnDef
	// PrimaryKey lists the primary-key columns, from a table constraint or
	// from a column's PRIMARY KEY option.
	PrimaryKey []string
	// Unique lists the column lists of table-level UNIQUE constraints.
	Unique [][]string
	// Watermark is RisingWave's WATERMARK FOR column AS expr, nil if none.
	Watermark *Watermark
	// AppendOnly is set by RisingWave's APPEND ONLY clause.
	AppendOnly bool
	// With holds WITH (key = value, ...) options, keys lowercased.
	With map[string]string
	// Format and Encode are RisingWave's FORMAT format ENCODE encode of a
	// connector's data, lowercased; "" when absent.
	Format, Encode string
	// EncodeOptions are the ENCODE clause's (key = value, ...), keys
	// lowercased; nil when absent.
	EncodeOptions map[string]string
}

// CreateSource is RisingWave's CREATE SOURCE: a stream of rows from a
// connector that stores nothing. Its fields mean what CreateTable's do.
type CreateSource CreateTable

// Watermark is WATERMARK FOR Column AS Expr in CREATE TABLE.
type Watermark struct {
	Column string
	// Expr is translated like a query expression.
	Expr ast.ExprNode
	// ExprSQL is Expr's original text.
	ExprSQL string
}

// ColumnDef is one column of CREATE TABLE.
type ColumnDef struct {
	Name string
	// TypeName is the raw PostgreSQL type text, lowercased and
	// whitespace-normalized, e.g. "double precision", "varchar(10)".
	TypeName   string
	NotNull    bool
	PrimaryKey bool
	Unique     bool
	// Default is the DEFAULT expression, translated like a query expression.
	Default ast.ExprNode
	// DefaultSQL is the DEFAULT expression's original text.
	DefaultSQL string
	// Identity is "always" or "by default" for GENERATED ... AS
	// IDENTITY, "" otherwise; IdentityOptions are its sequence options.
	Identity        string
	IdentityOptions []SeqOption
}

// DropObject is DROP TABLE / VIEW / MATERIALIZED VIEW / INDEX / SOURCE /
// SINK / SUBSCRIPTION.
type DropObject struct {
	// Kind is "TABLE", "VIEW", "MATERIALIZED VIEW", "INDEX", "SOURCE",
	// "SINK", "SUBSCRIPTION" or "SCHEMA".
	Kind     string
	Names    []ObjectName
	IfExists bool
	Cascade  bool
}

// CreateTableAs is CREATE TABLE [IF NOT EXISTS] name [(column, ...)] AS
// query [WITH [NO] DATA].
type CreateTableAs struct {
	Name ObjectName
	// Columns optionally rename the query's columns, in order.
	Columns     []string
	Query       *Statement
	IfNotExists bool
	// NoData is WITH NO DATA: the table is created empty.
	NoData bool
}

// CreateSchema is CREATE SCHEMA [IF NOT EXISTS] name [AUTHORIZATION role].
type CreateSchema struct {
	Name        string
	IfNotExists bool
}

// CreateView is CREATE [OR REPLACE] [MATERIALIZED] VIEW.
type CreateView struct {
	Name ObjectName
	// Columns is the optional column-name list.
	Columns []string
	// Query is the view's query; its AST is the SELECT.
	Query        *Statement
	OrReplace    bool
	Materialized bool
	IfNotExists  bool
	// EmitOnWindowClose is set by RisingWave's EMIT ON WINDOW CLOSE.
	EmitOnWindowClose bool
	// With holds WITH (key = value, ...) options, keys lowercased.
	With map[string]string
}

// CreateIndex is CREATE [UNIQUE] INDEX.
type CreateIndex struct {
	// Name is empty when the statement names no index.
	Name    string
	Table   ObjectName
	Columns []string
	// Include are the columns of INCLUDE (...).
	Include     []string
	Unique      bool
	IfNotExists bool
}

// SetVar is SET [SESSION|LOCAL] name {TO|=} value[, ...] (and SET TIME ZONE).
type SetVar struct {
	// Name is the lowercased variable name.
	Name string
	// Values are the raw values: identifiers lowercased, strings unquoted,
	// numbers as text. It is nil when Default is set.
	Values []string
	// Default is set by SET name TO DEFAULT.
	Default bool
	// Local is set by SET LOCAL.
	Local bool
}

// ResetVar is RESET name; Name is "all" for RESET ALL.
type ResetVar struct {
	Name string
}

// ShowVar is SHOW name; Name is lowercased, "all" for SHOW ALL.
type ShowVar struct {
	Name string
}

// ShowObjects is SHOW TABLES / MATERIALIZED VIEWS / SOURCES / VIEWS /
// SINKS / SUBSCRIPTIONS.
type ShowObjects struct {
	// Kind is "TABLES", "MATERIALIZED VIEWS", "SOURCES", "VIEWS", "SINKS"
	// or "SUBSCRIPTIONS".
	Kind string
}

// TxControl is BEGIN / START TRANSACTION, COMMIT / END, ROLLBACK / ABORT.
type TxControl struct {
	// Op is "BEGIN", "COMMIT" or "ROLLBACK".
	Op string
	// Modes are BEGIN's transaction modes.
	Modes TxModes
	// Start marks BEGIN spelled START TRANSACTION, its command tag.
	Start bool
}

// TxModes are the transaction modes of BEGIN, SET TRANSACTION and SET
// SESSION CHARACTERISTICS AS TRANSACTION; "" leaves a mode as it is.
type TxModes struct {
	// Isolation is the lowercased ISOLATION LEVEL, e.g. "serializable".
	Isolation string
	// Access is "read only" or "read write".
	Access string
}

// SetTransaction is SET TRANSACTION modes (the current transaction's) or,
// with Session, SET SESSION CHARACTERISTICS AS TRANSACTION modes (the
// defaults of the session's next transactions).
type SetTransaction struct {
	Modes   TxModes
	Session bool
}

// Flush is RisingWave's FLUSH: wait until all pending changes are visible.
type Flush struct{}

// Discard is DISCARD {ALL|PLANS|SEQUENCES|TEMP}.
type Discard struct {
	// What is the lowercased target, e.g. "all".
	What string
}

// Explain is EXPLAIN [ANALYZE] [VERBOSE] statement (also EXPLAIN (opt, ...)).
type Explain struct {
	Statement *Statement
	Analyze   bool
	Verbose   bool
}

// AlterParallelism is ALTER {MATERIALIZED VIEW|TABLE|SINK|SOURCE} name
// SET PARALLELISM {=|TO} {n|DEFAULT} [WITH (option = value, ...)].
type AlterParallelism struct {
	// Kind is "MATERIALIZED VIEW", "TABLE", "SINK" or "SOURCE".
	Kind        string
	Name        ObjectName
	Parallelism int
	// Default: DEFAULT instead of a number (Parallelism is 0).
	Default bool
	// With holds the WITH options (strategy, step, wait), keys lowercased.
	With map[string]string
}

// AlterRename is ALTER {TABLE|VIEW|MATERIALIZED VIEW|SOURCE|INDEX} [IF
// EXISTS] name RENAME TO new_name.
type AlterRename struct {
	Kind     string
	Name     ObjectName
	NewName  string
	IfExists bool
}

// AlterRenameColumn is ALTER {TABLE|VIEW|MATERIALIZED VIEW|SOURCE} name
// RENAME [COLUMN] column TO new_name.
type AlterRenameColumn struct {
	Kind    string
	Name    ObjectName
	Column  string
	NewName string
}

// AlterColumns is ALTER TABLE [IF EXISTS] name with ADD COLUMN and DROP
// COLUMN actions, applied in order.
type AlterColumns struct {
	Name     ObjectName
	IfExists bool
	Actions  []ColumnAction
}

// ColumnAction is one action of AlterColumns: Add a column (IF NOT EXISTS)
// or Drop the column named so (IF EXISTS).
type ColumnAction struct {
	Add         *ColumnDef
	IfNotExists bool
	Drop        string
	IfExists    bool
}

// Comment is COMMENT ON kind name IS 'text' (Text "" for IS NULL or
// ”), Kind being TABLE, VIEW, MATERIALIZED VIEW, SOURCE or COLUMN (then
// Name is the relation, Column its column).
type Comment struct {
	Kind   string
	Name   ObjectName
	Column string
	Text   string
}

// ShowCreate is SHOW CREATE {TABLE|VIEW|MATERIALIZED VIEW|SOURCE} name.
type ShowCreate struct {
	Kind string
	Name ObjectName
}

// AlterSystem is ALTER SYSTEM SET name {=|TO} value: a setting of the whole
// cluster, kept in the catalog.
type AlterSystem struct {
	Set *SetVar
}

// RemoveNode is ALTER SYSTEM REMOVE NODE 'id' [FORCE]: FORCE removes a
// node lost for good, whose work restores from shared storage.
type RemoveNode struct {
	Node  string
	Force bool
}

// Rebalance is ALTER SYSTEM REBALANCE [WITH (...)], or, with Drain set,
// ALTER SYSTEM DRAIN NODE 'id' [WITH (...)]: the rescale options of
// ALTER ... SET PARALLELISM (strategy, step, cache, wait) apply.
type Rebalance struct {
	Drain string
	With  map[string]string
}
