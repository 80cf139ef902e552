package parser

import "github.com/streamdb/streamdb/sql/keywords"

// reserved holds PostgreSQL's reserved keywords, its type/function-name
// keywords and the few column-name keywords that only make sense as
// keywords in queries (and system_user, PostgreSQL 16's). An unquoted
// word outside this set is an identifier unless its context makes it a
// keyword (see translate.go).
var reserved = func() map[string]bool {
	m := wordSet("between", "exists", "extract", "row", "values", "system_user")
	for _, c := range []keywords.Category{keywords.Reserved, keywords.TypeFuncName} {
		for _, w := range keywords.Words(c) {
			m[w] = true
		}
	}
	return m
}()

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
