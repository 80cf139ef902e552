package dataflow

import (
	"reflect"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestMessageRoundTrip checks that chunks (with truncates and unchanged
// columns too), barriers, watermarks, Loaded and Idle cross nodes intact (a barrier without its mutation).
func TestMessageRoundTrip(t *testing.T) {
	ts := []types.T{types.TInt8, types.TText, types.TFloat8}
	msgs := []Message{
		&Chunk{Ops: []Op{Insert, UpdateDelete, UpdateInsert, Delete},
			Rows: [][]types.Datum{
				{types.NewInt(1), types.NewString("a"), types.NewFloat(1.5)},
				{types.NewInt(2), types.Null, types.NewFloat(-0.0)},
				{types.NewInt(2), types.NewString(""), types.Null},
				{types.Null, types.Null, types.Null},
			}},
		&Chunk{Ops: []Op{Insert, Truncate},
			Rows: [][]types.Datum{
				{types.NewInt(3), types.Unchanged, types.NewFloat(2)},
				{types.Unchanged, types.Unchanged, types.Unchanged},
			}},
		&Chunk{Ops: []Op{}, Rows: [][]types.Datum{}},
		&Barrier{Epoch: 42, Time: 1700000000000000, Checkpoint: true},
		&Barrier{Epoch: 1, Time: -5},
		&Watermark{Col: 1, Val: types.NewString("w")},
		&Loaded{},
		&Idle{},
	}
	for _, m := range msgs {
		b, err := AppendMessage(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeMessage(b, ts)
		if err != nil {
			t.Fatalf("decode %#v: %v", m, err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("round trip of %#v = %#v", m, got)
		}
		for i := range b {
			if _, err := DecodeMessage(b[:i], ts); err == nil && i < len(b) {
				t.Errorf("a truncated %T (%d of %d bytes) decoded", m, i, len(b))
			}
		}
	}
	if _, err := AppendMessage(nil, nil); err == nil {
		t.Error("encoding a nil message did not fail")
	}
}
