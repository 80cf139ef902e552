package planner

import (
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/types"
)

// informationSchemaTables are the information_schema views streamdb
// provides. Materialized views are listed in tables with table_type
// 'MATERIALIZED VIEW' and sources with 'SOURCE' (PostgreSQL has neither;
// streamdb's tools need them).
var informationSchemaTables = map[string]*sysTable{
	"tables": {
		cols: sysCols("table_catalog name", "table_schema name", "table_name name", "table_type text",
			"is_insertable_into text", "is_typed text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range relations(cat) {
				typ, insertable := "BASE TABLE", "YES"
				switch t.Kind {
				case meta.KindView:
					typ, insertable = "VIEW", "NO"
				case meta.KindMaterializedView:
					typ, insertable = "MATERIALIZED VIEW", "NO"
				case meta.KindSource:
					typ, insertable = "SOURCE", "NO"
				}
				if t.Connector() != "" {
					insertable = "NO"
				}
				rows = append(rows, []types.Datum{dStr(databaseName), dStr(t.Schema), dStr(t.Name), dStr(typ), dStr(insertable), dStr("NO")})
			}
			return rows
		},
	},
	// table_privileges lists, per relation, its owner's privileges and
	// those granted (to every role's eyes, where PostgreSQL shows those
	// of the current user's roles).
	"table_privileges": {
		cols: sysCols("grantor name", "grantee name", "table_catalog name", "table_schema name", "table_name name",
			"privilege_type text", "is_grantable text", "with_hierarchy text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range relations(cat) {
				owner := cat.RoleName(t.OwnerID())
				add := func(grantor, grantee string, privs meta.Privilege, grantable bool) {
					for _, name := range privs.Names() {
						rows = append(rows, []types.Datum{dStr(grantor), dStr(grantee), dStr(databaseName), dStr(t.Schema), dStr(t.Name),
							dStr(name), dStr(yesNo(grantable)), dStr(yesNo(name == "SELECT"))})
					}
				}
				add(owner, owner, meta.Applicable(t.Kind), true)
				for _, g := range t.ACL {
					grantee, grantor := "PUBLIC", owner
					if g.Grantee != meta.Public {
						grantee = cat.RoleName(g.Grantee)
					}
					if g.Grantor != 0 {
						grantor = cat.RoleName(g.Grantor)
					}
					add(grantor, grantee, g.Privs, false)
				}
			}
			return rows
		},
	},
	"columns": {
		cols: sysCols("table_catalog name", "table_schema name", "table_name name", "column_name name",
			"ordinal_position int4", "column_default text", "is_nullable text", "data_type text",
			"character_maximum_length int4", "numeric_precision int4", "numeric_scale int4",
			"datetime_precision int4", "udt_catalog name", "udt_schema name", "udt_name name",
			"is_identity text", "identity_generation text"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			var rows [][]types.Datum
			for _, t := range relations(cat) {
				for i, c := range userColumns(t) {
					def := dNull
					if c.Default != "" {
						def = dStr(c.Default)
					}
					nullable := "YES"
					if c.NotNull || isPKColumn(t, i) {
						nullable = "NO"
					}
					charLen, prec, scale, dtPrec := typeFacets(c.Type)
					rows = append(rows, []types.Datum{dStr(databaseName), dStr(t.Schema), dStr(t.Name), dStr(c.Name),
						dInt(int64(i + 1)), def, dStr(nullable), dStr(dataType(c.Type)),
						charLen, prec, scale, dtPrec, dStr(databaseName), dStr(pgCatalogSchema), dStr(typeName(c.Type)),
						dStr(yesNo(c.Identity != 0)), identityGeneration(c)})
				}
			}
			return rows
		},
	},
}

// typeFacets are information_schema.columns' character_maximum_length,
// numeric_precision, numeric_scale and datetime_precision of a type.
func typeFacets(t types.T) (charLen, prec, scale, dtPrec types.Datum) {
	charLen, prec, scale, dtPrec = dNull, dNull, dNull, dNull
	switch t.Family {
	case types.Varchar, types.Bpchar:
		if t.Mod >= 0 {
			charLen = dInt(int64(t.Mod))
		}
	case types.Int2:
		prec, scale = dInt(16), dInt(0)
	case types.Int4:
		prec, scale = dInt(32), dInt(0)
	case types.Int8:
		prec, scale = dInt(64), dInt(0)
	case types.Float4:
		prec = dInt(24)
	case types.Float8:
		prec = dInt(53)
	case types.Numeric:
		if t.Mod >= 0 {
			prec, scale = dInt(int64(t.Mod>>16)), dInt(int64(t.Mod&0xffff))
		}
	case types.Date:
		dtPrec = dInt(0)
	case types.Time, types.Timestamp, types.TimestampTZ, types.Interval:
		dtPrec = dInt(6)
		if t.Mod >= 0 {
			dtPrec = dInt(int64(t.Mod))
		}
	}
	return charLen, prec, scale, dtPrec
}

// dataType is information_schema's data_type: the type's name without
// modifiers, or ARRAY.
func dataType(t types.T) string {
	if t.Family == types.Array {
		return "ARRAY"
	}
	return t.WithoutMod().String()
}

// typeName is a type's pg_type.typname (_elem for an array).
func typeName(t types.T) string {
	if t.Family == types.Array {
		return "_" + typeName(t.ElemType())
	}
	for _, r := range typeRows {
		if r.T.Family == t.Family {
			return r.name
		}
	}
	return t.String()
}
