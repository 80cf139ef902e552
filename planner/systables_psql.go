package planner

import (
	"maps"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/types"
)

// emptyCatalogTables are pg_catalog relations of objects streamdb does not
// have (row-level security policies, extended statistics, publications,
// rules, extensions, role memberships, operator classes,
// user mappings, text search, large objects, subscriptions, event
// triggers, enums; casts, operators and languages are built in and not
// listed): psql's describe commands read them, and find them empty.
var emptyCatalogTables = map[string]*sysTable{
	"pg_policy": {cols: sysCols("oid oid", "polname name", "polrelid oid", "polcmd text", "polpermissive bool",
		"polroles oid[]", "polqual text", "polwithcheck text")},
	"pg_statistic_ext": {cols: sysCols("oid oid", "stxrelid oid", "stxname name", "stxnamespace oid", "stxowner oid",
		"stxstattarget int4", "stxkeys int2[]", "stxkind text[]")},
	"pg_publication": {cols: sysCols("oid oid", "pubname name", "pubowner oid", "puballtables bool", "pubinsert bool",
		"pubupdate bool", "pubdelete bool", "pubtruncate bool", "pubviaroot bool")},
	"pg_publication_namespace": {cols: sysCols("oid oid", "pnpubid oid", "pnnspid oid")},
	"pg_publication_rel":       {cols: sysCols("oid oid", "prpubid oid", "prrelid oid", "prqual text", "prattrs int2[]")},
	"pg_rewrite": {cols: sysCols("oid oid", "rulename name", "ev_class oid", "ev_type text", "ev_enabled text",
		"is_instead bool", "ev_qual text", "ev_action text")},
	"pg_extension": {cols: sysCols("oid oid", "extname name", "extowner oid", "extnamespace oid",
		"extrelocatable bool", "extversion text", "extconfig oid[]", "extcondition text[]")},
	"pg_auth_members":         {cols: sysCols("roleid oid", "member oid", "grantor oid", "admin_option bool")},
	"pg_opclass":              {cols: sysCols("oid oid", "opcmethod oid", "opcname name", "opcnamespace oid", "opcowner oid", "opcfamily oid", "opcintype oid", "opcdefault bool", "opckeytype oid")},
	"pg_opfamily":             {cols: sysCols("oid oid", "opfmethod oid", "opfname name", "opfnamespace oid", "opfowner oid")},
	"pg_amop":                 {cols: sysCols("oid oid", "amopfamily oid", "amoplefttype oid", "amoprighttype oid", "amopstrategy int2", "amoppurpose text", "amopopr oid", "amopmethod oid", "amopsortfamily oid")},
	"pg_amproc":               {cols: sysCols("oid oid", "amprocfamily oid", "amproclefttype oid", "amprocrighttype oid", "amprocnum int2", "amproc oid")},
	"pg_conversion":           {cols: sysCols("oid oid", "conname name", "connamespace oid", "conowner oid", "conforencoding int4", "contoencoding int4", "conproc oid", "condefault bool")},
	"pg_default_acl":          {cols: sysCols("oid oid", "defaclrole oid", "defaclnamespace oid", "defaclobjtype text", "defaclacl text[]")},
	"pg_user_mappings":        {cols: sysCols("umid oid", "srvid oid", "srvname name", "umuser oid", "usename name", "umoptions text[]")},
	"pg_ts_config":            {cols: sysCols("oid oid", "cfgname name", "cfgnamespace oid", "cfgowner oid", "cfgparser oid")},
	"pg_ts_dict":              {cols: sysCols("oid oid", "dictname name", "dictnamespace oid", "dictowner oid", "dicttemplate oid", "dictinitoption text")},
	"pg_ts_parser":            {cols: sysCols("oid oid", "prsname name", "prsnamespace oid", "prsstart oid", "prstoken oid", "prsend oid", "prsheadline oid", "prslextype oid")},
	"pg_ts_template":          {cols: sysCols("oid oid", "tmplname name", "tmplnamespace oid", "tmplinit oid", "tmpllexize oid")},
	"pg_largeobject_metadata": {cols: sysCols("oid oid", "lomowner oid", "lomacl text[]")},
	"pg_db_role_setting":      {cols: sysCols("setdatabase oid", "setrole oid", "setconfig text[]")},
	"pg_subscription":         {cols: sysCols("oid oid", "subdbid oid", "subskiplsn text", "subname name", "subowner oid", "subenabled bool", "subbinary bool", "substream bool", "subtwophasestate text", "subdisableonerr bool", "subconninfo text", "subslotname name", "subsynccommit text", "subpublications text[]")},
	"pg_event_trigger":        {cols: sysCols("oid oid", "evtname name", "evtevent name", "evtowner oid", "evtfoid oid", "evtenabled text", "evttags text[]")},
	"pg_enum":                 {cols: sysCols("oid oid", "enumtypid oid", "enumsortorder float4", "enumlabel name")},
	"pg_cast":                 {cols: sysCols("oid oid", "castsource oid", "casttarget oid", "castfunc oid", "castcontext text", "castmethod text")},
	"pg_operator":             {cols: sysCols("oid oid", "oprname name", "oprnamespace oid", "oprowner oid", "oprkind text", "oprcanmerge bool", "oprcanhash bool", "oprleft oid", "oprright oid", "oprresult oid", "oprcom oid", "oprnegate oid", "oprcode oid", "oprrest oid", "oprjoin oid")},
	"pg_language":             {cols: sysCols("oid oid", "lanname name", "lanowner oid", "lanispl bool", "lanpltrusted bool", "lanplcallfoid oid", "laninline oid", "lanvalidator oid", "lanacl text[]")},
	"pg_trigger": {cols: sysCols("oid oid", "tgrelid oid", "tgparentid oid", "tgname name", "tgfoid oid", "tgtype int2",
		"tgenabled text", "tgisinternal bool", "tgconstrrelid oid", "tgconstrindid oid", "tgconstraint oid",
		"tgdeferrable bool", "tginitdeferred bool", "tgnargs int2", "tgattr int2[]", "tgargs bytea", "tgqual text",
		"tgoldtable name", "tgnewtable name")},
}

