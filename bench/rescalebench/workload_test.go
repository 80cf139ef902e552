package rescalebench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// TestCounterKeyComesFirst checks that the counter's row is the first of
// the view's table: negative (loaded keys are not) and in vnode 0.
func TestCounterKeyComesFirst(t *testing.T) {
	k := counterKey()
	if k >= 0 {
		t.Fatalf("counterKey() = %d, want a negative key", k)
	}
	if v := rowkey.VNode(types.AppendKey(nil, types.NewInt(k), false), rowkey.VNodes); v != 0 {
		t.Errorf("counterKey() = %d is in vnode %d, want 0", k, v)
	}
}

func TestInsertStatement(t *testing.T) {
	got := insertStatement()
	if !strings.HasPrefix(got, "INSERT INTO t (k, v, pad) VALUES ($1, 1, ''), ($2, 1, '')") ||
		!strings.HasSuffix(got, "($16, 1, '')") || strings.Count(got, "$") != batchRows {
		t.Errorf("insertStatement() = %q", got)
	}
}

func TestPadRows(t *testing.T) {
	rows := newPadRows(1)
	rows.reset(5, 8)
	var keys []int64
	for rows.Next() {
		v, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, v[0].(int64))
		pad := v[2].(string)
		if len(pad) != padLen || strings.Trim(pad, alphabet) != "" {
			t.Errorf("pad %q, want %d characters of the alphabet", pad, padLen)
		}
	}
	if len(keys) != 3 || keys[0] != 5 || keys[2] != 7 {
		t.Errorf("keys %v, want 5, 6, 7", keys)
	}
}

func TestPebbleBytes(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, size := range map[string]int{"000001.sst": 100, "000002.sst": 50, "000003.log": 30, "MANIFEST-000001": 7} {
		if err := os.WriteFile(filepath.Join(state, name), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := pebbleBytes(dir)
	if err != nil || got != (pebbleFiles{sst: 150, all: 187}) {
		t.Errorf("pebbleBytes = %+v, %v; want 150 in SSTs of 187", got, err)
	}
	if _, err := pebbleBytes(filepath.Join(dir, "none")); err == nil {
		t.Error("pebbleBytes of a missing directory: no error")
	}
}
