// Package rawtcp reads and writes TCP sockets with raw system calls, which
// the Go scheduler does not see.
//
// Every read or write of a net.Conn enters the scheduler's "syscall"
// state. On a process that idles between events, as a server at one
// client idles between a question's model replies, the first such call
// after the idle wakes the runtime's monitor thread (sysmon) from its
// deep sleep; awake, it polls every 20 µs until the process idles again,
// each poll a context switch. The sockets of net are non-blocking, so a
// raw read or write returns at once; when it would block (EAGAIN), the
// connection's poller waits for it as net.Conn would, deadlines included
// (syscall.RawConn). Measured with kgqa/server's BenchmarkLoadFloor and
// BenchmarkLoad: a third fewer context switches per question at one
// client.
//
// Wrap and Listener change nothing where raw calls are not available
// (another OS, a connection that is not TCP) and under the race detector,
// which takes socket I/O for synchronization only when net makes the
// calls: a raw write and the peer's read would show it races that are
// not there.
package rawtcp

import "net"

// Listener wraps ln so that each connection it accepts reads and writes
// with raw system calls (see Wrap).
func Listener(ln net.Listener) net.Listener { return listener{ln, Wrap} }

type listener struct {
	net.Listener
	wrap func(net.Conn) net.Conn
}

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return l.wrap(c), nil
}
