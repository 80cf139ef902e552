package planner

import (
	"strings"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Namespace OIDs of the system catalogs, as in PostgreSQL (information_schema's
// varies between PostgreSQL installations).
const (
	pgCatalogOID         = 11
	publicOID            = 2200
	informationSchemaOID = 13000
	superuserOID         = 10
	heapAMOID            = 2
	defaultCollationOID  = 100
)

// Schema names of the virtual catalogs.
const (
	pgCatalogSchema         = meta.PgCatalogSchema
	informationSchemaSchema = meta.InformationSchemaSchema
)

// sysTable is a pg_catalog, information_schema or streamdb_catalog
// relation: its rows are computed when a query is bound, from the catalog
// snapshot (rows) or from the node's Status (status, streamdb_catalog's).
type sysTable struct {
	cols   []Column
	rows   func(cat *meta.Catalog) [][]types.Datum
	status func(s Status) ([][]types.Datum, error)
	// live, if set, gives the rows as expressions evaluated when the
	// statement runs (pg_sequences' last values).
	live func(cat *meta.Catalog) [][]expr.Expr
}

// sysCols parses column specs "name type" (type as types.ParseTypeName
// reads it).
func sysCols(specs ...string) []Column {
	cols := make([]Column, len(specs))
	for i, s := range specs {
		name, typ, _ := strings.Cut(s, " ")
		t, err := types.ParseTypeName(typ)
		if err != nil {
			panic("planner: system column " + s + ": " + err.Error())
		}
		cols[i] = Column{Name: name, T: t}
	}
	return cols
}

// lookupSysTable finds a system relation; an unqualified name finds
// pg_catalog's, as PostgreSQL's search path puts pg_catalog first.
// IsSystemRelation reports whether [schema.]name is one of the built-in
// relations (pg_catalog's, information_schema's, streamdb_catalog's),
// which everyone may read.
func IsSystemRelation(schema, name string) bool {
	_, ok := lookupSysTable(schema, name)
	return ok
}

func lookupSysTable(schema, name string) (*sysTable, bool) {
	switch schema {
	case "", pgCatalogSchema:
		t, ok := pgCatalogTables[name]
		return t, ok
	case informationSchemaSchema:
		t, ok := informationSchemaTables[name]
		return t, ok
	case streamdbCatalogSchema:
		t, ok := streamdbCatalogTables[name]
		return t, ok
	}
	return nil, false
}

// bindSysTable turns system relation name into constant rows under alias.
func (b *Binder) bindSysTable(t *sysTable, name, alias string) (Node, error) {
	cols := make([]Column, len(t.cols), len(t.cols)+1)
	for i, c := range t.cols {
		c.Table = alias
		cols[i] = c
	}
	// Every relation has the system column tableoid, not in *.
	cols = append(cols, Column{Name: "tableoid", T: types.TOid, Table: alias, Hidden: true})
	tableOID := dOID(sysTableOIDs[name])
	if t.live != nil {
		rows := t.live(b.cat)
		for i := range rows {
			rows[i] = append(rows[i], expr.NewConst(tableOID, types.TOid))
		}
		return &Values{Rows: rows, Cols: cols}, nil
	}
	var rows [][]types.Datum
	if t.status != nil {
		var err error
		if rows, err = b.statusRows(t, name); err != nil {
			return nil, err
		}
	} else {
		rows = t.rows(b.cat)
	}
	out := make([][]expr.Expr, len(rows))
	for i, r := range rows {
		out[i] = make([]expr.Expr, len(r), len(r)+1)
		for j, d := range r {
			out[i][j] = expr.NewConst(d, cols[j].T)
		}
		out[i] = append(out[i], expr.NewConst(tableOID, types.TOid))
	}
	return &Values{Rows: out, Cols: cols}, nil
}

// Datum shorthands for the row builders.
var (
	dTrue  = types.NewBool(true)
	dFalse = types.NewBool(false)
	dNull  = types.Null
)

func dInt(i int64) types.Datum    { return types.NewInt(i) }
func dStr(s string) types.Datum   { return types.NewString(s) }
func dBool(b bool) types.Datum    { return types.NewBool(b) }
func dOID(i uint32) types.Datum   { return types.NewInt(int64(i)) }
func dType(t types.T) types.Datum { return dOID(uint32(t.OID())) }

// oidAliasTypes are PostgreSQL's OID alias types that catalog queries cast
// to (c.reloftype::regtype); they bind as plain oid.
var oidAliasTypes = map[string]bool{"regtype": true, "regnamespace": true, "regproc": true, "regprocedure": true, "regrole": true, "regoper": true, "regoperator": true, "regcollation": true, "regconfig": true, "regdictionary": true}

// regtype resolves 'name'::regtype, a type name, to the type's OID.
func regtype(name string) (expr.Expr, error) {
	t, err := types.ParseTypeName(strings.ToLower(strings.TrimPrefix(name, "pg_catalog.")))
	if err != nil {
		return nil, pgerror.New(pgerror.CodeUndefinedObject, "type %q does not exist", name)
	}
	return expr.NewConst(types.NewInt(int64(t.OID())), types.TOid), nil
}

// regclass resolves 'name'::regclass, a relation name optionally
// schema-qualified, to the relation's OID (its catalog id, PostgreSQL's
// OID for a system catalog).
func (b *Binder) regclass(name string) (expr.Expr, error) {
	schema, rel, ok := strings.Cut(name, ".")
	if !ok {
		schema, rel = "", name
	}
	if oid, ok := sysTableOIDs[rel]; ok && (schema == "" || schema == pgCatalogSchema) {
		return expr.NewConst(types.NewInt(int64(oid)), types.TOid), nil
	}
	t, err := b.table(schema, rel)
	if err != nil {
		return nil, err
	}
	return expr.NewConst(types.NewInt(int64(t.ID)), types.TOid), nil
}
