package server

import (
	"mime"
	"net/http"
	"slices"

	"github.com/gin-gonic/gin"
)

// crossOrigin answers CORS for the origins of server.cors_origins only
// (none by default): a listed origin gets Access-Control-Allow-Origin and
// its preflight (OPTIONS) is answered 204; any other origin gets no CORS
// header, so a browser keeps the response from the page.
func (s *Server) crossOrigin(c *gin.Context) {
	origin := c.GetHeader("Origin")
	if origin == "" || !slices.Contains(s.cfg.CORSOrigins, origin) {
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
