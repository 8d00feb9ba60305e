package main

import (
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
)

// newProgress is the progress bar of every command, writing to env.Stderr.
// On a terminal it redraws one line in place. Written to anything else (a
// log file, a pipe, CI) it writes each state as a line of its own, at most
// one every lineEvery, since a carriage return there runs every state
// together on one line.
func newProgress(env *Env, max int64, opts ...progressbar.Option) *progressbar.ProgressBar {
	if isTerminal(env.Stderr) {
		return progressbar.NewOptions64(max, append([]progressbar.Option{progressbar.OptionSetWriter(env.Stderr)}, opts...)...)
	}
	opts = append([]progressbar.Option{progressbar.OptionSetWriter(lineWriter{env.Stderr})}, opts...)
	// Every line ends itself: no newline to add on completion.
	opts = append(opts, progressbar.OptionThrottle(lineEvery), progressbar.OptionSetRenderBlankState(false),
		progressbar.OptionOnCompletion(func() {}))
	return progressbar.NewOptions64(max, opts...)
}

// lineEvery is how often a progress bar not on a terminal writes a line.
const lineEvery = 5 * time.Second

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;]*[a-zA-Z]`)

// lineWriter turns a progress bar's redraws (a carriage return, the state,
// padding, ANSI erase codes) into newline-terminated lines, dropping the
// blank ones a redraw clears the line with.
type lineWriter struct{ w io.Writer }

func (l lineWriter) Write(p []byte) (int, error) {
	var b strings.Builder
	split := func(r rune) bool { return r == '\r' || r == '\n' }
	for _, seg := range strings.FieldsFunc(ansiEscape.ReplaceAllString(string(p), ""), split) {
		if seg = strings.TrimRight(seg, " "); strings.TrimSpace(seg) != "" {
			b.WriteString(seg)
			b.WriteByte('\n')
		}
	}
	if b.Len() == 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(l.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}
