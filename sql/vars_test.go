package sql_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/node"
)

// TestVars walks a session through SET, SHOW and RESET, checking values,
// SHOW's column name and PostgreSQL's errors.
func TestVars(t *testing.T) {
	n := openNode(t)
	s := n.connect(map[string]string{
		"user": "tester", "database": "streamdb",
		"application_name": "psql", "DateStyle": "ISO, MDY", "server_version": "99", "nosuch": "x",
	})
	steps := []struct {
		sql  string
		col  string // SHOW's column name
		want string // SHOW's value, or the error message
		code string
	}{
		{sql: "SHOW server_version", col: "server_version", want: node.ServerVersion},
		{sql: "SHOW server_version_num", col: "server_version_num", want: "150000"},
		{sql: "SHOW application_name", col: "application_name", want: "psql"},
		{sql: "SHOW client_encoding", col: "client_encoding", want: "UTF8"},
		{sql: "SHOW datestyle", col: "DateStyle", want: "ISO, MDY"},
		{sql: "SHOW TimeZone", col: "TimeZone", want: "UTC"},
		{sql: "SHOW TIME ZONE", col: "TimeZone", want: "UTC"},
		{sql: "SHOW IntervalStyle", col: "IntervalStyle", want: "postgres"},
		{sql: "SHOW search_path", col: "search_path", want: `"$user", public`},
		{sql: "SHOW session_authorization", col: "session_authorization", want: "tester"},
		{sql: "SHOW transaction_isolation", col: "transaction_isolation", want: "read committed"},

		{sql: "SET application_name = 'app'"},
		{sql: "SHOW application_name", col: "application_name", want: "app"},
		{sql: "SET search_path TO public, other"},
		{sql: "SHOW search_path", col: "search_path", want: "public, other"},
		{sql: "SET extra_float_digits = 3"},
		{sql: "SHOW extra_float_digits", col: "extra_float_digits", want: "3"},
		{sql: "SET TIME ZONE 'UTC'"},
		{sql: "SET timezone = 'Mars/Phobos'", code: "22023", want: `invalid value for parameter "TimeZone": "Mars/Phobos"`},
		{sql: "SET timezone = 'europe/berlin'"},
		{sql: "SHOW timezone", col: "TimeZone", want: "Europe/Berlin"},
		{sql: "SET TIME ZONE INTERVAL '+05:30' HOUR TO MINUTE"},
		{sql: "SHOW timezone", col: "TimeZone", want: "<+05:30>-05:30"},
		{sql: "SET TIME ZONE -7"},
		{sql: "SHOW timezone", col: "TimeZone", want: "<-07>+07"},
		{sql: "SET TIME ZONE LOCAL"},
		{sql: "SHOW timezone", col: "TimeZone", want: "UTC"},

		// RisingWave's spelling of implicit_flush is an alias.
		{sql: "SHOW implicit_flush", col: "implicit_flush", want: "off"},
		{sql: "SET RW_IMPLICIT_FLUSH = true"},
		{sql: "SHOW implicit_flush", col: "implicit_flush", want: "on"},
		{sql: "SHOW rw_implicit_flush", col: "implicit_flush", want: "on"},
		{sql: "SET implicit_flush TO off"},
		{sql: "SHOW RW_IMPLICIT_FLUSH", col: "implicit_flush", want: "off"},
		{sql: "SET implicit_flush = 'maybe'", code: "22023", want: `parameter "implicit_flush" requires a Boolean value`},

		{sql: "SHOW scan_pushdown", col: "scan_pushdown", want: "on"},
		{sql: "SET scan_pushdown = false"},
		{sql: "SHOW scan_pushdown", col: "scan_pushdown", want: "off"},

		// Custom (dotted) parameters.
		{sql: "SET my.setting = 'x'"},
		{sql: "SHOW my.setting", col: "my.setting", want: "x"},
		{sql: "RESET my.setting"},
		{sql: "SHOW my.setting", col: "my.setting", want: ""},
		{sql: "SHOW my.unset", code: "42704", want: `unrecognized configuration parameter "my.unset"`},

		// Read-only and unknown parameters.
		{sql: "SET server_version = '1'", code: "55P02", want: `parameter "server_version" cannot be changed`},
		{sql: "SET integer_datetimes = off", code: "55P02", want: `parameter "integer_datetimes" cannot be changed`},
		{sql: "RESET server_encoding", code: "55P02", want: `parameter "server_encoding" cannot be changed`},
		{sql: "SET nosuch = 1", code: "42704", want: `unrecognized configuration parameter "nosuch"`},
		{sql: "SHOW nosuch", code: "42704", want: `unrecognized configuration parameter "nosuch"`},
		{sql: "RESET nosuch", code: "42704", want: `unrecognized configuration parameter "nosuch"`},
		{sql: "SET nosuch TO DEFAULT", code: "42704", want: `unrecognized configuration parameter "nosuch"`},

		// RESET restores the value the session started with.
		{sql: "RESET application_name"},
		{sql: "SHOW application_name", col: "application_name", want: "psql"},
		{sql: "SET application_name = 'other'"},
		{sql: "SET application_name TO DEFAULT"},
		{sql: "SHOW application_name", col: "application_name", want: "psql"},
		{sql: "SET application_name = 'other'"},
		{sql: "RESET ALL"},
		{sql: "SHOW application_name", col: "application_name", want: "psql"},
		{sql: "SHOW search_path", col: "search_path", want: `"$user", public`},
		{sql: "SHOW server_version", col: "server_version", want: node.ServerVersion},
	}
	for _, st := range steps {
		res, err := query(s, st.sql)
		switch {
		case st.code != "":
			wantError(t, err, st.code, st.want, "")
		case err != nil:
			t.Errorf("%s: %v", st.sql, err)
		case st.col == "":
			if res.tag != "SET" && res.tag != "RESET" {
				t.Errorf("%s: tag %q", st.sql, res.tag)
			}
		default:
			if len(res.cols) != 1 || res.cols[0] != st.col || len(res.rows) != 1 || res.rows[0] != st.want || res.tag != "SHOW" {
				t.Errorf("%s: columns %q rows %q tag %q, want column %q row %q", st.sql, res.cols, res.rows, res.tag, st.col, st.want)
			}
		}
	}
}

