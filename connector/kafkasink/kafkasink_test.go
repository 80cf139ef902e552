package kafkasink

import (
	"errors"
	"testing"

	"github.com/streamdb/streamdb/connector/changes"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
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
		{name: "debezium", opts: base("format", "debezium"), code: pgerror.CodeFeatureNotSupported},
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
