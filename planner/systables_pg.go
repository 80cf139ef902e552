package planner

import (
	"iter"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/types"
)

// pgCatalogTables are the pg_catalog relations streamdb provides: the
// columns clients (psql's describe commands above all) read, with "char"
// columns as text, pg_node_tree ones as text, and access privileges
// (aclitem[]) as always-NULL text[].
var pgCatalogTables = map[string]*sysTable{
	"pg_stat_activity":  pgStatActivity,
	"pg_cursors":        pgCursors,
	"pg_settings":       pgSettings,
	"pg_timezone_names": pgTimezoneNames,
	"pg_namespace": {
		cols: sysCols("oid oid", "nspname name", "nspowner oid", "nspacl text[]"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			rows := [][]types.Datum{
				{dOID(pgCatalogOID), dStr(pgCatalogSchema), dOID(superuserOID), dNull},
				{dOID(informationSchemaOID), dStr(informationSchemaSchema), dOID(superuserOID), dNull},
				{dOID(streamdbCatalogOID), dStr(streamdbCatalogSchema), dOID(superuserOID), dNull},
			}
			public, _ := cat.SchemaRecord(meta.DefaultSchema)
			for _, s := range append([]*meta.Schema{public}, cat.Schemas()...) {
				rows = append(rows, []types.Datum{dOID(s.ID), dStr(s.Name), dOID(s.OwnerID()), dACL(cat.Items(s.ACL, s.OwnerID(), meta.KindSchema))})
			}
			return rows
		},
	},
	"pg_class": {
		cols: sysCols("oid oid", "relname name", "relnamespace oid", "reltype oid", "reloftype oid",
			"relowner oid", "relam oid", "relfilenode oid", "reltablespace oid", "relpages int4",
			"reltuples float4", "reltoastrelid oid", "relhasindex bool", "relisshared bool",
			"relpersistence text", "relkind text", "relnatts int2", "relchecks int2", "relhasrules bool",
			"relhastriggers bool", "relhassubclass bool", "relrowsecurity bool", "relforcerowsecurity bool",
			"relispopulated bool", "relreplident text", "relispartition bool", "relacl text[]", "reloptions text[]",
			"relpartbound text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range relations(cat) {
				am := dOID(heapAMOID)
				if t.Kind == meta.KindView || t.Kind == meta.KindSource || t.Kind == meta.KindSequence {
					am = dOID(0)
				}
				rows = append(rows, []types.Datum{dOID(t.ID), dStr(t.Name), dOID(namespaceOID(cat, t.Schema)), dOID(0), dOID(0),
					dOID(t.OwnerID()), am, dOID(t.ID), dOID(0), dInt(0),
					types.NewFloat(-1), dOID(0), dBool(len(tableIndexes(t)) > 0), dFalse,
					dStr("p"), dStr(relkind(t.Kind)), dInt(int64(relnatts(t))), dInt(0), dBool(t.Kind == meta.KindView),
					dFalse, dFalse, dFalse, dFalse,
					dTrue, dStr("d"), dFalse, dACL(cat.Items(t.ACL, t.OwnerID(), t.Kind)), dNull, dNull})
			}
			return append(rows, indexClassRows(cat)...)
		},
	},
	"pg_attribute": {
		cols: sysCols("attrelid oid", "attname name", "atttypid oid", "attstattarget int4", "attlen int2",
			"attnum int2", "attndims int4", "atttypmod int4", "attbyval bool", "attalign text", "attstorage text",
			"attnotnull bool", "atthasdef bool", "atthasmissing bool", "attidentity text", "attgenerated text",
			"attisdropped bool", "attislocal bool", "attinhcount int4", "attcollation oid", "attacl text[]", "attoptions text[]",
			"attcompression text", "attfdwoptions text[]"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			attribute := func(rel uint32, num int, c meta.Column, notNull, hasDef bool) []types.Datum {
				identity := ""
				if c.Identity != 0 {
					identity = string(c.Identity)
				}
				coll := dOID(0)
				if c.Type.IsString() {
					coll = dOID(defaultCollationOID)
				}
				return []types.Datum{dOID(rel), dStr(c.Name), dType(c.Type), dInt(-1), dInt(int64(c.Type.Size())),
					dInt(int64(num)), dInt(attndims(c.Type)), dInt(int64(c.Type.WireMod())), dBool(c.Type.Size() > 0), dStr("i"), dStr(attstorage(c.Type)),
					dBool(notNull), dBool(hasDef), dFalse, dStr(identity), dStr(""),
					dFalse, dTrue, dInt(0), coll, dNull, dNull, dStr(""), dNull}
			}
			for _, t := range relations(cat) {
				for i, c := range userColumns(t) {
					rows = append(rows, attribute(t.ID, i+1, c, c.NotNull || isPKColumn(t, i), c.Default != ""))
				}
				// An index's columns are its own attributes.
				for _, ix := range tableIndexes(t) {
					for i, a := range ix.attnums {
						rows = append(rows, attribute(ix.oid, i+1, t.Columns[a-1], false, false))
					}
				}
			}
			return rows
		},
	},
	"pg_attrdef": {
		cols: sysCols("oid oid", "adrelid oid", "adnum int2", "adbin text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range relations(cat) {
				for i, c := range userColumns(t) {
					if c.Default != "" {
						rows = append(rows, []types.Datum{dOID(0), dOID(t.ID), dInt(int64(i + 1)), dStr(c.Default)})
					}
				}
			}
			return rows
		},
	},
	"pg_type": {
		cols: sysCols("oid oid", "typname name", "typnamespace oid", "typowner oid", "typlen int2", "typbyval bool",
			"typtype text", "typcategory text", "typisdefined bool", "typrelid oid", "typelem oid", "typarray oid",
			"typnotnull bool", "typbasetype oid", "typtypmod int4", "typcollation oid", "typdefault text", "typacl text[]"),
		rows: func(*meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, r := range typeRows {
				row := pgTypeRow(r.T, r.name, r.category)
				rows = append(rows, row)
				if at, err := types.ArrayOf(r.T); err == nil {
					row[typarrayCol] = dType(at)
					arr := pgTypeRow(at, "_"+r.name, "A")
					arr[typelemCol] = dType(r.T)
					rows = append(rows, arr)
				}
			}
			return rows
		},
	},
	"pg_collation": {
		cols: sysCols("oid oid", "collname name", "collnamespace oid", "collowner oid", "collprovider text", "collencoding int4",
			"collisdeterministic bool", "collcollate text", "collctype text", "colliculocale text", "collversion text"),
		rows: func(*meta.Catalog) [][]types.Datum {
			return [][]types.Datum{
				{dOID(defaultCollationOID), dStr("default"), dOID(pgCatalogOID), dOID(superuserOID), dStr("d"), dInt(-1), dTrue, dNull, dNull, dNull, dNull},
				{dOID(950), dStr("C"), dOID(pgCatalogOID), dOID(superuserOID), dStr("c"), dInt(-1), dTrue, dStr("C"), dStr("C"), dNull, dNull},
			}
		},
	},
	"pg_am": {
		cols: sysCols("oid oid", "amname name", "amhandler oid", "amtype text"),
		rows: func(*meta.Catalog) [][]types.Datum {
			return [][]types.Datum{
				{dOID(heapAMOID), dStr("heap"), dOID(0), dStr("t")},
				{dOID(403), dStr("btree"), dOID(0), dStr("i")},
			}
		},
	},
	"pg_database": {
		cols: sysCols("oid oid", "datname name", "datdba oid", "encoding int4", "datlocprovider text",
			"datistemplate bool", "datallowconn bool", "datconnlimit int4", "dattablespace oid",
			"datcollate text", "datctype text", "daticulocale text", "datacl text[]"),
		rows: func(*meta.Catalog) [][]types.Datum {
			return [][]types.Datum{{dOID(databaseOID), dStr(databaseName), dOID(superuserOID), dInt(utf8Encoding), dStr("c"),
				dFalse, dTrue, dInt(-1), dOID(defaultTablespaceOID), dStr("C"), dStr("C"), dNull, dNull}}
		},
	},
	"pg_inherits": {
		cols: sysCols("inhrelid oid", "inhparent oid", "inhseqno int4", "inhdetachpending bool"),
		rows: noRows,
	},
	"pg_description": {
		cols: sysCols("objoid oid", "classoid oid", "objsubid int4", "description text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range relations(cat) {
				if t.Comment != "" {
					rows = append(rows, []types.Datum{dOID(t.ID), dOID(sysTableOIDs["pg_class"]), dInt(0), dStr(t.Comment)})
				}
				for i, c := range t.Columns {
					if c.Comment != "" {
						rows = append(rows, []types.Datum{dOID(t.ID), dOID(sysTableOIDs["pg_class"]), dInt(int64(i + 1)), dStr(c.Comment)})
					}
				}
			}
			return rows
		},
	},
}

