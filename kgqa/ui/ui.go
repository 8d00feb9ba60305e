// Package ui is PARoG's web pages: the trace viewer that `parog serve`
// serves at / and /ui/, and the self-contained HTML eval report. Both
// draw with the same JavaScript (assets/draw.js, trace.js, results.js),
// embedded in the binary; nothing is loaded from elsewhere.
package ui

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed assets
var assets embed.FS

// AssetsPrefix is the URL path the assets are served under.
const AssetsPrefix = "/ui/assets/"

// contentSecurityPolicy allows the viewer nothing but its own server.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

func secure(w http.ResponseWriter) {
	w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
}

// ServeIndex writes the viewer's page. It holds no data: everything it
// shows it fetches with the API key the user gives it.
func ServeIndex(w http.ResponseWriter, r *http.Request) {
	secure(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(indexHTML)
}

// indexHTML is the viewer's page, read once (ReadFile copies on each call).
var indexHTML = func() []byte {
	b, err := assets.ReadFile("assets/index.html")
	if err != nil {
		panic(err) // the embedded tree always has assets/index.html
	}
	return b
}()

// Assets serves the viewer's scripts and styles under AssetsPrefix
// (files only, no listings).
func Assets() http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree always has assets/
	}
	files := http.FileServerFS(sub)
	return http.StripPrefix(AssetsPrefix, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") || r.URL.Path == "index.html" {
			http.NotFound(w, r)
			return
		}
		secure(w)
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	}))
}

// shared are the scripts both pages draw with, in load order.
var shared = []string{"draw.js", "trace.js", "results.js"}

// WriteReport writes the HTML eval report: one page with its styles,
// scripts and data inline. data is encoded as JSON for report.js (see
// dataset.HTMLReport for its shape).
func WriteReport(w io.Writer, title string, data any) error {
	js, err := json.Marshal(data) // escapes <, > and &: no "</script>" inside
	if err != nil {
		return fmt.Errorf("ui: report: encode data: %w", err)
	}
	var b bytes.Buffer
	b.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
	b.WriteString(html.EscapeString(title))
	b.WriteString("</title>\n<style>\n")
	if err := appendAsset(&b, "app.css"); err != nil {
		return err
	}
	b.WriteString("</style>\n</head>\n<body>\n<header><h1>")
	b.WriteString(html.EscapeString(title))
	b.WriteString("</h1></header>\n<main id=\"report\"></main>\n<script type=\"application/json\" id=\"report-data\">")
	b.Write(js)
	b.WriteString("</script>\n<script>\n")
	for _, name := range append(shared, "report.js") {
		if err := appendAsset(&b, name); err != nil {
			return err
		}
	}
	b.WriteString("</script>\n</body>\n</html>\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("ui: report: %w", err)
	}
	return nil
}

func appendAsset(b *bytes.Buffer, name string) error {
	src, err := assets.ReadFile("assets/" + name)
	if err != nil {
		return fmt.Errorf("ui: report: %w", err)
	}
	if lower := bytes.ToLower(src); bytes.Contains(lower, []byte("</script")) || bytes.Contains(lower, []byte("</style")) {
		return fmt.Errorf("ui: report: %s cannot be inlined: it closes its element", name)
	}
	b.Write(src)
	b.WriteByte('\n')
	return nil
}
