package nexmarkbench

import (
	"os"
	"sync"
	"time"

	"github.com/streamdb/streamdb/bench/benchkit"
	"github.com/streamdb/streamdb/connector/nexmark"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/types"
)

// generatorQuery names the generator-only line of the report.
const generatorQuery = "generator"

// generatorRate measures the ceiling of q0: this process runs the nexmark
// generator for the bids of events events over p splits in p goroutines,
// filling chunks of rows (with the row id) as the source operator does.
func generatorRate(events int64, p int) (Result, error) {
	cfg := nexmark.DefaultConfig()
	cfg.Table, cfg.EventNum, cfg.SplitNum, cfg.MinEventGapNs = nexmark.BidEvent, events, p, 0
	width := len(nexmark.Schema(nexmark.BidEvent)) + 1
	cpu0, err := benchkit.SelfCPU()
	if err != nil {
		return Result{}, err
	}
	start := time.Now()
	var wg sync.WaitGroup
	for split := range p {
		wg.Go(func() {
			sp := nexmark.NewSplit(cfg, split)
			chunk := make([][]types.Datum, dataflow.MaxChunkRows)
			for i := range chunk {
				chunk[i] = make([]types.Datum, width)
			}
			one := make([][]types.Datum, 1)
			for !sp.Done() {
				for i := 0; i < len(chunk); i++ {
					off := sp.Offset()
					one[0] = chunk[i]
					if sp.Next(one) == 0 {
						break
					}
					chunk[i][width-1] = types.NewInt(off*int64(p) + int64(split))
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu1, err := benchkit.SelfCPU()
	if err != nil {
		return Result{}, err
	}
	rss, err := benchkit.PeakRSS(os.Getpid())
	if err != nil {
		return Result{}, err
	}
	return Result{Query: generatorQuery, Parallelism: p, Events: events, Seconds: elapsed.Seconds(),
		EventsPerSec: benchkit.PerSecond(events, elapsed), EventsPerSecPerCore: benchkit.PerSecond(events, cpu1-cpu0), PeakRSSBytes: rss}, nil
}
