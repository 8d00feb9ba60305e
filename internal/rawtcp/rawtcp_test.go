//go:build linux

package rawtcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pair is a connected loopback TCP pair: a is raw (Wrap), b is plain.
func pair(t testing.TB) (a net.Conn, b *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	done := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		done <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	s := <-done
	require.NotNil(t, s)
	t.Cleanup(func() { _ = c.Close(); _ = s.Close() })
	a = wrap(c)
	require.IsType(t, &Conn{}, a)
	return a, s.(*net.TCPConn)
}

// TestLargeWritesBothWays sends 8 MB each way at once: the writes fill
// the socket buffers, so both sides meet EAGAIN and partial writes.
func TestLargeWritesBothWays(t *testing.T) {
	a, b := pair(t)
	data := make([]byte, 8<<20)
	for i := range data {
		data[i] = byte(rand.IntN(256))
	}
	errc := make(chan error, 2)
	go func() {
		n, err := a.Write(data)
		if err == nil && n != len(data) {
			err = io.ErrShortWrite
		}
		errc <- err
	}()
	go func() {
		_, err := b.Write(data)
		errc <- err
	}()
	gotA, gotB := make([]byte, len(data)), make([]byte, len(data))
	readc := make(chan error, 1)
	go func() { _, err := io.ReadFull(b, gotB); readc <- err }()
	_, err := io.ReadFull(a, gotA)
	require.NoError(t, err)
	require.NoError(t, <-readc)
	require.NoError(t, <-errc)
	require.NoError(t, <-errc)
	assert.True(t, bytes.Equal(data, gotA), "what the raw side read")
	assert.True(t, bytes.Equal(data, gotB), "what the plain side read from the raw side")
}

func TestReadEOF(t *testing.T) {
	a, b := pair(t)
	_, err := b.Write([]byte("last words"))
	require.NoError(t, err)
	require.NoError(t, b.CloseWrite())
	got, err := io.ReadAll(a)
	require.NoError(t, err)
	assert.Equal(t, "last words", string(got))
	n, err := a.Read(make([]byte, 8))
	assert.Equal(t, 0, n)
	assert.Equal(t, io.EOF, err)
}

// TestErrorsAsNet holds the raw side's errors to what the same
// connection unwrapped reports: a passed deadline, a closed connection.
func TestErrorsAsNet(t *testing.T) {
	_, b := pair(t)
	raw := wrap(b)
	buf := make([]byte, 8)

	require.NoError(t, b.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
	_, plainErr := b.Read(buf)
	require.NoError(t, b.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
	_, rawErr := raw.Read(buf)
	require.Error(t, rawErr)
	assert.Equal(t, plainErr.Error(), rawErr.Error())
	assert.ErrorIs(t, rawErr, os.ErrDeadlineExceeded)
	var ne net.Error
	require.ErrorAs(t, rawErr, &ne)
	assert.True(t, ne.Timeout())

	require.NoError(t, b.Close())
	_, plainErr = b.Read(buf)
	_, rawErr = raw.Read(buf)
	assert.Equal(t, plainErr.Error(), rawErr.Error())
	assert.ErrorIs(t, rawErr, net.ErrClosed)
	_, rawErr = raw.Write(buf)
	assert.ErrorIs(t, rawErr, net.ErrClosed)
}

// TestDeadlineEndsPendingRead: a read waiting for bytes ends when another
// goroutine moves the deadline into the past, as net/http aborts its
// background read when a handler finishes.
func TestDeadlineEndsPendingRead(t *testing.T) {
	a, _ := pair(t)
	errc := make(chan error, 1)
	go func() { _, err := a.Read(make([]byte, 8)); errc <- err }()
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, a.SetReadDeadline(time.Unix(1, 0)))
	select {
	case err := <-errc:
		var ne net.Error
		require.ErrorAs(t, err, &ne)
		assert.True(t, ne.Timeout())
	case <-time.After(5 * time.Second):
		t.Fatal("the pending read did not end")
	}
}

// TestWriteToResetPeer: writing to a peer that reset the connection
// fails with the system's error, as net.Conn's Write does.
func TestWriteToResetPeer(t *testing.T) {
	a, b := pair(t)
	require.NoError(t, b.SetLinger(0))
	require.NoError(t, b.Close()) // an RST
	var err error
	for range 100 {
		if _, err = a.Write(make([]byte, 1<<16)); err != nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	require.Error(t, err)
	assert.True(t, errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE), "%v", err)
	var oe *net.OpError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "write", oe.Op)
}

func TestWrapLeavesOtherConns(t *testing.T) {
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	assert.Same(t, c1, wrap(c1))
	assert.Same(t, c1, Wrap(c1))
}

// TestHTTPServerOnListener serves HTTP over Listener: kept-alive requests
// with bodies, and a client that hangs up mid-request cancels the
// handler's context (net/http's background read sees the close).
func TestHTTPServerOnListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	cancelled := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(w, r.Body) })
	mux.HandleFunc("/wait", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		close(cancelled)
	})
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(listener{ln, wrap}) }()
	defer hs.Close()
	url := "http://" + ln.Addr().String()

	body := bytes.Repeat([]byte("0123456789"), 50_000)
	for range 3 {
		resp, err := http.Post(url+"/echo", "text/plain", bytes.NewReader(body))
		require.NoError(t, err)
		got, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.True(t, bytes.Equal(body, got))
	}

	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/wait", nil)
	require.NoError(t, err)
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	_, err = http.DefaultClient.Do(req)
	require.Error(t, err)
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler's context was not cancelled when the client hung up")
	}
}

// BenchmarkPingPong is one 1 KB exchange over loopback, the raw side
// against net.Conn's own Read and Write.
func BenchmarkPingPong(b *testing.B) {
	for _, raw := range []bool{false, true} {
		name := "net"
		if raw {
			name = "raw"
		}
		b.Run(name, func(b *testing.B) {
			a, peer := pair(b)
			if !raw {
				a = a.(*Conn).TCPConn
			}
			go func() { _, _ = io.Copy(peer, peer) }()
			msg, got := make([]byte, 1024), make([]byte, 1024)
			for b.Loop() {
				if _, err := a.Write(msg); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(a, got); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestConcurrentWritesDoNotInterleave: each Write goes out whole, as
// net.Conn's do, when several goroutines write at once (each side of a
// Conn has its own lock around its call's state).
func TestConcurrentWritesDoNotInterleave(t *testing.T) {
	a, b := pair(t)
	const writers, block = 4, 256 << 10
	errc := make(chan error, writers)
	for w := range writers {
		go func() {
			_, err := a.Write(bytes.Repeat([]byte{byte('A' + w)}, block))
			errc <- err
		}()
	}
	got := make([]byte, writers*block)
	_, err := io.ReadFull(b, got)
	require.NoError(t, err)
	for range writers {
		require.NoError(t, <-errc)
	}
	seen := map[byte]bool{}
	for i := 0; i < len(got); i += block {
		c := got[i]
		require.False(t, seen[c], "block %c twice", c)
		seen[c] = true
		require.Equal(t, bytes.Repeat([]byte{c}, block), got[i:i+block], "block at %d interleaved", i)
	}
}
