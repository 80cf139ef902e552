package main

import (
	"io"
	"slices"
	"testing"
	"time"

	"github.com/streamdb/streamdb/bench/rescalebench"
)

func TestParseBenchRescale(t *testing.T) {
	tests := []struct {
		args       []string
		stateMB    int64
		strategies []rescalebench.Strategy
		from, to   int
		step       int
		steady     time.Duration
		json       string
		barrierMS  int
		err        string
	}{
		{args: nil, stateMB: 1024, strategies: rescalebench.Strategies, from: 2, to: 3, step: 0, steady: 10 * time.Second, barrierMS: 1000},
		{args: []string{"--state-mb", "64", "--strategies", "restart,fluid", "--from", "4", "--to", "1", "--step", "8", "--steady", "2s", "--json", "r.json", "--barrier-interval-ms", "200"},
			stateMB: 64, strategies: []rescalebench.Strategy{rescalebench.Restart, rescalebench.Fluid}, from: 4, to: 1, step: 8, steady: 2 * time.Second, json: "r.json", barrierMS: 200},
		{args: []string{"--strategies", "fluid,pause"}, err: `--strategies: no strategy "pause"`},
		{args: []string{"--state-mb", "0"}, err: "--state-mb must be at least 1"},
		{args: []string{"--from", "0"}, err: "--from and --to must be from 1 to 256"},
		{args: []string{"--to", "257"}, err: "--from and --to must be from 1 to 256"},
		{args: []string{"--from", "3"}, err: "--from and --to must differ"},
		{args: []string{"--step", "-1"}, err: "--step must be from 0 (the server's default) to 256"},
		{args: []string{"--steady", "0s"}, err: "--steady must be positive"},
		{args: []string{"--barrier-interval-ms", "5"}, err: "--barrier-interval-ms must be from 10"},
		{args: []string{"fluid"}, err: `unexpected argument "fluid"`},
		{args: []string{"--nope"}, err: "flag provided but not defined"},
	}
	for _, tt := range tests {
		cfg, err := parseBenchRescale(tt.args, io.Discard)
		if !parsedAsWanted(t, tt.args, err, tt.err) {
			continue
		}
		if cfg.StateMB != tt.stateMB || !slices.Equal(cfg.Strategies, tt.strategies) || cfg.From != tt.from || cfg.To != tt.to ||
			cfg.Step != tt.step || cfg.Steady != tt.steady || cfg.JSON != tt.json || cfg.BarrierIntervalMS != tt.barrierMS {
			t.Errorf("%q: got %+v", tt.args, cfg)
		}
	}
}
