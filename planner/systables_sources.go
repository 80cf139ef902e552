package planner

import (
	"maps"
	"slices"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/types"
)

// sourceCatalogTables describe sources as PostgreSQL describes foreign
// tables, which is what psql's \d, \det and \des show: each source has a
// foreign server named after its connector, of the wrapper
// streamdb_source, and its WITH options as the table's options.
var sourceCatalogTables = map[string]*sysTable{
	"pg_foreign_server": {cols: sysCols("oid oid", "srvname name", "srvowner oid", "srvfdw oid", "srvtype text", "srvversion text", "srvacl text[]", "srvoptions text[]"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range cat.Tables() {
				if t.Kind == meta.KindSource {
					rows = append(rows, []types.Datum{dOID(t.ID), dStr(t.Connector()), dOID(superuserOID), dOID(sourceFDWOID), dNull, dNull, dNull, dNull})
				}
			}
			return rows
		}},
	"pg_foreign_table": {cols: sysCols("ftrelid oid", "ftserver oid", "ftoptions text[]"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range cat.Tables() {
				if t.Kind == meta.KindSource {
					rows = append(rows, []types.Datum{dOID(t.ID), dOID(t.ID), sourceOptions(t)})
				}
			}
			return rows
		}},
	"pg_foreign_data_wrapper": {cols: sysCols("oid oid", "fdwname name", "fdwowner oid", "fdwhandler oid", "fdwvalidator oid", "fdwacl text[]", "fdwoptions text[]"),
		rows: func(*meta.Catalog) [][]types.Datum {
			return [][]types.Datum{{dOID(sourceFDWOID), dStr("streamdb_source"), dOID(superuserOID), dOID(0), dOID(0), dNull, dNull}}
		}},
}

// sourceFDWOID is the OID of the foreign-data wrapper of sources.
const sourceFDWOID = 16385

// sourceOptions is a source's WITH options but its connector, as
// PostgreSQL keeps a foreign table's options: a text[] of key=value.
func sourceOptions(t *meta.Table) types.Datum {
	keys := slices.Sorted(maps.Keys(t.Options))
	var opts []types.Datum
	for _, k := range keys {
		if k != meta.ConnectorOption {
			opts = append(opts, dStr(k+"="+meta.ShownOption(k, t.Options[k])))
		}
	}
	return types.NewArray(opts)
}
