//go:build !linux

package pgwire

import "net"

// peerClosed reports false: only Linux looks at the socket.
func peerClosed(net.Conn) bool { return false }
