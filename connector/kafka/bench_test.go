package kafka

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

// BenchmarkDecodeBidJSON decodes a Nexmark bid as JSON, the record of
// BenchmarkKafkaNexmark (tests/e2e).
func BenchmarkDecodeBidJSON(b *testing.B) {
	cols := []Column{{"auction", types.TInt8}, {"bidder", types.TInt8}, {"price", types.TInt8}, {"channel", types.TVarchar},
		{"url", types.TVarchar}, {"date_time", types.TTimestamp}, {"extra", types.TVarchar}}
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
