package openai_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/openai"
)

// TestChatLimits: a server that sends no headers, one that streams far
// past the reply's size or max_tokens, and one that falls silent each
// end the reply with an error that names the limit, quickly.
func TestChatLimits(t *testing.T) {
	piece := `data: {"choices":[{"index":0,"delta":{"content":"%s"}}]}` + "\n\n"
	cases := []struct {
		name    string
		handler http.HandlerFunc
		set     func(*openai.Client)
		want    error
		says    string
	}{
		{"no headers", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}, func(c *openai.Client) { c.HeaderTimeout = 100 * time.Millisecond }, models.ErrStalled, "no response headers"},
		{"endless stream", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for r.Context().Err() == nil {
				if _, err := fmt.Fprintf(w, piece, strings.Repeat("x", 1000)); err != nil {
					return
				}
			}
		}, func(c *openai.Client) { c.MaxReplyBytes = 64 << 10 }, models.ErrReplyTooLong, "65536 bytes"},
		{"past max_tokens", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for r.Context().Err() == nil {
				if _, err := fmt.Fprintf(w, piece, "x"); err != nil {
					return
				}
			}
		}, func(c *openai.Client) {}, models.ErrReplyTooLong, "max_tokens"},
		{"silent", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, piece, "hello")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, func(c *openai.Client) { c.IdleTimeout = 100 * time.Millisecond }, models.ErrIncomplete, "sent nothing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body) // so the server notices the client leave
				tc.handler(w, r)
			}))
			defer srv.Close()
			c, err := openai.New(srv.URL, "")
			if err != nil {
				t.Fatal(err)
			}
			tc.set(c)
			req := models.Request{Model: "m", Messages: []models.Message{{Role: models.RoleUser, Content: "hi"}}, Options: models.Options{NumPredict: 64}}
			start := time.Now()
			_, err = c.Chat(t.Context(), req, nil)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("err = %v; want %v saying %q", err, tc.want, tc.says)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}
