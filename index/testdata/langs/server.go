// Package server answers HTTP requests for the shop.
package server

import (
	"errors"
	"net/http"
	"sync"
)

// ErrClosed is returned after Close.
var ErrClosed = errors.New("server closed")

const (
	// DefaultPort is used when none is configured.
	DefaultPort = 8080
	maxConns    = 64
)

// Config holds the settings read from the config file.
type Config struct {
	Addr    string
	Timeout int
}

type (
	// Handler answers one request.
	Handler interface {
		Serve(w http.ResponseWriter, r *http.Request) error
	}
	routeTable map[string]Handler
)

// Server routes requests to handlers.
type Server struct {
	mu     sync.Mutex
	routes routeTable
	closed bool
}

// NewServer returns a server with no routes.
func NewServer(cfg Config) *Server {
	return &Server{routes: make(routeTable)}
}

// Handle registers h for the path.
func (s *Server) Handle(path string, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes[path] = h
}

// ServeHTTP dispatches to the registered handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	h, ok := s.routes[r.URL.Path]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if err := h.Serve(w, r); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

func parseConfigFile(data []byte) (Config, error) {
	if len(data) == 0 {
		return Config{}, errors.New("empty config")
	}
	return Config{Addr: string(data)}, nil
}
