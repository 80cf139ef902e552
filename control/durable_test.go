package control

import (
	"fmt"
	"testing"
	"time"

	"github.com/streamdb/streamdb/meta"
)

func TestFileEpoch(t *testing.T) {
	for _, tc := range []struct {
		name  string
		epoch uint64
		ok    bool
	}{
		{"fe73-n1-e00000000000000000024-000003.sst", 24, true},
		{"fe73-node-east-1-e00000000000000001000-000000.sst", 1000, true},
		{"fe73-n1-000003.sst", 0, false},
		{"fe73-n1-ex-000003.sst", 0, false},
	} {
		if e, ok := fileEpoch(tc.name); e != tc.epoch || ok != tc.ok {
			t.Errorf("fileEpoch(%q) = %d, %v; want %d, %v", tc.name, e, ok, tc.epoch, tc.ok)
		}
	}
}

// TestChainGroups groups a checkpoint chain's files per checkpoint and
// node, newest checkpoint first, keeping only the files asked for.
func TestChainGroups(t *testing.T) {
	files := []meta.SharedFile{
		{Name: "a", Node: "n1", Epoch: 5, Table: 1}, {Name: "b", Node: "n2", Epoch: 5, Table: 1},
		{Name: "c", Node: "n1", Epoch: 5, Table: 1}, {Name: "d", Node: "n1", Epoch: 9, Table: 1},
		{Name: "e", Node: "n1", Epoch: 9, Table: 2},
	}
	got := chainGroups(files, func(f meta.SharedFile) bool { return f.Table == 1 })
	if fmt.Sprint(names(got)) != "[[d] [a c] [b]]" {
		t.Fatalf("groups %v, want [[d] [a c] [b]]", names(got))
	}
}

func names(groups [][]meta.SharedFile) [][]string {
	var out [][]string
	for _, g := range groups {
		var n []string
		for _, f := range g {
			n = append(n, f.Name)
		}
		out = append(out, n)
	}
	return out
}

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"10s", 10 * time.Second, true}, {"500", 500 * time.Millisecond, true}, {"1min", time.Minute, true},
		{"2 min", 2 * time.Minute, true}, {"off", 0, true}, {"0", 0, true}, {"-1s", 0, false}, {"soon", 0, false},
	} {
		got, err := ParseDuration(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
