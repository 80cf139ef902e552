package metrics

import (
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/streamdb/streamdb/pgwire"
)

// Statements counts the statements that ran to their end by kind and
// SQLSTATE class, and logs each DDL and each slow statement.
type Statements struct {
	vec  *prometheus.CounterVec
	log  *slog.Logger
	slow time.Duration
}

// NewStatements returns the statement counters; statements that take at
// least slow are logged (slow <= 0: none).
func NewStatements(log *slog.Logger, slow time.Duration) *Statements {
	return &Statements{
		vec: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "streamdb_statements_total",
			Help: "Statements that ran to their end, by kind (select, insert, update, delete, ddl, copy, subscribe, transaction, set, show, other) and SQLSTATE class (00: success).",
		}, []string{"kind", "class"}),
		log:  log,
		slow: slow,
	}
}

// logTextMax bounds the statement text a log line holds.
const logTextMax = 200

// OnStatement counts d, and logs it if it is DDL (one line, slow or not)
// or slow; it is
// pgwire.Options.OnStatement.
func (s *Statements) OnStatement(d pgwire.StatementDone) {
	kind := Kind(d.Text)
	class := "00"
	if len(d.Code) >= 2 {
		class = d.Code[:2]
	}
	s.vec.WithLabelValues(kind, class).Inc()
	slow := s.slow > 0 && d.Duration >= s.slow
	if kind != "ddl" && !slow {
		return
	}
	args := []any{"user", d.User, "took", d.Duration.Round(time.Microsecond), "statement", truncate(d.Text, logTextMax)}
	if d.Code != "" {
		args = append(args, "sqlstate", d.Code)
	}
	if kind == "ddl" {
		s.log.Info("ddl", append([]any{"command", d.Tag, "object", Object(d.Text)}, args...)...)
		return
	}
	s.log.Info("slow statement", append([]any{"kind", kind, "threshold", s.slow}, args...)...)
}

// kinds maps a statement's first keyword to its kind.
var kinds = map[string]string{
	"select": "select", "with": "select", "values": "select", "table": "select", "explain": "select",
	"insert": "insert", "update": "update", "delete": "delete",
	"create": "ddl", "alter": "ddl", "drop": "ddl", "truncate": "ddl", "comment": "ddl",
	"copy": "copy", "subscribe": "subscribe", "declare": "subscribe", "fetch": "subscribe",
	"begin": "transaction", "start": "transaction", "commit": "transaction", "rollback": "transaction", "end": "transaction", "abort": "transaction",
	"set": "set", "reset": "set", "show": "show",
}

// Kind returns a statement's kind from its first keyword: select, insert,
// update, delete, ddl, copy, subscribe, transaction, set, show or other.
func Kind(text string) string {
	if k, ok := kinds[strings.ToLower(firstWord(text))]; ok {
		return k
	}
	return "other"
}

// ddlWords are the words of DDL commands before the object's name.
var ddlWords = map[string]bool{"create": true, "alter": true, "drop": true, "truncate": true, "comment": true, "on": true,
	"or": true, "replace": true, "materialized": true, "view": true, "table": true, "source": true, "sink": true,
	"index": true, "schema": true, "function": true, "sequence": true, "if": true, "not": true, "exists": true,
	"temporary": true, "temp": true, "unique": true, "column": true, "subscription": true, "system": true}

// Object returns the name a DDL statement's text names: the word after
// its command words and any IF [NOT] EXISTS ("" if none).
func Object(text string) string {
	for _, f := range strings.Fields(text) {
		if !ddlWords[strings.ToLower(f)] {
			name, _, _ := strings.Cut(f, "(")
			return strings.TrimRight(name, ";")
		}
	}
	return ""
}

// firstWord returns the first word of text ("" if none).
func firstWord(text string) string {
	f := strings.Fields(strings.TrimLeft(text, "( \t\r\n"))
	if len(f) == 0 {
		return ""
	}
	return strings.TrimRight(f[0], ";(")
}

// truncate cuts s to at most n bytes (at a rune boundary), marking a cut
// with "...".
func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
