package conformance

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/tests/testkit"
)

// TestAgainstPostgres runs every script on PostgreSQL 15 and on streamdb
// and compares each step's answers.
func TestAgainstPostgres(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	pg := system{name: "postgres", dsn: testkit.StartPostgres(t)}
	sdb := system{name: "streamdb", dsn: testkit.ConnString(testkit.StartNode(t).Addr())}
	ctx := context.Background()
	for _, file := range files {
		cases, err := parseScript(file)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) { compare(ctx, t, c, pg, sdb) })
			}
		})
	}
}

// compare runs c on both systems and reports the differences.
func compare(ctx context.Context, t *testing.T, c scriptCase, pg, sdb system) {
	want, err := c.run(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.run(ctx, sdb)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range c.steps {
		if !st.records() {
			continue
		}
		what := fmt.Sprintf("line %d: %s> %s", st.line, st.session, st.sql)
		if st.kind == "wait" {
			what = fmt.Sprintf("line %d: %s< (the statement session %s started)", st.line, st.session, st.session)
		}
		same := want[i] == got[i]
		switch {
		case !same && st.differs == "":
			t.Errorf("%s\npostgres:\n%s\nstreamdb:\n%s", what, indent(want[i]), indent(got[i]))
		case same && st.differs != "":
			t.Errorf("%s: listed as differing (%s), but both answer\n%s", what, st.differs, indent(got[i]))
		case !same:
			t.Logf("%s: differs as listed: %s\npostgres:\n%s\nstreamdb:\n%s", what, st.differs, indent(want[i]), indent(got[i]))
		}
	}
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }
