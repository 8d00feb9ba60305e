package server

import (
	_ "embed"
	"net/http"

	"github.com/gin-gonic/gin"
)

// OpenAPI is the OpenAPI 3 document of the API, served at /openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte

func (s *Server) openapi(c *gin.Context) {
	c.Data(http.StatusOK, "application/yaml", OpenAPI)
}
