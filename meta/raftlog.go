package meta

import (
	"context"
	"fmt"
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

// electionStart is what raft warns when a follower's heartbeat timeout
// passes; before any leader was known (every start, a one-node cluster's
// included) it is the routine first election.
const electionStart = "heartbeat timeout reached, starting election"

// noLeaderYet reports whether raft's attributes args name no last leader.
func noLeaderYet(args []any) bool {
	for i := 0; i+1 < len(args); i += 2 {
		if k, _ := args[i].(string); k == "last-leader-addr" || k == "last-leader-id" {
			if v := fmt.Sprint(args[i+1]); v != "" {
				return false
			}
		}
	}
	return true
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
	case routine[msg], msg == electionStart && noLeaderYet(args):
		lvl = slog.LevelInfo
	}
	s.l.Log(context.Background(), lvl, msg, append([]any{"component", name}, args...)...)
}
