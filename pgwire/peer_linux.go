package pgwire

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// peerClosed reports whether the client of nc has closed the connection: a
// peek at the socket, without blocking or consuming what it sent, finds
// the end of the stream (or the connection reset).
func peerClosed(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	var b [1]byte
	err = raw.Read(func(fd uintptr) bool {
		n, _, rerr := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		closed = n == 0 && rerr == nil || rerr == unix.ECONNRESET
		return true
	})
	return err == nil && closed
}
