package exec_test

import (
	"encoding/binary"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// TestEstimateRows checks that a small table's rows are counted exactly
// (the live ones at the epoch) and a large one's estimate is at least the
// sample EstimateRows counts.
func TestEstimateRows(t *testing.T) {
	e, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	put := func(table uint32, from, to int, epoch uint64, live bool) {
		b := e.NewBatch()
		for i := from; i < to; i++ {
			key := storage.AppendKey(nil, table, 0, binary.BigEndian.AppendUint64(nil, uint64(i)))
			if live {
				b.Put(key, epoch, types.AppendRow(nil, []types.Datum{types.NewInt(int64(i))}))
			} else {
				b.Delete(key, epoch)
			}
		}
		if err := b.Commit(false); err != nil {
			t.Fatal(err)
		}
	}
	put(1, 0, 10, 1, true)
	put(1, 0, 3, 2, false)
	put(1, 10, 20, 3, true)
	put(2, 0, 5000, 1, true)
	tests := []struct {
		table uint32
		epoch uint64
		want  float64 // at least, for table 2
	}{{1, 1, 10}, {1, 2, 7}, {1, 3, 17}, {2, 1, 1000}, {3, 1, 0}}
	for _, tt := range tests {
		scan := &exec.TableScan{TableID: tt.table, Types: []types.T{types.TInt8}}
		got, err := scan.EstimateRows(&exec.Env{Engine: e, Epoch: tt.epoch})
		if err != nil || got != tt.want && (tt.table != 2 || got < tt.want) {
			t.Errorf("table %d at epoch %d: %v rows (error %v), want %v", tt.table, tt.epoch, got, err, tt.want)
		}
	}
}