// The database's identity in pg_database; the encoding is UTF8.
const (
	databaseOID  = 16384
	databaseName = "streamdb"
	utf8Encoding = 6
)

// attndims is pg_attribute.attndims: 1 for an array column, else 0.
func attndims(t types.T) int64 {
	if t.Family == types.Array {
		return 1
	}
	return 0
}

// attstorage is pg_attribute.attstorage, PostgreSQL's storage strategy of
// a type: plain for fixed-size ones, main for numeric, else extended.
func attstorage(t types.T) string {
	switch {
	case t.Size() > 0:
		return "p"
	case t.Family == types.Numeric:
		return "m"
	}
	return "x"
}

func noRows(*meta.Catalog) [][]types.Datum { return nil }

// Columns of pg_type set apart from pgTypeRow.
const (
	typelemCol  = 10
	typarrayCol = 11
)

// pgTypeRow is pg_type's row of a base or array type, without its element
// and array types.
func pgTypeRow(t types.T, name, category string) []types.Datum {
	coll := dOID(0)
	if t.IsString() {
		coll = dOID(defaultCollationOID)
	}
	return []types.Datum{dType(t), dStr(name), dOID(pgCatalogOID), dOID(superuserOID), dInt(int64(t.Size())), dBool(t.Size() > 0),
		dStr("b"), dStr(category), dTrue, dOID(0), dOID(0), dOID(0),
		dFalse, dOID(0), dInt(-1), coll, dNull, dNull}
}

