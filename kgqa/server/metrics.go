package server

import (
	"time"

	"github.com/gin-gonic/gin"

	"github.com/parog/parog-go/kgqa/kg"
)

// observe counts requests and their latency by route template, and the KG
// work done outside the engine (entities, /sparql, readiness).
func (s *Server) observe(c *gin.Context) {
	start := time.Now()
	s.metrics.RequestStarted()
	st := &kg.Stats{}
	c.Request = c.Request.WithContext(kg.WithStats(c.Request.Context(), st))
	defer func() {
		route := c.FullPath()
		if route == "" {
			route = "unmatched"
		}
		code := c.Writer.Status()
		if he, ok := c.Get(ctxError); ok && he.(*httpError).status == statusClientClosed {
			code = statusClientClosed
		}
		s.metrics.RequestDone(route, c.Request.Method, code, time.Since(start))
		s.metrics.ObserveKG(st.Queries.Load(), st.CacheHits.Load(), st.CacheMisses.Load())
		s.metrics.ObserveKGQueries(st.Usage())
	}()
	c.Next()
}

func (s *Server) metricsHandler(c *gin.Context) {
	s.metrics.Handler().ServeHTTP(c.Writer, c.Request)
}
