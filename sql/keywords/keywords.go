// Package keywords holds PostgreSQL 15's keywords that are not
// unreserved, by category, as pg_get_keywords reports them. The SQL
// front's reserved words and the identifiers quote_ident quotes come from
// here.
package keywords

// Category is a keyword's category, named by pg_get_keywords' catcode.
type Category byte

// The categories; every other word is an unreserved keyword or none.
const (
	Unreserved   Category = 'U'
	ColName      Category = 'C' // not a function or type name
	TypeFuncName Category = 'T' // may be a function or type name
	Reserved     Category = 'R'
)

// Of returns the category of the lowercase word (Unreserved also for a
// word that is no keyword).
func Of(word string) Category {
	if c, ok := categories[word]; ok {
		return c
	}
	return Unreserved
}

// Words returns the keywords of category c other than Unreserved.
func Words(c Category) []string {
	var ws []string
	for w, wc := range categories {
		if wc == c {
			ws = append(ws, w)
		}
	}
	return ws
}

var categories = func() map[string]Category {
	m := map[string]Category{}
	for c, words := range map[Category][]string{
		Reserved: {
			"all", "analyse", "analyze", "and", "any", "array", "as", "asc",
			"asymmetric", "both", "case", "cast", "check", "collate", "column",
			"constraint", "create", "current_catalog", "current_date", "current_role",
			"current_time", "current_timestamp", "current_user", "default",
			"deferrable", "desc", "distinct", "do", "else", "end", "except", "false",
			"fetch", "for", "foreign", "from", "grant", "group", "having", "in",
			"initially", "intersect", "into", "lateral", "leading", "limit",
			"localtime", "localtimestamp", "not", "null", "offset", "on", "only", "or",
			"order", "placing", "primary", "references", "returning", "select",
			"session_user", "some", "symmetric", "table", "then", "to", "trailing",
			"true", "union", "unique", "user", "using", "variadic", "when", "where",
			"window", "with",
		},
		ColName: {
			"between", "bigint", "bit", "boolean", "char", "character", "coalesce",
			"dec", "decimal", "exists", "extract", "float", "greatest", "grouping",
			"inout", "int", "integer", "interval", "least", "national", "nchar", "none",
			"normalize", "nullif", "numeric", "out", "overlay", "position", "precision",
			"real", "row", "setof", "smallint", "substring", "time", "timestamp",
			"treat", "trim", "values", "varchar", "xmlattributes", "xmlconcat",
			"xmlelement", "xmlexists", "xmlforest", "xmlnamespaces", "xmlparse",
			"xmlpi", "xmlroot", "xmlserialize", "xmltable",
		},
		TypeFuncName: {
			"authorization", "binary", "collation", "concurrently", "cross",
			"current_schema", "freeze", "full", "ilike", "inner", "is", "isnull",
			"join", "left", "like", "natural", "notnull", "outer", "overlaps", "right",
			"similar", "tablesample", "verbose",
		},
	} {
		for _, w := range words {
			m[w] = c
		}
	}
	return m
}()