// The tablespace every relation lives in, as in PostgreSQL.
const defaultTablespaceOID = 1663

// roleCatalogTables describe the roles (CREATE ROLE/USER) and the
// tablespaces. A superuser has every privilege (CREATEROLE, CREATEDB,
// REPLICATION, BYPASSRLS); the others have none. Passwords show as
// ******** where set, as in pg_roles; pg_authid shows no verifier either:
// SQL never reads them.
var roleCatalogTables = map[string]*sysTable{
	"pg_roles": {
		cols: sysCols("rolname name", "rolsuper bool", "rolinherit bool", "rolcreaterole bool", "rolcreatedb bool",
			"rolcanlogin bool", "rolreplication bool", "rolconnlimit int4", "rolpassword text",
			"rolvaliduntil timestamptz", "rolbypassrls bool", "rolconfig text[]", "oid oid"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			return roleRows(cat, func(r *meta.Role, super types.Datum) []types.Datum {
				return []types.Datum{dStr(r.Name), super, dTrue, super, super, dBool(r.Login), super, dInt(-1), dStr("********"),
					dNull, super, dNull, dOID(r.ID)}
			})
		},
	},
	"pg_authid": {
		cols: sysCols("oid oid", "rolname name", "rolsuper bool", "rolinherit bool", "rolcreaterole bool", "rolcreatedb bool",
			"rolcanlogin bool", "rolreplication bool", "rolbypassrls bool", "rolconnlimit int4", "rolpassword text",
			"rolvaliduntil timestamptz"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			return roleRows(cat, func(r *meta.Role, super types.Datum) []types.Datum {
				return []types.Datum{dOID(r.ID), dStr(r.Name), super, dTrue, super, super, dBool(r.Login), super, super, dInt(-1), dNull, dNull}
			})
		},
	},
	"pg_user": {
		cols: sysCols("usename name", "usesysid oid", "usecreatedb bool", "usesuper bool", "userepl bool", "usebypassrls bool",
			"passwd text", "valuntil timestamptz", "useconfig text[]"),
		rows: func(cat *meta.Catalog) [][]types.Datum {
			return roleRows(cat, func(r *meta.Role, super types.Datum) []types.Datum {
				if !r.Login {
					return nil
				}
				return []types.Datum{dStr(r.Name), dOID(r.ID), super, super, super, super, dStr("********"), dNull, dNull}
			})
		},
	},
	// pg_proc lists the user functions (CREATE FUNCTION).
	"pg_proc": {cols: sysCols("oid oid", "proname name", "pronamespace oid", "proowner oid", "prolang oid",
		"procost float4", "prorows float4", "provariadic oid", "prokind text", "prosecdef bool", "proleakproof bool",
		"proisstrict bool", "proretset bool", "provolatile text", "proparallel text", "pronargs int2",
		"pronargdefaults int2", "prorettype oid", "proargtypes oid[]", "proallargtypes oid[]", "proargmodes text[]",
		"proargnames text[]", "prosrc text", "probin text", "proconfig text[]", "proacl text[]"),
		rows: functionRows},
	"pg_tablespace": {
		cols: sysCols("oid oid", "spcname name", "spcowner oid", "spcacl text[]", "spcoptions text[]"),
		rows: func(*meta.Catalog) [][]types.Datum {
			return [][]types.Datum{
				{dOID(defaultTablespaceOID), dStr("pg_default"), dOID(superuserOID), dNull, dNull},
				{dOID(1664), dStr("pg_global"), dOID(superuserOID), dNull, dNull},
			}
		},
	},
}

