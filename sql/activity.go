package sql

import (
	"net"
	"sync"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/planner"
)

// activity is what pg_stat_activity shows of a session: what it runs and
// since when. The session's goroutine writes it, statements of other
// sessions read it.
type activity struct {
	mu sync.Mutex
	a  planner.Activity
	// idle ends the connection when it stays idle in a transaction
	// longer than idle_in_transaction_session_timeout.
	idle *time.Timer
}

// register makes the session visible in pg_stat_activity.
func (s *Session) register(remote net.Addr) {
	now := time.Now()
	s.act.a = planner.Activity{PID: s.pid, User: s.user, Application: s.vars.values["application_name"], BackendStart: now, StateChange: now, State: "idle"}
	if tcp, ok := remote.(*net.TCPAddr); ok {
		s.act.a.ClientAddr, s.act.a.ClientPort = tcp.IP.String(), tcp.Port
	}
	s.e.sessions.Store(s.pid, s)
}

// running records that the session runs query, which starts a transaction
// outside a block; it stops the idle-in-transaction timer.
func (s *Session) running(query string) {
	s.act.mu.Lock()
	defer s.act.mu.Unlock()
	if s.act.idle != nil {
		s.act.idle.Stop()
		s.act.idle = nil
	}
	now := time.Now()
	if s.tx == 'I' && s.txn.empty() && s.act.a.State != "active" {
		s.act.a.XactStart = now
	}
	s.act.a.State, s.act.a.Query, s.act.a.QueryStart, s.act.a.StateChange = "active", query, now, now
}

// idle records that the session waits for its client (at ReadyForQuery),
// and, in a transaction, ends the connection after
// idle_in_transaction_session_timeout.
func (s *Session) idle() {
	s.act.mu.Lock()
	defer s.act.mu.Unlock()
	state := "idle"
	switch s.tx {
	case 'I':
		s.act.a.XactStart = time.Time{}
	case 'T':
		state = "idle in transaction"
	case 'E':
		state = "idle in transaction (aborted)"
	}
	s.act.a.State, s.act.a.StateChange = state, time.Now()
	s.act.a.Application = s.vars.values["application_name"]
	if d := s.vars.duration("idle_in_transaction_session_timeout"); d > 0 && s.tx != 'I' && s.act.idle == nil {
		s.act.idle = time.AfterFunc(d, func() {
			if b := s.e.backends.Load(); b != nil {
				(*b).TerminateBackend(uint32(s.pid), pgerror.New(pgerror.CodeIdleInTransactionTimeout, "terminating connection due to idle-in-transaction timeout"))
			}
		})
	}
}

// unregister removes the session from pg_stat_activity when it ends.
func (s *Session) unregister() {
	s.act.mu.Lock()
	if s.act.idle != nil {
		s.act.idle.Stop()
	}
	s.act.mu.Unlock()
	s.e.sessions.CompareAndDelete(s.pid, s)
}

// Activity implements planner.Status: the node's client sessions.
func (e *Engine) Activity() []planner.Activity {
	var out []planner.Activity
	e.sessions.Range(func(_, v any) bool {
		s := v.(*Session)
		s.act.mu.Lock()
		out = append(out, s.act.a)
		s.act.mu.Unlock()
		return true
	})
	return out
}

// Setting implements expr.Backend.
func (s *Session) Setting(name string) (string, bool) {
	if v, ok := s.e.systemParam(name); ok {
		return v, true
	}
	v, err := s.vars.get(name)
	return v, err == nil
}

// sessionStatus is what the session's statements read of the running node
// (the engine's figures) and of the session itself (its settings).
type sessionStatus struct {
	*Engine
	s *Session
}

var _ planner.Status = sessionStatus{}

// Settings implements planner.Status: the session's parameters.
func (st sessionStatus) Settings() []planner.Setting {
	var out []planner.Setting
	for _, v := range st.s.vars.all() {
		name := v[0]
		out = append(out, planner.Setting{Name: displayName(name), Value: v[1], Description: v[2],
			Boot: sessionVars[name].def, Reset: st.s.vars.initial[name]})
	}
	return out
}

// status returns what the session's statements read of the node and of
// the session.
func (s *Session) status() sessionStatus { return sessionStatus{Engine: s.e, s: s} }
