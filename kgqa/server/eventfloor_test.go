//go:build linux

package server_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// eventFloorEnv, set, makes TestEventFloorServer the child of
// BenchmarkEventFloor.
const eventFloorEnv = "PAROG_EVENT_FLOOR"

// BenchmarkEventFloor measures what one network event costs a Go process
// on this machine when the process sleeps between events, as a server at
// one client sleeps between a question's model replies: a child process
// (this test binary) echoes a 1 KB line over kept-alive loopback TCP, one
// line every 25 ms (PAROG_EVENT_PERIOD), and its CPU and context switches
// per line are reported. A question at one client is about six such
// events (the request and five replies; two of the calls go out at once),
// so six times this is the part of BenchmarkLoad's one-client figure that
// no server code can remove.
//
//	PAROG_LOAD_DURATION=10s go test ./kgqa/server -run '^$' -bench 'EventFloor$' -benchtime 1x
func BenchmarkEventFloor(b *testing.B) {
	period := 25 * time.Millisecond
	if v := os.Getenv("PAROG_EVENT_PERIOD"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			b.Fatalf("PAROG_EVENT_PERIOD=%q: want a positive duration", v)
		}
		period = d
	}
	pid, addr := startEcho(b)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	line := []byte(strings.Repeat("x", 1023) + "\n")
	echo := func() {
		if _, err := conn.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := br.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	for range 20 {
		echo()
	}
	n := int(loadDuration(b) / period)
	cpu0, sw0 := procCPUSeconds(b, pid), procSwitches(pid)
	b.ResetTimer()
	for range n {
		time.Sleep(period)
		echo()
	}
	b.StopTimer()
	cpu, sw := procCPUSeconds(b, pid)-cpu0, procSwitches(pid)-sw0
	b.ReportMetric(cpu/float64(n)*1e6, "server_cpu_us/event")
	b.ReportMetric(sw/float64(n), "server_ctxsw/event")
}

// startEcho runs this test binary's TestEventFloorServer as a child and
// returns its pid and address.
func startEcho(b *testing.B) (int, string) {
	return startTestChild(b, "TestEventFloorServer", eventFloorEnv+"=1", "echo listening addr=")
}

// TestEventFloorServer is the echo server of BenchmarkEventFloor, run
// only as its child process (it skips otherwise): it echoes each line of
// each connection until killed.
func TestEventFloorServer(t *testing.T) {
	if os.Getenv(eventFloorEnv) == "" {
		t.Skip("the child process of BenchmarkEventFloor; runs only when it starts it")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("echo listening addr=%s\n", ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer c.Close()
			br := bufio.NewReader(c)
			for {
				line, err := br.ReadSlice('\n')
				if err != nil {
					return
				}
				if _, err := c.Write(line); err != nil {
					return
				}
			}
		}()
	}
}
