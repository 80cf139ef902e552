package main

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/bench/nexmarkbench"
	"github.com/streamdb/streamdb/bench/pgbaseline"
)

func TestParseBenchNexmark(t *testing.T) {
	tests := []struct {
		args        []string
		queries     []string
		events      int64
		parallelism []int
		barrierMS   int
		checkpoints []int
		postgres    pgbaseline.Use
		json        string
		profiles    string
		err         string
	}{
		{args: nil, queries: queryNames(nexmarkbench.Queries), events: 1_000_000, parallelism: []int{1}, barrierMS: 1000, postgres: "auto"},
		{args: []string{"--queries", "q0, 5", "--events", "20000", "--parallelism", "1,2", "--json", "out.json", "--barrier-interval-ms", "250", "--postgres", "off", "--cpuprofile-dir", "prof"},
			queries: []string{"q0", "q5"}, events: 20000, parallelism: []int{1, 2}, barrierMS: 250, postgres: "off", json: "out.json", profiles: "prof"},
		{args: []string{"--queries", "all", "--postgres", "on"}, queries: queryNames(nexmarkbench.Queries), events: 1_000_000, parallelism: []int{1}, barrierMS: 1000, postgres: "on"},
		{args: []string{"--queries", "q23"}, err: `no query "q23" in --queries; the queries are q0,q1`},
		{args: []string{"--parallelism", "0"}, err: "--parallelism takes positive numbers"},
		{args: []string{"--parallelism", "1,x"}, err: "--parallelism takes positive numbers"},
		{args: []string{"--events", "0"}, err: "--events must be at least 1"},
		{args: []string{"--barrier-interval-ms", "5"}, err: "--barrier-interval-ms must be from 10"},
		{args: []string{"--barrier-interval-ms", "1000,5"}, err: "--barrier-interval-ms must be from 10"},
		{args: []string{"--barrier-interval-ms", "1000,60000,60000,1000"}, queries: queryNames(nexmarkbench.Queries), events: 1_000_000, parallelism: []int{1}, barrierMS: 1000, checkpoints: []int{1000, 60000, 60000, 1000}, postgres: "auto"},
		{args: []string{"--postgres", "maybe"}, err: "--postgres must be auto, on or off"},
		{args: []string{"q0"}, err: `unexpected argument "q0"`},
		{args: []string{"--nope"}, err: "flag provided but not defined"},
	}
	for _, tt := range tests {
		cfg, err := parseBenchNexmark(tt.args, io.Discard)
		if !parsedAsWanted(t, tt.args, err, tt.err) {
			continue
		}
		if got := queryNames(cfg.Queries); !slices.Equal(got, tt.queries) {
			t.Errorf("%q: queries %v, want %v", tt.args, got, tt.queries)
		}
		if cfg.Events != tt.events || !slices.Equal(cfg.Parallelism, tt.parallelism) || cfg.BarrierIntervalMS != tt.barrierMS ||
			!slices.Equal(cfg.CheckpointIntervalsMS, tt.checkpoints) || cfg.Postgres != tt.postgres || cfg.JSON != tt.json || cfg.CPUProfileDir != tt.profiles {
			t.Errorf("%q: events %d, parallelism %v, barrier %d ms, postgres %q, json %q, profiles %q", tt.args, cfg.Events, cfg.Parallelism, cfg.BarrierIntervalMS, cfg.Postgres, cfg.JSON, cfg.CPUProfileDir)
		}
	}
}

func TestParseBenchTPCH(t *testing.T) {
	tests := []struct {
		args     []string
		scale    float64
		queries  []string
		postgres bool
		err      string
	}{
		{args: nil, scale: 0.1, postgres: true},
		{args: []string{"--scale", "0.01", "--queries", "q1, 22", "--postgres", "off"}, scale: 0.01, queries: []string{"q1", "q22"}},
		{args: []string{"--queries", "q23"}, err: `no query "q23"`},
		{args: []string{"--scale", "0"}, err: "--scale must be above 0"},
		{args: []string{"--parallelism", "-1"}, err: "--parallelism must not be negative"},
		{args: []string{"--postgres", "on"}, err: "--postgres must be auto or off"},
		{args: []string{"q1"}, err: `unexpected argument "q1"`},
	}
	for _, tt := range tests {
		cfg, err := parseBenchTPCH(tt.args, io.Discard)
		if !parsedAsWanted(t, tt.args, err, tt.err) {
			continue
		}
		if cfg.Scale != tt.scale || !slices.Equal(cfg.Queries, tt.queries) || cfg.Postgres != tt.postgres || cfg.BarrierIntervalMS != 1000 {
			t.Errorf("%q: scale %g, queries %v, postgres %v, barrier %d ms", tt.args, cfg.Scale, cfg.Queries, cfg.Postgres, cfg.BarrierIntervalMS)
		}
	}
}

func TestParseBenchWriters(t *testing.T) {
	tests := []struct {
		args     []string
		writers  []int
		nodes    int
		postgres pgbaseline.Use
		err      string
	}{
		{args: nil, writers: []int{1, 16}, nodes: 1, postgres: "auto"},
		{args: []string{"--writers", "16", "--nodes", "3", "--postgres", "off"}, writers: []int{16}, nodes: 3, postgres: "off"},
		{args: []string{"--writers", "1,x"}, err: "bench writers: --writers takes positive numbers"},
		{args: []string{"--nodes", "0"}, err: "--nodes must be at least 1"},
		{args: []string{"--postgres", "maybe"}, err: "--postgres must be auto, on or off"},
		{args: []string{"--barrier-interval-ms", "5"}, err: "--barrier-interval-ms must be from 10"},
		{args: []string{"16"}, err: `unexpected argument "16"`},
	}
	for _, tt := range tests {
		cfg, err := parseBenchWriters(tt.args, io.Discard)
		if !parsedAsWanted(t, tt.args, err, tt.err) {
			continue
		}
		if !slices.Equal(cfg.Writers, tt.writers) || cfg.Nodes != tt.nodes || cfg.Postgres != tt.postgres {
			t.Errorf("%q: writers %v, nodes %d, postgres %q", tt.args, cfg.Writers, cfg.Nodes, cfg.Postgres)
		}
	}
}

func queryNames(qs []nexmarkbench.Query) []string {
	names := make([]string, len(qs))
	for i, q := range qs {
		names[i] = q.Name
	}
	return names
}

// parsedAsWanted reports whether flags args parsed without an error and
// were meant to; it reports a test error unless the error err is as
// wanted: nil for want "", else one whose text contains want.
func parsedAsWanted(t *testing.T, args []string, err error, want string) bool {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%q: %v", args, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%q: error %v, want one containing %q", args, err, want)
	}
	return want == "" && err == nil
}
