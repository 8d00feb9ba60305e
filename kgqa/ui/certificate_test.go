package ui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parog/parog-go/kgqa/api"
	"github.com/parog/parog-go/kgqa/ui/browsertest"
)

// TestViewerRunsCertificate asks the conjunction question in the viewer,
// then uses the certificate panel: the query shown is the answer's
// certificate, Copy selects it, and Run sends it through /sparql and shows
// the rows, which are the answer's entities.
func TestViewerRunsCertificate(t *testing.T) {
	b := browsertest.New(t)
	url := newServer(t, t.TempDir())
	client, err := api.NewClient(url, api.WithAPIKey(apiKey))
	require.NoError(t, err)
	resp, err := client.Ask(context.Background(), api.AskRequest{Question: nijmegen})
	require.NoError(t, err)
	require.NotNil(t, resp.Certificate)
	require.True(t, resp.Certificate.Verified, "the demo answer's certificate verifies: %s", resp.Certificate.Error)
	var want []string
	for _, e := range resp.Entities {
		want = append(want, "ns:"+e.ID)
	}
	require.Equal(t, []string{"ns:m.0345h"}, want, "the demo answer is Germany")

	b.Run(30*time.Second, chromedp.Navigate(url+"/"), chromedp.WaitVisible("#api-key"),
		chromedp.SendKeys("#api-key", apiKey+"\n"), chromedp.WaitVisible("#question"))
	assert.True(t, browsertest.Eval[bool](b, `document.getElementById("certificate").hidden`), "no certificate before an answer")
	b.Run(30*time.Second, chromedp.SendKeys("#question", nijmegen+"\n"), chromedp.WaitVisible(".certificate .cert-sparql"))

	shown := browsertest.Eval[string](b, `document.querySelector(".cert-sparql").textContent`)
	assert.Equal(t, resp.Certificate.SPARQL, shown, "the panel shows the certificate's query")
	assert.Contains(t, browsertest.Eval[string](b, `document.querySelector(".cert-state").textContent`), "verified · covers: all")

	b.Run(10*time.Second, chromedp.Click(".cert-copy"))
	b.WaitTrue(10*time.Second, `document.querySelector(".cert-note").textContent !== ""`)
	assert.Equal(t, strings.TrimSpace(shown), strings.TrimSpace(browsertest.Eval[string](b, `window.getSelection().toString()`)), "Copy selects the query it copies")

	b.Run(10*time.Second, chromedp.Click(".cert-run"))
	b.WaitTrue(30*time.Second, `document.querySelector(".cert-rows, .cert-failed") !== null`)
	require.Empty(t, browsertest.Eval[string](b, `(document.querySelector(".cert-failed") || {}).textContent || ""`))
	assert.Equal(t, []string{"answer"}, browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll(".cert-table th")).map(th => th.textContent)`))
	// Each entity shows its name before its id, once the names are in.
	b.WaitTrue(30*time.Second, `document.querySelector(".cert-note").textContent === "ran the query on this server's KG"`)
	assert.Equal(t, []string{"Germany ns:m.0345h"}, browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll(".cert-table tbody td")).map(td => td.textContent)`))
	assert.Equal(t, want, browsertest.Eval[[]string](b, `Array.from(document.querySelectorAll(".cert-table tbody td .cert-id")).map(td => td.textContent)`))
	assert.Equal(t, "1 row", browsertest.Eval[string](b, `document.querySelector(".cert-count").textContent`))
	b.FullScreenshot(browsertest.ScreenshotDir(t), "viewer-certificate")
	assert.Empty(t, b.Errors(), "console errors (a CSP refusal shows here)")
}

// TestViewerCertificateFailure runs a certificate whose query the server
// refuses: the panel says why, and a row without a query shows the
// certificate's error and no buttons.
func TestViewerCertificateFailure(t *testing.T) {
	b := browsertest.New(t)
	url := newServer(t, t.TempDir())
	b.Run(30*time.Second, chromedp.Navigate(url+"/"), chromedp.WaitVisible("#api-key"),
		chromedp.SendKeys("#api-key", apiKey+"\n"), chromedp.WaitVisible("#question"))
	drop := func(name, text string) {
		b.Run(10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => {
			const dt = new DataTransfer();
			dt.items.add(new File([`+"`"+text+"`"+`], "`+name+`", {type: "application/json"}));
			document.body.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
		})()`))
		b.WaitTrue(10*time.Second, `document.getElementById("status").textContent === "opened `+name+`"`)
	}
	drop("bad.json", `{"question":"q","answer":"x","plan":{"version":1,"subgoals":[]},"subgoals":[],"certificate":{"sparql":"DELETE WHERE { ?s ?p ?o }","verified":false,"covers":"all","rows":0}}`)
	b.Run(10*time.Second, chromedp.Click(".cert-run"))
	b.WaitTrue(30*time.Second, `document.querySelector(".cert-failed") !== null`)
	assert.Contains(t, browsertest.Eval[string](b, `document.querySelector(".cert-failed").textContent`), "the query failed: ")
	assert.Zero(t, browsertest.Eval[int](b, `document.querySelectorAll(".cert-table").length`))

	drop("none.json", `{"question":"q","answer":"x","plan":{"version":1,"subgoals":[]},"subgoals":[],"certificate":{"sparql":"","verified":false,"covers":"none","rows":0,"error":"the model answered without the KG"}}`)
	assert.Equal(t, "the model answered without the KG", browsertest.Eval[string](b, `document.querySelector(".cert-error").textContent`))
	assert.Zero(t, browsertest.Eval[int](b, `document.querySelectorAll(".cert-run, .cert-copy, .cert-sparql").length`))
	// The server's 400 for the refused query is the one logged error.
	for _, e := range b.Errors() {
		assert.Contains(t, e, "400")
	}
}
