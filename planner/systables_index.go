package planner

import (
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/types"
)

// Indexes in the catalogs: a table's primary key is a unique index named
// <table>_pkey with its constraint, as in PostgreSQL, and each CREATE
// INDEX an index (recorded, not used for reads yet). pg_class, pg_index,
// pg_constraint, pg_indexes and information_schema list them, so that
// psql's \d and JDBC's getPrimaryKeys and getIndexInfo find them.

// relIndex is an index of a table as the catalogs show it.
type relIndex struct {
	oid     uint32
	name    string
	attnums []int // 1-based columns: the key's, then the included ones
	nkey    int   // the number of key columns
	unique  bool
	primary bool
}

// indexOIDBase puts the OIDs of indexes and constraints, derived from
// their table's catalog id (64 per table: indexes from 0, the primary key
// constraint 63), above every catalog id.
const indexOIDBase = 1 << 30

// pkeyConstraintOID is the OID of table t's primary key constraint.
func pkeyConstraintOID(t *meta.Table) uint32 { return indexOIDBase + t.ID*64 + 63 }

// primaryKey returns the index of table t's primary key, if it has one.
func primaryKey(t *meta.Table) (relIndex, bool) {
	if t.Kind != meta.KindTable || t.HiddenRowID || len(t.PK) == 0 {
		return relIndex{}, false
	}
	ix := relIndex{oid: indexOIDBase + t.ID*64, name: t.Name + "_pkey", nkey: len(t.PK), unique: true, primary: true}
	for _, c := range t.PK {
		ix.attnums = append(ix.attnums, c+1)
	}
	return ix, true
}

// tableIndexes returns the indexes of a table: its primary key's first.
func tableIndexes(t *meta.Table) []relIndex {
	if t.Kind != meta.KindTable {
		return nil
	}
	var out []relIndex
	if ix, ok := primaryKey(t); ok {
		out = append(out, ix)
	}
	for i, idx := range t.Indexes {
		if i+1 >= 63 {
			break
		}
		ix := relIndex{oid: indexOIDBase + t.ID*64 + uint32(i+1), name: idx.Name, nkey: len(idx.Columns), unique: idx.Unique}
		for _, name := range idx.AllColumns() {
			ix.attnums = append(ix.attnums, t.ColumnIndex(name)+1)
		}
		out = append(out, ix)
	}
	return out
}

// columnNames are the names of an index's columns.
func (ix relIndex) columnNames(t *meta.Table) []string {
	names := make([]string, len(ix.attnums))
	for i, a := range ix.attnums {
		names[i] = expr.QuoteIdent(t.Columns[a-1].Name)
	}
	return names
}

// def is pg_get_indexdef's text.
func (ix relIndex) def(t *meta.Table) string {
	unique, include := "", ""
	if ix.unique {
		unique = "UNIQUE "
	}
	names := ix.columnNames(t)
	if ix.nkey < len(names) {
		include = " INCLUDE (" + strings.Join(names[ix.nkey:], ", ") + ")"
	}
	return fmt.Sprintf("CREATE %sINDEX %s ON %s.%s USING btree (%s)%s", unique, expr.QuoteIdent(ix.name),
		expr.QuoteIdent(t.Schema), expr.QuoteIdent(t.Name), strings.Join(names[:ix.nkey], ", "), include)
}

// int2s is an int2[] of ns.
func int2s(ns []int) types.Datum {
	out := make([]types.Datum, len(ns))
	for i, n := range ns {
		out[i] = dInt(int64(n))
	}
	return types.NewArray(out)
}

// indexClassRows are pg_class's rows of every table's indexes.
func indexClassRows(cat *meta.Catalog) [][]types.Datum {
	var rows [][]types.Datum
	for _, t := range cat.Tables() {
		for _, ix := range tableIndexes(t) {
			rows = append(rows, []types.Datum{dOID(ix.oid), dStr(ix.name), dOID(namespaceOID(cat, t.Schema)), dOID(0), dOID(0),
				dOID(superuserOID), dOID(btreeAMOID), dOID(ix.oid), dOID(0), dInt(0),
				types.NewFloat(-1), dOID(0), dFalse, dFalse,
				dStr("p"), dStr("i"), dInt(int64(len(ix.attnums))), dInt(0), dFalse,
				dFalse, dFalse, dFalse, dFalse,
				dTrue, dStr("n"), dFalse, dNull, dNull, dNull})
		}
	}
	return rows
}