// roleRows returns row(r, r.Superuser) for each role, skipping nil rows.
func roleRows(cat *meta.Catalog, row func(r *meta.Role, super types.Datum) []types.Datum) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range cat.Roles() {
		if d := row(r, dBool(r.Superuser)); d != nil {
			rows = append(rows, d)
		}
	}
	return rows
}

func init() {
	for _, t := range emptyCatalogTables {
		t.rows = noRows
	}
	maps.Copy(pgCatalogTables, emptyCatalogTables)
	maps.Copy(pgCatalogTables, indexCatalogTables)
	maps.Copy(informationSchemaTables, informationSchemaConstraints)
	maps.Copy(pgCatalogTables, viewCatalogTables)
	maps.Copy(pgCatalogTables, sequenceCatalogTables)
	maps.Copy(informationSchemaTables, informationSchemaSequences)
	maps.Copy(pgCatalogTables, sourceCatalogTables)
	maps.Copy(informationSchemaTables, informationSchemaViews)
	maps.Copy(pgCatalogTables, roleCatalogTables)
	maps.Copy(streamdbCatalogTables, subscriptionTables)
}

// sysTableOIDs are PostgreSQL's OIDs of the pg_catalog relations that
// clients name as 'pg_catalog.pg_x'::regclass (pg_description's classoid).
var sysTableOIDs = map[string]uint32{
	"pg_tablespace": 1213, "pg_type": 1247, "pg_attribute": 1249, "pg_proc": 1255, "pg_class": 1259,
	"pg_auth_members": 1261, "pg_database": 1262, "pg_am": 2601, "pg_attrdef": 2604, "pg_constraint": 2606,
	"pg_description": 2609, "pg_index": 2610, "pg_inherits": 2611, "pg_namespace": 2615, "pg_rewrite": 2618,
	"pg_extension": 3079, "pg_policy": 3256, "pg_statistic_ext": 3381, "pg_collation": 3456,
	"pg_publication": 6104, "pg_publication_rel": 6106, "pg_publication_namespace": 6237,
	"pg_trigger": 2620, "pg_opclass": 2616, "pg_opfamily": 2753, "pg_operator": 2617, "pg_cast": 2605,
	"pg_language": 2612, "pg_enum": 3501, "pg_event_trigger": 3466, "pg_ts_config": 3602,
}
