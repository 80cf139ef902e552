package kafka

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

// BenchmarkDecodeBidJSON decodes a Nexmark bid as JSON, the record of
// BenchmarkKafkaNexmark (tests/e2e).
func BenchmarkDecodeBidJSON(b *testing.B) {
	cols := []Column{{Name: "auction", Type: types.TInt8}, {Name: "bidder", Type: types.TInt8}, {Name: "price", Type: types.TInt8}, {Name: "channel", Type: types.TVarchar},
		{Name: "url", Type: types.TVarchar}, {Name: "date_time", Type: types.TTimestamp}, {Name: "extra", Type: types.TVarchar}}
	rec := []byte(`{"auction":1001,"bidder":2001,"channel":"Google","date_time":"2015-07-15 00:00:00.001","extra":"` +
		`kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk","price":3172,"url":"https://www.nexmark.com/ajb/jbe/uzj/item.htm?query=1"}`)
	dec := newDecoder(cols, &Config{Encoding: JSON})
	row := make([]types.Datum, len(cols))
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	for b.Loop() {
		if err := dec.decode(rec, row); err != nil {
			b.Fatal(err)
		}
	}
}
