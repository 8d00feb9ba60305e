package server

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"syscall"

	"github.com/gin-gonic/gin"

	"github.com/parog/parog-go/kgqa/ui"
)

// WithFiles sets the directory whose files the viewer may open by path
// (GET /ui/files/{path}, behind the API key): saved traces and results
// files. Paths cannot leave it, through ".." or symbolic links. Without
// it (the default) no file is served.
func WithFiles(dir string) Option { return func(s *Server) { s.files = dir } }

// uiIndex serves the trace viewer's page at / and /ui/.
func (s *Server) uiIndex(c *gin.Context) { ui.ServeIndex(c.Writer, c.Request) }

// uiAuthResponse is the body of GET /ui/auth.
type uiAuthResponse struct {
	// KeyRequired: the API wants a key.
	KeyRequired bool `json:"key_required"`
	// Ask: questions are answered (a model is configured).
	Ask bool `json:"ask"`
	// Model names the scripted demo model when it answers (WithDemo).
	Model string `json:"model,omitempty"`
	// Questions are the questions it answers, for the viewer to list.
	Questions []DemoQuestion `json:"questions,omitempty"`
}

// uiAuth serves GET /ui/auth: whether the API wants a key, so that the
// viewer asks for one before it sends any request that needs it; whether
// questions are answered, and by the scripted demo model with its
// questions (WithDemo).
func (s *Server) uiAuth(c *gin.Context) {
	c.JSON(http.StatusOK, uiAuthResponse{KeyRequired: len(s.keys) > 0, Ask: s.checkEngine() == nil,
		Model: s.demo.Label, Questions: s.demo.Questions})
}

// uiFile serves GET /ui/files/{path}: a file under the WithFiles
// directory, for the viewer to open.
func (s *Server) uiFile(c *gin.Context) {
	if s.files == "" {
		s.fail(c, errorf(http.StatusNotFound, "no files directory is configured (parog serve --files DIR)"))
		return
	}
	name := strings.TrimPrefix(c.Param("path"), "/")
	if name == "" || !fs.ValidPath(name) {
		s.fail(c, errorf(http.StatusBadRequest, "not a file path relative to the files directory: %q", name))
		return
	}
	root, err := os.OpenRoot(s.files)
	if err != nil {
		s.log.Error("ui: open files directory", "dir", s.files, "error", err)
		s.fail(c, errorf(http.StatusInternalServerError, "the files directory cannot be opened"))
		return
	}
	defer root.Close()
	// O_NONBLOCK: opening a named pipe for reading blocks until a writer
	// comes, and the handler would outlive its client; the type is checked
	// on the opened handle, so nothing can be swapped in between. On a
	// regular file the flag changes nothing.
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			s.fail(c, errorf(http.StatusNotFound, "no such file: %s", name))
			return
		}
		s.fail(c, errorf(http.StatusForbidden, "cannot open %s", name))
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		// A directory, pipe, socket or device is not a file the viewer
		// opens: as good as absent.
		s.fail(c, errorf(http.StatusNotFound, "not a regular file: %s", name))
		return
	}
	c.Header("Content-Type", "text/plain; charset=utf-8")
	c.Header("X-Content-Type-Options", "nosniff")
	http.ServeContent(c.Writer, c.Request, "", st.ModTime(), f)
}
