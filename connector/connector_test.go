package connector

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

var (
	bidColumns = []Column{
		{Name: "auction", Type: types.TInt8}, {Name: "bidder", Type: types.TInt8}, {Name: "price", Type: types.TInt8}, {Name: "channel", Type: types.TVarchar},
		{Name: "url", Type: types.TVarchar}, {Name: "date_time", Type: types.TTimestamp}, {Name: "extra", Type: types.TText},
	}
	seqColumns = []Column{{Name: "v", Type: types.TInt8}}
	created    = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
)

func TestOpen(t *testing.T) {
	for _, c := range []struct {
		name   string
		cols   []Column
		opts   map[string]string
		splits int
		// want is the split count, or the error's SQLSTATE and a part of its message.
		want           int
		code, contains string
	}{
		{name: "nexmark default splits", cols: bidColumns, opts: map[string]string{"connector": "Nexmark", "nexmark.table.type": "bid"}, splits: 3, want: 3},
		{name: "nexmark explicit splits", cols: bidColumns, opts: map[string]string{"connector": "nexmark", "nexmark.table.type": "Bid", "nexmark.split.num": "5"}, splits: 3, want: 5},
		{name: "datagen splits capped by rate", cols: seqColumns, opts: map[string]string{"connector": "datagen", "datagen.rows.per.second": "2"}, splits: 4, want: 2},
		{name: "datagen default", cols: seqColumns, opts: map[string]string{"connector": "datagen"}, splits: 4, want: 4},
		{name: "no connector", cols: seqColumns, opts: map[string]string{}, code: "42601", contains: "option connector"},
		{name: "unknown connector", cols: seqColumns, opts: map[string]string{"connector": "pulsar"}, code: "22023", contains: `unknown connector "pulsar"`},
		{name: "nexmark plain json", cols: bidColumns, opts: map[string]string{"connector": "nexmark", "nexmark.table.type": "bid", "format": "plain", "encode": "json"}, splits: 1, want: 1},
		{name: "datagen csv", cols: seqColumns, opts: map[string]string{"connector": "datagen", "format": "plain", "encode": "csv"}, code: "0A000", contains: "ENCODE CSV is not supported by connector datagen"},
		{name: "upsert of a generator", cols: seqColumns, opts: map[string]string{"connector": "datagen", "format": "upsert", "encode": "json"}, code: "0A000", contains: "FORMAT UPSERT ENCODE JSON is not supported by connector datagen"},
		{name: "kafka recorded partitions", cols: seqColumns, opts: map[string]string{"connector": "kafka", "topic": "t", "properties.bootstrap.server": "127.0.0.1:1", "topic.partitions": "3", "format": "plain", "encode": "json"}, want: 3},
		{name: "kafka without columns", opts: map[string]string{"connector": "kafka", "topic": "t"}, code: "42601", contains: "column list"},
		{name: "kafka foreign option", cols: seqColumns, opts: map[string]string{"connector": "kafka", "nexmark.table.type": "bid"}, code: "22023", contains: "nexmark.table.type"},
		{name: "foreign option", cols: bidColumns, opts: map[string]string{"connector": "nexmark", "nexmark.table.type": "Bid", "fields.v.kind": "sequence"}, code: "22023", contains: "fields.v.kind"},
		{name: "bad nexmark option", cols: bidColumns, opts: map[string]string{"connector": "nexmark", "nexmark.table.type": "Bid", "nexmark.event.num": "x"}, code: "22023", contains: "nexmark.event.num"},
		{name: "nexmark without columns", opts: map[string]string{"connector": "nexmark", "nexmark.table.type": "Bid"}, code: "42601", contains: "(auction BIGINT, bidder BIGINT"},
		{name: "nexmark wrong name", cols: append([]Column{{Name: "id", Type: types.TInt8}}, bidColumns[1:]...), opts: map[string]string{"connector": "nexmark", "nexmark.table.type": "Bid"}, code: "42601", contains: "must declare the columns"},
		{name: "nexmark wrong type", cols: append([]Column{{Name: "auction", Type: types.TInt4}}, bidColumns[1:]...), opts: map[string]string{"connector": "nexmark", "nexmark.table.type": "Bid"}, code: "42804", contains: "column auction of a nexmark Bid source must be of type bigint"},
		{name: "datagen without columns", opts: map[string]string{"connector": "datagen"}, code: "42601", contains: "column list"},
		{name: "datagen too many splits", cols: seqColumns, opts: map[string]string{"connector": "datagen", "datagen.split.num": "20"}, code: "22023", contains: "datagen.split.num"},
	} {
		src, err := Open(c.cols, c.opts, created, c.splits)
		if c.code != "" {
			var pe *pgerror.Error
			if !errors.As(err, &pe) || pe.Code != c.code || !strings.Contains(pe.Message, c.contains) {
				t.Errorf("%s: error %v, want %s containing %q", c.name, err, c.code, c.contains)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if src.Splits != c.want {
			t.Errorf("%s: %d splits, want %d", c.name, src.Splits, c.want)
		}
		// The resolved options open the same source without a default.
		again, err := Open(c.cols, src.Options, created, 1)
		if err != nil || again.Splits != src.Splits {
			t.Errorf("%s: reopening gives %v splits, %v", c.name, again, err)
		}
	}
}

// TestBaseTimeResolved checks that random times go back from the creation
// time written into the options, so that a restart at another time
// generates the same rows.
func TestBaseTimeResolved(t *testing.T) {
	cols := []Column{{Name: "at", Type: types.TTimestamp}, {Name: "rel", Type: types.TTimestamp}}
	opts := map[string]string{"connector": "datagen", "fields.rel.max_past_mode": "relative"}
	src, err := Open(cols, opts, created, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := src.Options["fields.at.basetime"]; got != "2024-01-01T00:00:00Z" {
		t.Errorf("basetime of at = %q", got)
	}
	if _, ok := src.Options["fields.rel.basetime"]; ok {
		t.Errorf("relative column got a basetime")
	}
	row := func(s *Source) types.Datum {
		r := []types.Datum{{}, {}}
		s.NewSplit(0).Next([][]types.Datum{r})
		return r[0]
	}
	later, err := Open(cols, src.Options, created.Add(time.Hour), 1)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := row(src), row(later); a.String() != b.String() {
		t.Errorf("reopened source generates %s, first %s", b, a)
	}
}

// TestSplitsGenerate reads a bounded source through the Split interface.
func TestSplitsGenerate(t *testing.T) {
	src, err := Open(seqColumns, map[string]string{"connector": "datagen", "fields.v.kind": "sequence", "fields.v.start": "1", "fields.v.end": "10"}, created, 2)
	if err != nil {
		t.Fatal(err)
	}
	sum := int64(0)
	for i := range src.Splits {
		s := src.NewSplit(i)
		row := []types.Datum{{}}
		for s.Next([][]types.Datum{row}) == 1 {
			sum += row[0].Int()
		}
		if !s.Done() {
			t.Fatalf("split %d not done after its last row", i)
		}
	}
	if sum != 55 {
		t.Fatalf("sum of the sequence 1..10 over 2 splits = %d", sum)
	}
}
