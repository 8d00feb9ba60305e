package server

import (
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"
)

// crossOrigin answers CORS for the origins of server.cors_origins only
// (none by default): a listed origin gets Access-Control-Allow-Origin and
// its preflight (OPTIONS) is answered 204; any other origin gets no CORS
// header, so a browser keeps the response from the page.
//
// Before that, a request to /sparql or /v1/* that a page of another
// origin made the browser send is refused (crossSite), GET included.
func (s *Server) crossOrigin(c *gin.Context) {
	origin := c.GetHeader("Origin")
	allowed := origin != "" && slices.Contains(s.cfg.CORSOrigins, origin)
	if !allowed && s.guarded(c.Request.URL.Path) && crossSite(c.Request, s.cfg.CORSOrigins) {
		s.fail(c, errorf(http.StatusForbidden, "cross-site request refused: a page of another origin cannot use this endpoint unless server.cors_origins lists it"))
		return
	}
	if !allowed {
		if c.Request.Method == http.MethodOptions && origin != "" {
			s.fail(c, errorf(http.StatusForbidden, "origin %q is not allowed (server.cors_origins)", truncate(origin, 100)))
		}
		return
	}
	h := c.Writer.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", "Retry-After, X-Request-Id, X-Parog-Truncated")
	if c.Request.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Request-Id, X-Requested-With")
		h.Set("Access-Control-Max-Age", "600")
		c.AbortWithStatus(http.StatusNoContent)
	}
}

// guarded reports whether path does work a page of another site must not
// start: the API and the SPARQL endpoint. The viewer's own pages and files
// are not: they load through its origin.
func (s *Server) guarded(path string) bool {
	return path == "/sparql" || strings.HasPrefix(path, "/v1/")
}

// crossSite reports whether a browser sent r on behalf of a page of
// another origin. Fetch metadata says so even for what a page can send
// without CORS (an <img>, a form): Sec-Fetch-Site is cross-site, or
// same-site for another port or subdomain of the same site. An Origin
// header naming another host says so too, for browsers that send no
// fetch metadata. So does a Referer alone naming another host than an
// allowed origin (an older browser, or a request whose other headers were
// stripped). A request without any of them (curl, the Go client, the
// address bar) is not cross-site.
func crossSite(r *http.Request, allowed []string) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		return true
	}
	foreign := func(ref string) bool {
		u, err := url.Parse(ref)
		return err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host)
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		return foreign(origin)
	}
	ref := r.Header.Get("Referer")
	if ref == "" || !foreign(ref) {
		return false
	}
	u, _ := url.Parse(ref)
	return u == nil || !slices.Contains(allowed, u.Scheme+"://"+u.Host)
}

// simpleTypes are the content types a web page may POST to any site
// without a preflight (an HTML form, or fetch with no-cors).
var simpleTypes = map[string]bool{
	"": true, "application/x-www-form-urlencoded": true, "multipart/form-data": true, "text/plain": true,
}

// requireNonSimplePost refuses a POST that any web page could send across
// sites: one with a form or plain-text content type (or none) and neither
// an Authorization nor an X-Requested-With header. A browser sends such
// headers, or application/json, only after a CORS preflight, which
// crossOrigin grants to the configured origins alone.
func (s *Server) requireNonSimplePost(c *gin.Context) {
	if c.Request.Method != http.MethodPost {
		return
	}
	mt, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type"))
	// mime.ParseMediaType lower-cases the type (and gives "" when it fails).
	if !simpleTypes[mt] || c.GetHeader("Authorization") != "" || c.GetHeader("X-Requested-With") != "" {
		return
	}
	if mt == "text/plain" {
		// Refused by every handler with 415, which names the right type.
		return
	}
	s.fail(c, errorf(http.StatusForbidden, "a POST with content type %q needs an X-Requested-With header (or Authorization), so that no web page can send it across sites; or send application/json (application/sparql-query for /sparql)", mt))
}
