package meta

import (
	"context"
	"io"
	"log/slog"

	"github.com/hashicorp/go-hclog"
)

// newRaftLogger returns the hclog logger raft and its transport and snapshot
// store write to: warnings and errors go to l, the rest is dropped.
func newRaftLogger(l *slog.Logger) hclog.Logger {
	il := hclog.NewInterceptLogger(&hclog.LoggerOptions{Name: "raft", Level: hclog.Warn, Output: io.Discard})
	il.RegisterSink(slogSink{l})
	return il
}

// routine are raft's warnings that a node joining or catching up logs as a
// matter of course (a new follower has none of the leader's log yet); they
// are logged at info so that a warning means something to act on.
var routine = map[string]bool{
	"failed to get previous log":                 true,
	"appendEntries rejected, sending older logs": true,
	"no known peers, aborting election":          true,
}

// slogSink forwards hclog records of level warn and above to slog. Both
// take attributes as alternating keys and values.
type slogSink struct{ l *slog.Logger }

// Accept implements hclog.SinkAdapter.
func (s slogSink) Accept(name string, level hclog.Level, msg string, args ...any) {
	if level < hclog.Warn {
		return
	}
	lvl := slog.LevelWarn
	switch {
	case level >= hclog.Error:
		lvl = slog.LevelError
	case routine[msg]:
		lvl = slog.LevelInfo
	}
	s.l.Log(context.Background(), lvl, msg, append([]any{"component", name}, args...)...)
}
