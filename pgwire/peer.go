package pgwire

import (
	"context"
	"sync"
	"time"

	"github.com/streamdb/streamdb/pgerror"
)

// peerCheckInterval is how often a statement that runs looks whether its
// client is still connected (PostgreSQL's client_connection_check_interval):
// a client that went away stops its statement within about this long,
// instead of leaving it to run to its end.
const peerCheckInterval = time.Second

// errClientGone is the cause of a statement stopped because its client
// closed the connection; nobody reads it, the log does.
func errClientGone() *pgerror.Error {
	return fatal(pgerror.New(pgerror.CodeConnectionFailure, "connection to client lost"))
}

// watchPeer cancels a running statement with cancel once its client has
// closed the connection, looking every peerCheckInterval (a timer, no
// goroutine, until the first look); stop ends the watch.
func (c *conn) watchPeer(cancel context.CancelCauseFunc) (stop func()) {
	var mu sync.Mutex
	stopped := false
	var t *time.Timer
	check := func() {
		if peerClosed(c.nc) {
			c.log.Info("pgwire: client disconnected while its statement ran; stopping it")
			cancel(errClientGone())
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			t.Reset(peerCheckInterval)
		}
	}
	mu.Lock()
	t = time.AfterFunc(peerCheckInterval, check)
	mu.Unlock()
	return func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
		t.Stop()
	}
}