func TestShowAll(t *testing.T) {
	n := openNode(t)
	s := n.connect(nil)
	res := mustQuery(t, s, "SHOW ALL")
	equalStrings(t, "columns", res.cols, []string{"name", "setting", "description"})
	if len(res.rows) < 10 {
		t.Fatalf("SHOW ALL returned %d rows", len(res.rows))
	}
	var names []string
	for _, r := range res.rows {
		name, _, _ := strings.Cut(r, "|")
		names = append(names, name)
	}
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("SHOW ALL names not sorted and distinct: %q", names)
	}
}

// TestParameterStatus checks the parameters reported to clients, with
// PostgreSQL's spelling.
func TestParameterStatus(t *testing.T) {
	n := openNode(t)
	s := n.connect(map[string]string{"user": "tester", "database": "streamdb", "application_name": "psql"})
	want := map[string]string{
		"application_name": "psql", "client_encoding": "UTF8", "DateStyle": "ISO, MDY", "IntervalStyle": "postgres",
		"TimeZone": "UTC", "integer_datetimes": "on", "standard_conforming_strings": "on", "server_encoding": "UTF8",
		"server_version": node.ServerVersion, "is_superuser": "on", "session_authorization": "tester",
	}
	check := func() {
		t.Helper()
		got := s.ParameterStatus()
		for k, v := range want {
			if got[k] != v {
				t.Errorf("ParameterStatus[%s] = %q, want %q", k, got[k], v)
			}
		}
		if len(got) != len(want) {
			t.Errorf("ParameterStatus has %d entries, want %d: %v", len(got), len(want), got)
		}
	}
	check()
	mustQuery(t, s, "SET application_name = 'x'")
	want["application_name"] = "x"
	check()
}
