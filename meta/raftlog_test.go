package meta

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

func TestRaftLogLevels(t *testing.T) {
	tests := []struct {
		name  string
		level hclog.Level
		msg   string
		args  []any
		want  string // the slog level, "" for dropped
	}{
		{"debug is dropped", hclog.Debug, "entering follower state", nil, ""},
		{"first election of a start", hclog.Warn, electionStart, []any{"last-leader-addr", "", "last-leader-id", ""}, "INFO"},
		{"election after a leader was lost", hclog.Warn, electionStart, []any{"last-leader-addr", "127.0.0.1:5566", "last-leader-id", "n1"}, "WARN"},
		{"routine catch-up", hclog.Warn, "failed to get previous log", nil, "INFO"},
		{"other warnings", hclog.Warn, "failed to contact", []any{"server-id", "n2"}, "WARN"},
		{"errors", hclog.Error, "failed to appendEntries to", nil, "ERROR"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		sink := slogSink{slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))}
		sink.Accept("raft", tt.level, tt.msg, tt.args...)
		got := ""
		if _, rest, ok := strings.Cut(buf.String(), "level="); ok {
			got, _, _ = strings.Cut(rest, " ")
		}
		if got != tt.want {
			t.Errorf("%s: logged at %q, want %q (%s)", tt.name, got, tt.want, buf.String())
		}
	}
}
