package kafkasink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/connector/changes"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestParse(t *testing.T) {
	cols := []changes.Column{{Name: "k", Type: types.TInt4}, {Name: "n", Type: types.TInt8}}
	base := func(extra ...string) map[string]string {
		m := map[string]string{"connector": "kafka", "topic": "out", "properties.bootstrap.server": "a:9092, b:9092"}
		for i := 0; i < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name       string
		opts       map[string]string
		appendOnly bool
		code       string
		key        int
	}{
		{name: "plain", opts: base("format", "plain", "encode", "json"), appendOnly: true},
		{name: "plain of a changing stream", opts: base("format", "plain"), code: pgerror.CodeInvalidParameterValue},
		{name: "forced plain", opts: base("format", "plain", "encode.force_append_only", "true")},
		{name: "upsert", opts: base("format", "upsert", "primary_key", "K"), key: 1},
		{name: "upsert without key", opts: base("format", "upsert"), code: pgerror.CodeSyntaxError},
		{name: "upsert unknown key", opts: base("format", "upsert", "primary_key", "x"), code: pgerror.CodeUndefinedColumn},
		{name: "debezium", opts: base("format", "debezium", "primary_key", "k"), key: 1},
		{name: "debezium without key", opts: base("format", "debezium"), code: pgerror.CodeSyntaxError},
		{name: "maxwell", opts: base("format", "maxwell"), code: pgerror.CodeFeatureNotSupported},
		{name: "avro", opts: base("format", "plain", "encode", "avro"), appendOnly: true, code: pgerror.CodeFeatureNotSupported},
		{name: "no topic", opts: map[string]string{"properties.bootstrap.server": "a:9092"}, appendOnly: true, code: pgerror.CodeSyntaxError},
		{name: "no brokers", opts: map[string]string{"topic": "t"}, appendOnly: true, code: pgerror.CodeSyntaxError},
		{name: "unknown option", opts: base("colour", "red"), appendOnly: true, code: pgerror.CodeInvalidParameterValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(tc.opts, cols, tc.appendOnly)
			if tc.code != "" {
				var pe *pgerror.Error
				if !errors.As(err, &pe) || pe.Code != tc.code {
					t.Fatalf("error %v, want SQLSTATE %s", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.brokers) != 2 || c.brokers[1] != "b:9092" || c.topic != "out" || len(c.key) != tc.key {
				t.Fatalf("config %+v", c)
			}
		})
	}
}

// TestDebeziumEvents checks the events a delivery's changes make: a
// delete and an insert of one key pair into an update, other deletes are
// followed by tombstones, and changes already delivered are skipped.
func TestDebeziumEvents(t *testing.T) {
	cols := []changes.Column{{Name: "k", Type: types.TInt4}, {Name: "n", Type: types.TInt8}}
	c, err := Parse(map[string]string{"topic": "out", "properties.bootstrap.server": "a:9092", "format": "debezium", "primary_key": "k"}, cols, false)
	if err != nil {
		t.Fatal(err)
	}
	w := c.NewWriter("s#1")
	w.done = map[uint16]uint64{1: 5}
	row := func(k, n int64) []types.Datum { return []types.Datum{types.NewInt(k), types.NewInt(n)} }
	cs := []changes.Change{
		{VNode: 1, Epoch: 5, Insert: true, Row: row(9, 9)}, // delivered already
		{VNode: 2, Epoch: 6, Insert: true, Row: row(1, 10)},
		{VNode: 2, Epoch: 7, Row: row(1, 10)},
		{VNode: 2, Epoch: 7, Insert: true, Row: row(1, 11)},
		{VNode: 3, Epoch: 7, Row: row(2, 20)},
		{VNode: 2, Epoch: 8, Row: row(1, 11)},
	}
	var got []string
	for _, r := range w.events(cs) {
		v := "<tombstone>"
		if r.Value != nil {
			var e struct {
				Before, After map[string]int64
				Op            string
			}
			if err := json.Unmarshal(r.Value, &e); err != nil {
				t.Fatalf("%s: %v", r.Value, err)
			}
			v = fmt.Sprintf("%s %v %v", e.Op, e.Before, e.After)
		}
		got = append(got, string(r.Key)+" "+v)
	}
	want := []string{
		`{"k": 1} c map[] map[k:1 n:10]`,
		`{"k": 1} u map[k:1 n:10] map[k:1 n:11]`,
		`{"k": 1} d map[k:1 n:11] map[]`,
		`{"k": 1} <tombstone>`,
		`{"k": 2} d map[k:2 n:20] map[]`,
		`{"k": 2} <tombstone>`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestProgress checks what a writer reads back as delivered: a delivery
// of another writer still open holds the read back, since the records
// committed after it are not readable before it ends; and a writer that
// takes over a crashed one's transactional id fences it, so the crashed
// writer's open delivery neither counts nor holds the read back.
func TestProgress(t *testing.T) {
	ctx := context.Background()
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	brokers := strings.Join(cluster.ListenAddrs(), ",")
	admin, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := kadm.NewClient(admin).CreateTopic(ctx, 1, -1, nil, "out"); err != nil {
		t.Fatal(err)
	}
	c, err := Parse(map[string]string{"topic": "out", "properties.bootstrap.server": brokers}, []changes.Column{{Name: "id", Type: types.TInt8}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Check(ctx); err != nil {
		t.Fatal(err)
	}
	// begin connects a writer of sink ident's vnode and leaves a delivery
	// of epoch open.
	begin := func(ident string, vnode uint16, epoch uint64) *Writer {
		w := c.NewWriter(ident)
		if err := w.connect(ctx, []uint16{vnode}); err != nil {
			t.Fatal(err)
		}
		if err := w.cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		rec := &kgo.Record{Topic: c.progress, Key: []byte(ident + "/" + strconv.Itoa(int(vnode))), Value: strconv.AppendUint(nil, epoch, 10)}
		if err := w.cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
			t.Fatal(err)
		}
		return w
	}
	read := func(ident string, want map[uint16]uint64) {
		t.Helper()
		got, err := readProgress(ctx, c, ident)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, want) {
			t.Fatalf("sink %s delivered %v, want %v", ident, got, want)
		}
	}

	b := c.NewWriter("b")
	defer b.Close()
	if err := b.connect(ctx, []uint16{0, 1}); err != nil {
		t.Fatal(err)
	}
	a := begin("a", 0, 3)
	if err := b.Write(ctx, []uint16{0, 1}, 5, nil); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	got, err := readProgress(short, c, "b")
	cancel()
	if err == nil {
		t.Fatalf("read %v while a delivery before it was open, want the read to wait for it", got)
	}
	if err := a.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	a.Close()
	read("b", map[uint16]uint64{0: 5, 1: 5})
	read("a", map[uint16]uint64{0: 3})

	// A writer of sink a's vnode 0 crashes mid-delivery; its successor
	// has its transactional id.
	crashed := begin("a", 0, 9)
	defer crashed.Close()
	next := c.NewWriter("a")
	defer next.Close()
	if err := next.connect(ctx, []uint16{0}); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(next.done, map[uint16]uint64{0: 3}) {
		t.Fatalf("the crashed writer's successor read %v as delivered, want epoch 3 of vnode 0", next.done)
	}
}
