package kafka

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

// FuzzKafkaDecode decodes arbitrary record keys and values as each format
// and encoding does (PLAIN JSON, PLAIN CSV with a header, UPSERT JSON,
// DEBEZIUM JSON; nil values are tombstones): it must never panic, and a
// change that decodes has its primary key.
func FuzzKafkaDecode(f *testing.F) {
	for _, s := range []struct {
		mode       uint8
		key, value string
		tombstone  bool
	}{
		{0, "", `{"id": 1, "name": "a\"b\u00e9", "amount": 12.50, "ts": "2024-01-01T00:00:00Z", "tags": {"x": [1, null]}, "ids": [1, 2]}`, false},
		{0, "", `{"ID": "7", "other": {"nested": [true, false]}, "amount": null}`, false},
		{1, "", "id,name,amount,ts,tags,ids", false},
		{1, "", `1,"a,""b",3.5,2024-01-01 00:00:00+00,"{""a"":1}","{1,2}"`, false},
		{2, `{"id": 3}`, `{"name": "x"}`, false},
		{2, "4", "", true},
		{3, "", `{"payload": {"op": "u", "before": null, "after": {"id": 5, "name": "y"}}}`, false},
		{3, "", `{"schema": {}, "payload": {"op": "d", "before": {"id": 5}, "after": null}}`, false},
		{3, "", "", true},
	} {
		f.Add(s.mode, []byte(s.key), []byte(s.value), s.tombstone)
	}
	ints, _ := types.ArrayOf(types.TInt8)
	cols := []Column{{Name: "id", Type: types.TInt8, Key: true}, {Name: "name", Type: types.TText},
		{Name: "amount", Type: types.TNumeric}, {Name: "ts", Type: types.TTimestampTZ},
		{Name: "tags", Type: types.TJsonb}, {Name: "ids", Type: ints}}
	configs := []Config{{Format: Plain, Encoding: JSON}, {Format: Plain, Encoding: CSV, Delimiter: ',', Header: true},
		{Format: Upsert, Encoding: JSON}, {Format: Debezium, Encoding: JSON}}
	f.Fuzz(func(t *testing.T, mode uint8, key, value []byte, tombstone bool) {
		cfg := configs[int(mode)%len(configs)]
		d := newDecoder(cols, &cfg)
		row := make([]types.Datum, len(cols))
		if !cfg.Format.Keyed() {
			_ = d.decode(value, row)
			return
		}
		if tombstone {
			value = nil
		}
		if _, err := d.decodeChange(key, value, row); err == nil && row[0].IsNull() {
			t.Fatalf("key %q value %q: decoded %s without its key", key, value, render(row))
		}
	})
}
