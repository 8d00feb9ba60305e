package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/parog/parog-go/kgqa"
	"github.com/parog/parog-go/kgqa/api"
)

// entity serves GET /v1/entities/{id}: the entity's name and relations,
// or 404 when the KG has neither.
func (s *Server) entity(c *gin.Context) {
	id := c.Param("id")
	d := s.graph.Dialect()
	if !d.ValidEntity(id) {
		s.fail(c, errorf(http.StatusBadRequest, "%q is not a %s entity id", truncate(id, 64), d.Name()))
		return
	}
	ctx, cancel := s.kgContext(c)
	defer cancel()
	name, err := s.graph.Name(ctx, id)
	if err != nil {
		s.fail(c, err)
		return
	}
	rels, err := s.graph.Relations(ctx, id)
	if err != nil {
		s.fail(c, err)
		return
	}
	if name == "" && len(rels) == 0 {
		// Well formed but absent: nothing names it and no edge touches it.
		// A mediator node has no name but has relations, and is found.
		s.fail(c, errorf(http.StatusNotFound, "entity %s is not in the knowledge graph", id))
		return
	}
	resp := api.EntityResponse{ID: id, Name: name, Relations: rels}
	if resp.Relations == nil {
		resp.Relations = []kgqa.Relation{}
	}
	if len(resp.Relations) > api.MaxEntityRelationsListed {
		resp.Relations, resp.Truncated = resp.Relations[:api.MaxEntityRelationsListed], true
	}
	c.JSON(http.StatusOK, resp)
}

// searchEntities serves GET /v1/entities?name=...&limit=...: entity
// linking by name.
func (s *Server) searchEntities(c *gin.Context) {
	name := strings.TrimSpace(c.Query("name"))
	if name == "" {
		s.fail(c, errorf(http.StatusBadRequest, "query parameter name is required"))
		return
	}
	if !utf8.ValidString(name) || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		s.fail(c, errorf(http.StatusBadRequest, "name must be UTF-8 text without control characters"))
		return
	}
	if n := len([]rune(name)); n > 200 {
		s.fail(c, errorf(http.StatusBadRequest, "name is %d characters long, at most 200 allowed", n))
		return
	}
	limit := api.DefaultSearchLimit
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > api.MaxSearchLimit {
			s.fail(c, errorf(http.StatusBadRequest, "limit must be an integer between 1 and %d, got %q", api.MaxSearchLimit, truncate(v, 20)))
			return
		}
		limit = n
	}
	ctx, cancel := s.kgContext(c)
	defer cancel()
	ents, err := s.graph.Search(ctx, name, limit)
	if err != nil {
		s.fail(c, err)
		return
	}
	if ents == nil {
		ents = []kgqa.Entity{}
	}
	c.JSON(http.StatusOK, api.SearchResponse{Name: name, Entities: ents})
}

// kgContext bounds a debugging lookup by server.sparql_timeout.
func (s *Server) kgContext(c *gin.Context) (context.Context, context.CancelFunc) {
	t := s.cfg.SPARQLTimeout
	if t <= 0 {
		t = 10 * time.Second
	}
	return context.WithTimeout(c.Request.Context(), t)
}