// typeRows are pg_type's rows: each supported type's pg_type name and
// category (each has an array type too, but unknown).
var typeRows = []struct {
	T        types.T
	name     string
	category string
}{
	{types.TBool, "bool", "B"}, {types.TBytea, "bytea", "U"}, {types.TName, "name", "S"},
	{types.TInt8, "int8", "N"}, {types.TInt2, "int2", "N"}, {types.TInt4, "int4", "N"},
	{types.TText, "text", "S"}, {types.TOid, "oid", "N"}, {types.TFloat4, "float4", "N"},
	{types.TFloat8, "float8", "N"}, {types.TUnknown, "unknown", "X"}, {types.TBpchar, "bpchar", "S"},
	{types.TVarchar, "varchar", "S"}, {types.TDate, "date", "D"}, {types.TTime, "time", "D"},
	{types.TTimestamp, "timestamp", "D"}, {types.TTimestampTZ, "timestamptz", "D"},
	{types.TInterval, "interval", "T"}, {types.TNumeric, "numeric", "N"}, {types.TJsonb, "jsonb", "U"},
}

// namespaceOID is the OID of a schema in pg_namespace.
// dACL is an aclitem[] as text[] (NULL for the defaults).
func dACL(items []string) types.Datum {
	if items == nil {
		return dNull
	}
	elems := make([]types.Datum, len(items))
	for i, it := range items {
		elems[i] = dStr(it)
	}
	return types.NewArray(elems)
}

func namespaceOID(cat *meta.Catalog, schema string) uint32 {
	switch schema {
	case pgCatalogSchema:
		return pgCatalogOID
	case informationSchemaSchema:
		return informationSchemaOID
	}
	if s, ok := cat.Schema(schema); ok {
		return s.ID
	}
	return publicOID
}

// relkind is pg_class.relkind for an object kind; a source is a foreign
// table ('f'), so that psql lists and describes it.
func relkind(k meta.ObjectKind) string {
	switch k {
	case meta.KindSource:
		return "f"
	case meta.KindView:
		return "v"
	case meta.KindMaterializedView:
		return "m"
	case meta.KindIndex:
		return "i"
	case meta.KindSequence:
		return "S"
	}
	return "r"
}

// userColumns yields the columns clients see (not a hidden row id, not a
// dropped column) with their index in t.Columns: attnum - 1.
func userColumns(t *meta.Table) iter.Seq2[int, meta.Column] {
	return func(yield func(int, meta.Column) bool) {
		for i, c := range t.Columns {
			if !c.Hidden && !yield(i, c) {
				return
			}
		}
	}
}

// relnatts is pg_class.relnatts: the highest attnum of t's columns.
func relnatts(t *meta.Table) int {
	n := 0
	for i := range userColumns(t) {
		n = i + 1
	}
	return n
}

func isPKColumn(t *meta.Table, i int) bool {
	if t.HiddenRowID {
		return false
	}
	for _, k := range t.PK {
		if k == i {
			return true
		}
	}
	return false
}
