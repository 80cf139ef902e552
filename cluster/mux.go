package cluster

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// RaftTag is the first byte of a Raft connection on the cluster address.
// gRPC connections start with the HTTP/2 preface ("PRI * ..."), so any
// byte but 'P' can tag another protocol.
const RaftTag byte = 'R'

// tags are the tags of the protocols on the cluster address besides gRPC.
var tags = []byte{RaftTag}

// peekTimeout bounds how long an accepted connection may take to send its
// first byte.
const peekTimeout = 10 * time.Second

// Mux accepts connections on one address and hands each to a listener by
// its first byte: tagged ones to the listener of their tag (the tag is
// consumed), all others to the default listener (gRPC), with their first
// byte kept.
type Mux struct {
	ln     net.Listener
	tls    *tls.Config // the client side of the cluster's TLS; nil: none
	def    *subListener
	mu     sync.Mutex
	tagged map[byte]*subListener
	done   chan struct{}
	once   sync.Once
}

// Listen starts a Mux on addr without TLS.
func Listen(addr string) (*Mux, error) { return ListenTLS(addr, nil) }

// ListenTLS starts a Mux on addr whose connections, accepted and dialed,
// run the cluster's mutual TLS t (nil: plain TCP). An accepted
// connection's handshake happens within peekTimeout, like its first byte.
func ListenTLS(addr string, t *TLS) (*Mux, error) {
	var server, client *tls.Config
	if t != nil {
		var err error
		if server, client, err = t.configs(); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cluster: listen on %s: %w (is another node using that port? choose one with --cluster-addr)", addr, err)
	}
	if server != nil {
		ln = tls.NewListener(ln, server)
	}
	m := &Mux{ln: ln, tls: client, tagged: map[byte]*subListener{}, done: make(chan struct{})}
	m.def = m.newSub()
	// Every tag has its listener before the first connection arrives: a
	// Raft connection from a peer that finds this node restarting waits
	// for the Raft transport instead of going to gRPC, which would leave
	// it unanswered until the peer's I/O timeout.
	for _, tag := range tags {
		m.tagged[tag] = m.newSub()
	}
	go m.accept()
	return m, nil
}

// Addr returns the bound address.
func (m *Mux) Addr() net.Addr { return m.ln.Addr() }

// Default returns the listener of untagged connections.
func (m *Mux) Default() net.Listener { return m.def }

// Listener returns the listener of connections tagged tag.
func (m *Mux) Listener(tag byte) net.Listener {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.tagged[tag]
	if !ok {
		l = m.newSub()
		m.tagged[tag] = l
	}
	return l
}

// Close stops accepting; the sub-listeners return net.ErrClosed.
func (m *Mux) Close() error {
	var err error
	m.once.Do(func() {
		close(m.done)
		err = m.ln.Close()
	})
	return err
}

func (m *Mux) newSub() *subListener {
	return &subListener{m: m, conns: make(chan net.Conn)}
}

func (m *Mux) accept() {
	for {
		c, err := m.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			m.Close()
			return
		}
		go m.route(c)
	}
}

// route reads c's first byte and hands c to its listener.
func (m *Mux) route(c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(peekTimeout))
	br := bufio.NewReader(c)
	first, err := br.Peek(1)
	_ = c.SetReadDeadline(time.Time{})
	if err != nil {
		c.Close()
		return
	}
	m.mu.Lock()
	l, tagged := m.tagged[first[0]]
	m.mu.Unlock()
	if tagged {
		_, _ = br.Discard(1)
	} else {
		l = m.def
	}
	select {
	case l.conns <- &bufferedConn{Conn: c, r: br}:
	case <-m.done:
		c.Close()
	}
}

// Dialer returns the dialer of connections to other nodes: they leave
// from the Mux's IP when it binds a specific one rather than every
// interface, so that a node's cluster traffic comes from its cluster
// address (the interface chosen for it on a host with several; on one
// machine, each node's own loopback address), over the cluster's TLS if
// it has one.
func (m *Mux) Dialer() *Dialer {
	d := &Dialer{TLS: m.tls}
	if a, ok := m.ln.Addr().(*net.TCPAddr); ok && !a.IP.IsUnspecified() {
		d.LocalAddr = &net.TCPAddr{IP: a.IP}
	}
	return d
}

// DialTagged connects with d to the Mux at addr as a connection tagged
// tag.
func DialTagged(d *Dialer, addr string, tag byte, timeout time.Duration) (net.Conn, error) {
	dd := *d
	dd.Timeout = timeout
	c, err := dd.Dial(context.Background(), addr)
	if err != nil {
		return nil, err
	}
	if _, err := c.Write([]byte{tag}); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// subListener is one of a Mux's listeners.
type subListener struct {
	m     *Mux
	conns chan net.Conn
}

// Accept implements net.Listener.
func (l *subListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.m.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener: it closes the whole Mux.
func (l *subListener) Close() error { return l.m.Close() }

// Addr implements net.Listener.
func (l *subListener) Addr() net.Addr { return l.m.Addr() }

// bufferedConn is a connection whose first bytes were read ahead.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

// Read implements net.Conn.
func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