// btreeAMOID is the btree access method's OID (pg_am).
const btreeAMOID = 403

var indexCatalogTables = map[string]*sysTable{
	"pg_index": {
		cols: sysCols("indexrelid oid", "indrelid oid", "indnatts int2", "indnkeyatts int2", "indisunique bool",
			"indisprimary bool", "indisexclusion bool", "indimmediate bool", "indisclustered bool",
			"indisvalid bool", "indisready bool", "indislive bool", "indisreplident bool", "indnullsnotdistinct bool", "indkey int2[]",
			"indcollation oid[]", "indclass oid[]", "indoption int2[]", "indexprs text", "indpred text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range cat.Tables() {
				for _, ix := range tableIndexes(t) {
					rows = append(rows, []types.Datum{dOID(ix.oid), dOID(t.ID), dInt(int64(len(ix.attnums))), dInt(int64(ix.nkey)), dBool(ix.unique),
						dBool(ix.primary), dFalse, dTrue, dFalse,
						dTrue, dTrue, dTrue, dFalse, dFalse, int2s(ix.attnums),
						dNull, dNull, int2s(make([]int, ix.nkey)), dNull, dNull})
				}
			}
			return rows
		},
	},
	"pg_constraint": {
		cols: sysCols("oid oid", "conname name", "connamespace oid", "contype text", "condeferrable bool",
			"condeferred bool", "convalidated bool", "conrelid oid", "contypid oid", "conindid oid",
			"conparentid oid", "confrelid oid", "conislocal bool", "coninhcount int4", "connoinherit bool",
			"conkey int2[]", "confkey int2[]", "confupdtype text", "confdeltype text", "confmatchtype text", "conbin text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range cat.Tables() {
				if ix, ok := primaryKey(t); ok {
					rows = append(rows, []types.Datum{dOID(pkeyConstraintOID(t)), dStr(ix.name), dOID(namespaceOID(cat, t.Schema)), dStr("p"), dFalse,
						dFalse, dTrue, dOID(t.ID), dOID(0), dOID(ix.oid),
						dOID(0), dOID(0), dTrue, dInt(0), dTrue,
						int2s(ix.attnums), dNull, dStr(" "), dStr(" "), dStr(" "), dNull})
				}
			}
			return rows
		},
	},
	"pg_indexes": {
		cols: sysCols("schemaname name", "tablename name", "indexname name", "tablespace name", "indexdef text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range cat.Tables() {
				for _, ix := range tableIndexes(t) {
					rows = append(rows, []types.Datum{dStr(t.Schema), dStr(t.Name), dStr(ix.name), dNull, dStr(ix.def(t))})
				}
			}
			return rows
		},
	},
}

// informationSchemaConstraints are information_schema's views of the
// primary keys.
var informationSchemaConstraints = map[string]*sysTable{
	"table_constraints": {
		cols: sysCols("constraint_catalog name", "constraint_schema name", "constraint_name name", "table_catalog name",
			"table_schema name", "table_name name", "constraint_type text", "is_deferrable text", "initially_deferred text",
			"enforced text", "nulls_distinct text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range cat.Tables() {
				if ix, ok := primaryKey(t); ok {
					rows = append(rows, []types.Datum{dStr(databaseName), dStr(t.Schema), dStr(ix.name), dStr(databaseName),
						dStr(t.Schema), dStr(t.Name), dStr("PRIMARY KEY"), dStr("NO"), dStr("NO"), dStr("YES"), dNull})
				}
			}
			return rows
		},
	},
	"key_column_usage": {
		cols: sysCols("constraint_catalog name", "constraint_schema name", "constraint_name name", "table_catalog name",
			"table_schema name", "table_name name", "column_name name", "ordinal_position int4", "position_in_unique_constraint int4"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range cat.Tables() {
				ix, _ := primaryKey(t)
				for i, a := range ix.attnums {
					rows = append(rows, []types.Datum{dStr(databaseName), dStr(t.Schema), dStr(ix.name), dStr(databaseName),
						dStr(t.Schema), dStr(t.Name), dStr(t.Columns[a-1].Name), dInt(int64(i + 1)), dNull})
				}
			}
			return rows
		},
	},
}
