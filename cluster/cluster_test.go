package cluster

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

type echoReq struct{ Text string }
type echoResp struct{ Text string }

// startServer serves an echo service, which fails with a PostgreSQL error
// on "fail", and a raw listener for tag 'T' on one Mux.
func startServer(t *testing.T) *Mux {
	t.Helper()
	return startServerTLS(t, nil)
}

// startServerTLS is startServer with the cluster TLS tc (nil: none).
func startServerTLS(t *testing.T, tc *TLS) *Mux {
	t.Helper()
	m, err := ListenTLS("127.0.0.1:0", tc)
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer()
	s.Register(Service("test.Echo", []grpc.MethodDesc{
		Unary("Echo", func(_ context.Context, r *echoReq) (*echoResp, error) {
			if r.Text == "fail" {
				return nil, pgerror.New(pgerror.CodeUndefinedTable, "relation %q does not exist", "x").WithHint("create it")
			}
			return &echoResp{Text: "echo " + r.Text}, nil
		}),
		Unary("Bin", func(_ context.Context, r *Frame) (*Frame, error) {
			return &Frame{B: append([]byte("bin:"), r.B...)}, nil
		}),
	}, nil))
	go s.Serve(m)
	t.Cleanup(func() { s.Stop(); m.Close() })
	return m
}

// TestCallsAndTaggedConnections checks that one address serves gRPC calls
// (JSON messages and frames, PostgreSQL errors intact) and tagged raw
// connections side by side.
func TestCallsAndTaggedConnections(t *testing.T) {
	m := startServer(t)
	raw := m.Listener('T')
	addr := m.Addr().String()
	go func() {
		c, err := raw.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b := make([]byte, 5)
		if _, err := io.ReadFull(c, b); err == nil {
			_, _ = c.Write(append([]byte("got "), b...))
		}
	}()
	c := NewClient(nil)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := Call[echoResp](ctx, c, addr, "/test.Echo/Echo", &echoReq{Text: "hi"})
	if err != nil || resp.Text != "echo hi" {
		t.Fatalf("Echo = %v, %v", resp, err)
	}
	for _, in := range []string{"x", ""} {
		bin, err := Call[Frame](ctx, c, addr, "/test.Echo/Bin", &Frame{B: []byte(in)})
		if err != nil || string(bin.B) != "bin:"+in {
			t.Fatalf("Bin(%q) = %q, %v (want the frame's bytes as they are)", in, bin.B, err)
		}
	}
	_, err = Call[echoResp](ctx, c, addr, "/test.Echo/Echo", &echoReq{Text: "fail"})
	var pe *pgerror.Error
	if !errors.As(err, &pe) || pe.Code != pgerror.CodeUndefinedTable || pe.Hint != "create it" {
		t.Fatalf("error = %v, want the PostgreSQL error with its hint", err)
	}
	conn, err := DialTagged(&Dialer{}, addr, 'T', time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(conn)
	if string(got) != "got hello" {
		t.Fatalf("tagged connection got %q", got)
	}
}

// TestVersionMismatchRefused checks that a caller of another protocol
// version is refused with a message that says what to do.
func TestVersionMismatchRefused(t *testing.T) {
	m := startServer(t)
	c := NewClient(nil)
	defer c.Close()
	cc, err := c.Conn(m.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The client's interceptor sets its version; a second value makes
	// the call's metadata disagree with the server's.
	ctx = metadata.AppendToOutgoingContext(ctx, versionKey, "99")
	err = cc.Invoke(ctx, "/test.Echo/Echo", &echoReq{Text: "hi"}, new(echoResp))
	if err == nil || !strings.Contains(err.Error(), "same streamdb release") {
		t.Fatalf("error = %v, want a protocol version refusal", err)
	}
}

// TestQueues sends a queue's frames between two nodes in order, the
// stream opened before its receiver registered, and ends it at the frame
// the receiver says is the last.
func TestQueues(t *testing.T) {
	m, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c := NewClient(nil)
	defer c.Close()
	q := NewQueues(c, func(node string) (string, error) { return m.Addr().String(), nil })
	s := NewServer()
	s.Register(q.Service())
	go s.Serve(m)
	defer s.Stop()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sender, err := q.Open(ctx, "b", "k1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	done := make(chan struct{})
	go func() {
		time.Sleep(50 * time.Millisecond)
		q.Listen("k1", func(_ context.Context, f []byte) (bool, error) {
			got = append(got, string(f))
			if string(f) == "last" {
				close(done)
				return false, nil
			}
			return true, nil
		})
	}()
	for _, f := range []string{"one", "two", "three", "last"} {
		if err := sender.Send([]byte(f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := sender.Close(); err != nil {
		t.Fatal(err)
	}
	<-done
	if strings.Join(got, ",") != "one,two,three,last" {
		t.Fatalf("frames = %v", got)
	}
}

// TestDialerSource checks that a Mux bound to a specific IP dials from it
// (on Linux every 127/8 address is loopback), and one bound to every
// interface from wherever the system chooses.
func TestDialerSource(t *testing.T) {
	m, err := Listen("127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	peer, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	c, err := DialTagged(m.Dialer(), peer.Addr().String(), 'T', time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := peer.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ip := s.RemoteAddr().(*net.TCPAddr).IP.String(); ip != "127.0.0.2" {
		t.Errorf("a node bound to 127.0.0.2 dialed from %s", ip)
	}
	wild, err := Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	defer wild.Close()
	if d := wild.Dialer(); d.LocalAddr != nil {
		t.Errorf("a node bound to every interface dials from %v", d.LocalAddr)
	}
}

// TestRaftConnectionBeforeItsListener checks that a Raft connection that
// arrives before the Raft transport asks for its listener (a peer
// heartbeating a node that is restarting) waits for that listener rather
// than going to gRPC.
func TestRaftConnectionBeforeItsListener(t *testing.T) {
	m, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	conn, err := DialTagged(&Dialer{}, m.Addr().String(), RaftTag, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	got := make(chan net.Conn, 1)
	go func() {
		if c, err := m.Listener(RaftTag).Accept(); err == nil {
			got <- c
		}
	}()
	select {
	case c := <-got:
		defer c.Close()
		b := make([]byte, 1)
		if _, err := io.ReadFull(c, b); err != nil || b[0] != 'x' {
			t.Fatalf("read %q, %v; want the bytes after the tag", b, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the Raft connection never reached the Raft listener")
	}
}
