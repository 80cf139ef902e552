package planner

import (
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/types"
)

// Views and schemas in the catalogs: pg_views lists views, pg_matviews
// materialized views, with their queries; information_schema has views
// and schemata.

// viewDef is a view's query as pg_get_viewdef prints it.
func viewDef(t *meta.Table) string { return " " + t.ViewSQL + ";" }

var viewCatalogTables = map[string]*sysTable{
	"pg_views": {
		cols: sysCols("schemaname name", "viewname name", "viewowner name", "definition text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range cat.Tables() {
				if t.Kind == meta.KindView {
					rows = append(rows, []types.Datum{dStr(t.Schema), dStr(t.Name), dStr(cat.RoleName(t.OwnerID())), dStr(viewDef(t))})
				}
			}
			return rows
		},
	},
	"pg_matviews": {
		cols: sysCols("schemaname name", "matviewname name", "matviewowner name", "tablespace name", "hasindexes bool",
			"ispopulated bool", "definition text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range cat.Tables() {
				if t.Kind == meta.KindMaterializedView {
					rows = append(rows, []types.Datum{dStr(t.Schema), dStr(t.Name), dStr(cat.RoleName(t.OwnerID())), dNull, dFalse, dTrue, dStr(viewDef(t))})
				}
			}
			return rows
		},
	},
}

var informationSchemaViews = map[string]*sysTable{
	"views": {
		cols: sysCols("table_catalog name", "table_schema name", "table_name name", "view_definition text",
			"check_option text", "is_updatable text", "is_insertable_into text", "is_trigger_updatable text",
			"is_trigger_deletable text", "is_trigger_insertable_into text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range cat.Tables() {
				if t.Kind == meta.KindView {
					rows = append(rows, []types.Datum{dStr(databaseName), dStr(t.Schema), dStr(t.Name), dStr(viewDef(t)),
						dStr("NONE"), dStr("NO"), dStr("NO"), dStr("NO"), dStr("NO"), dStr("NO")})
				}
			}
			return rows
		},
	},
	"schemata": {
		cols: sysCols("catalog_name name", "schema_name name", "schema_owner name", "default_character_set_catalog name",
			"default_character_set_schema name", "default_character_set_name name", "sql_path text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			names := []string{pgCatalogSchema, meta.DefaultSchema, informationSchemaSchema, streamdbCatalogSchema}
			for _, s := range cat.Schemas() {
				names = append(names, s.Name)
			}
			for _, s := range names {
				owner := uint32(meta.BootstrapRoleID)
				if rec, ok := cat.SchemaRecord(s); ok {
					owner = rec.OwnerID()
				}
				rows = append(rows, []types.Datum{dStr(databaseName), dStr(s), dStr(cat.RoleName(owner)), dNull, dNull, dNull, dNull})
			}
			return rows
		},
	},
}
