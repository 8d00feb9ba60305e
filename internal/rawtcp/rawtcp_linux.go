package rawtcp

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// Conn is a TCP connection whose Read and Write make raw system calls;
// every other method is the connection's own.
type Conn struct {
	*net.TCPConn
	rc syscall.RawConn
	// The state of the read and of the write in progress, for readFn and
	// writeFn, which are bound once: a closure per call would be an
	// allocation per call. net.Conn allows reads (and writes) from
	// several goroutines, so each side has its lock.
	rmu, wmu sync.Mutex
	r, w     ioState
	readFn   func(fd uintptr) bool
	writeFn  func(fd uintptr) bool
}

// ioState is one side's call: the buffer, the bytes done, the error.
type ioState struct {
	p     []byte
	n     int
	errno syscall.Errno
}

// Wrap returns c as a *Conn when it is a *net.TCPConn, else (and under
// the race detector) c itself.
func Wrap(c net.Conn) net.Conn {
	if raceEnabled {
		return c
	}
	return wrap(c)
}

func wrap(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	rw := &Conn{TCPConn: tc, rc: rc}
	rw.readFn, rw.writeFn = rw.readOnce, rw.writeAll
	return rw
}

// Read reads into p as net.Conn's Read does: it waits until bytes come,
// the peer closes (io.EOF) or a deadline passes.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	c.r = ioState{p: p}
	err := c.rc.Read(c.readFn)
	n, errno := c.r.n, c.r.errno
	c.r = ioState{}
	c.rmu.Unlock()
	if err := c.failure("read", err, errno); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// readOnce reads once into c.r.p; false (wait for the socket) when no
// byte is there yet.
func (c *Conn) readOnce(fd uintptr) bool {
	p := c.r.p
	for {
		m, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		c.r.n, c.r.errno = int(m), e
		return true
	}
}

// Write writes all of p as net.Conn's Write does, or fails.
func (c *Conn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	c.w = ioState{p: p}
	err := c.rc.Write(c.writeFn)
	done, errno := c.w.n, c.w.errno
	c.w = ioState{}
	c.wmu.Unlock()
	return done, c.failure("write", err, errno)
}

// writeAll writes what is left of c.w.p; false (wait for the socket)
// when its buffer is full.
func (c *Conn) writeAll(fd uintptr) bool {
	p := c.w.p
	for c.w.n < len(p) {
		m, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[c.w.n])), uintptr(len(p)-c.w.n))
		switch e {
		case 0:
			c.w.n += int(m)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			c.w.errno = e
			return true
		}
	}
	return true
}

// failure is the error of a read or write (op) that ended with err from
// the poller or errno from the system call, nil when neither.
func (c *Conn) failure(op string, err error, errno syscall.Errno) error {
	switch {
	case err != nil:
		return c.opError(op, err)
	case errno != 0:
		return c.opError(op, os.NewSyscallError(op, errno))
	}
	return nil
}

// opError is err as net reports a failed read or write: a *net.OpError
// naming the operation and the two addresses. The raw calls' own errors
// (a deadline, a closed connection) come wrapped as "raw-read" and
// "raw-write"; their cause is kept.
func (c *Conn) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
