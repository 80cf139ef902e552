package parser

// reserved holds PostgreSQL's reserved keywords, its type/function-name
// keywords and the few column-name keywords that only make sense as
// keywords in queries. An unquoted word outside this set is an identifier
// unless its context makes it a keyword (see translate.go).
var reserved = wordSet(
	// reserved
	"all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric",
	"both", "case", "cast", "check", "collate", "column", "constraint", "create",
	"current_catalog", "current_date", "current_role", "current_time",
	"current_timestamp", "current_user", "default", "deferrable", "desc", "distinct",
	"do", "else", "end", "except", "false", "fetch", "for", "foreign", "from", "grant",
	"group", "having", "in", "initially", "intersect", "into", "lateral", "leading",
	"limit", "localtime", "localtimestamp", "not", "null", "offset", "on", "only", "or",
	"order", "placing", "primary", "references", "returning", "select", "session_user",
	"some", "symmetric", "system_user", "table", "then", "to", "trailing", "true",
	"union", "unique", "user", "using", "variadic", "when", "where", "window", "with",
	// type and function names
	"authorization", "binary", "collation", "concurrently", "cross", "current_schema",
	"freeze", "full", "ilike", "inner", "is", "isnull", "join", "left", "like",
	"natural", "notnull", "outer", "overlaps", "right", "similar", "tablesample",
	"verbose",
	// column names that act as keywords in expressions
	"between", "exists", "extract", "row", "values",
)

// sqlValueFunctions are PostgreSQL's keyword functions called without
// parentheses; they translate to zero-argument calls of the same name.
var sqlValueFunctions = wordSet(
	"current_date", "current_time", "current_timestamp", "localtime", "localtimestamp",
	"current_user", "current_role", "session_user", "system_user", "user",
	"current_schema", "current_catalog",
)

// windowWords are keywords inside a window specification.
var windowWords = wordSet(
	"partition", "by", "rows", "range", "groups", "unbounded", "preceding",
	"following", "current", "row", "exclude", "ties", "others", "no",
)

// intervalFields are the field names of INTERVAL '...' field [TO field].
var intervalFields = wordSet("year", "month", "day", "hour", "minute", "second")

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
