//go:build linux

package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/sync/errgroup"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/config"
	"github.com/parog/parog-go/kgqa/llm"
	"github.com/parog/parog-go/kgqa/llm/llmtest"
)

// floorModelEnv names the scripted model's URL for the floor server; set,
// it makes TestLoadFloorServer the child of BenchmarkLoadFloor.
const floorModelEnv = "PAROG_LOAD_FLOOR_MODEL"

// floorCalls is the demo question's model traffic as `parog serve` sends
// it (strace of BenchmarkLoad): the plan, then two calls at once, then one;
// each a prompt of this many bytes.
var floorCalls = [][]int{{4400}, {2200, 1300}, {3800}}

// floorAnswerBytes is the size of the demo question's answer body.
const floorAnswerBytes = 4400

// BenchmarkLoadFloor is BenchmarkLoad's three levels against a server
// that does nothing but what every answer of the demo question makes any
// server do: a gin route on net/http reads the request, sends the
// question's four model calls (the same client, the same prompt sizes,
// one, two at once, one) to the scripted model at 50 ms per call, and
// writes an answer body of the real one's size, made once. No plan, no
// KG, no prompt templates, no trace. Its CPU per request is the floor
// under `parog serve`'s on this machine: the Go runtime, the kernel's
// loopback TCP and the HTTP framing of five exchanges.
//
//	PAROG_LOAD_DURATION=15s go test ./kgqa/server -run '^$' -bench 'LoadFloor$' -benchtime 1x
func BenchmarkLoadFloor(b *testing.B) {
	dur := loadDuration(b)
	model := llmtest.New(b, llmtest.WithHandler(func(openai.ChatCompletionRequest) llmtest.Reply { return llmtest.Text(floorReply) }), llmtest.WithDelay(50*time.Millisecond), llmtest.WithoutLog())
	child := startFloor(b, model.URL())
	c, done := loadClient(b, child.url)
	defer done()
	req := api.AskRequest{Question: capitalQ, TopicEntities: []string{france}}
	if _, err := c.Ask(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	for _, clients := range []int{1, 50, 200} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			runLevel(b, child.pid, c, req, clients, dur)
		})
	}
}

// floorReply is a model reply of the demo's size (about 500 bytes on the
// wire with the envelope).
var floorReply = strings.Repeat("evidence ", 30)

// startFloor runs this test binary's TestLoadFloorServer as a child
// process and returns its address once it listens.
func startFloor(b *testing.B, modelURL string) serveChild {
	pid, addr := startTestChild(b, "TestLoadFloorServer", floorModelEnv+"="+modelURL, "floor listening addr=")
	return serveChild{pid: pid, url: "http://" + addr}
}

// startTestChild runs this test binary's test as a child process with
// env added (the test serves only when it is set) and returns its pid and
// the address it prints after prefix. The child gets SIGTERM when b ends
// and dies with this process.
func startTestChild(b *testing.B, test, env, prefix string) (int, string) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.timeout=0")
	cmd.Env = append(childEnv(), env)
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if addr, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return cmd.Process.Pid, addr
		}
	}
	b.Fatalf("%s exited before listening: %v", test, sc.Err())
	return 0, ""
}

// TestLoadFloorServer is the floor server of BenchmarkLoadFloor, run only
// as its child process (it skips otherwise); it serves until SIGTERM.
func TestLoadFloorServer(t *testing.T) {
	modelURL := os.Getenv(floorModelEnv)
	if modelURL == "" {
		t.Skip("the child process of BenchmarkLoadFloor; runs only when it starts it")
	}
	client, err := llm.New(config.LLM{Reasoner: config.Endpoint{BaseURL: modelURL, Model: "scripted",
		APIKey: "llmtest", Timeout: 30 * time.Second, Concurrency: 1024}})
	if err != nil {
		t.Fatal(err)
	}
	calls := make([][]kgqa.ChatRequest, len(floorCalls))
	for i, step := range floorCalls {
		for _, n := range step {
			calls[i] = append(calls[i], kgqa.ChatRequest{Role: kgqa.Reasoner, Stage: "refine",
				Messages: []kgqa.Message{{Role: "user", Content: strings.Repeat("x", n)}}})
		}
	}
	answer, err := json.Marshal(api.AskResponse{Question: capitalQ, Answer: strings.Repeat("Paris ", floorAnswerBytes/6)})
	if err != nil {
		t.Fatal(err)
	}
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.POST("/v1/ask", func(c *gin.Context) {
		if _, err := io.Copy(io.Discard, c.Request.Body); err != nil {
			c.AbortWithStatus(http.StatusBadRequest)
			return
		}
		for _, step := range calls {
			g, ctx := errgroup.WithContext(c.Request.Context())
			for _, req := range step {
				g.Go(func() error { _, err := client.Chat(ctx, req); return err })
			}
			if err := g.Wait(); err != nil {
				c.AbortWithStatus(http.StatusBadGateway)
				return
			}
		}
		c.Data(http.StatusOK, "application/json", answer)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() { <-ctx.Done(); _ = srv.Close() }()
	fmt.Printf("floor listening addr=%s\n", ln.Addr())
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		t.Fatal(err)
	}
}
