package agent

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ternhq/tern/models"
)

func TestCacheUse(t *testing.T) {
	tools := []models.ToolSpec{{Name: "read_file", Parameters: json.RawMessage(`{"type":"object"}`)}}
	req := func(model string, system string, msgs ...string) models.Request {
		r := models.Request{Model: model, Tools: tools, Options: models.Options{NumCtx: 8192},
			Messages: []models.Message{{Role: models.RoleSystem, Content: system}}}
		for _, m := range msgs {
			r.Messages = append(r.Messages, models.Message{Role: models.RoleUser, Content: m})
		}
		return r
	}
	first := req("m", "You are tern.", "question one")
	for _, tc := range []struct {
		name    string
		next    models.Request
		metrics models.Metrics
		want    int
		est     bool
		grown   bool
	}{
		{"the history grew: its old part is reused", req("m", "You are tern.", "question one", "question two, as long as one"),
			models.Metrics{PromptTokens: 1000}, 0, true, true},
		{"another system prompt: nothing", req("m", "You are someone else.", "question one", "two"), models.Metrics{PromptTokens: 1000}, 0, true, false},
		{"another model: nothing", req("n", "You are tern.", "question one", "two"), models.Metrics{PromptTokens: 1000}, 0, true, false},
		{"the model was loaded: nothing", req("m", "You are tern.", "question one", "two"),
			models.Metrics{PromptTokens: 1000, LoadDuration: 2 * time.Second}, 0, true, false},
		{"the server's own count wins", req("m", "You are tern.", "question one", "two"),
			models.Metrics{PromptTokens: 1000, CachedTokens: 640, CacheReported: true}, 640, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &Agent{}
			a.cacheUse(first, models.Metrics{PromptTokens: 500}, &Usage{PromptTokens: 500})
			u := &Usage{PromptTokens: tc.metrics.PromptTokens}
			a.cacheUse(tc.next, tc.metrics, u)
			want := tc.want
			if tc.grown {
				// The first request's bytes, of the grown one's.
				want = 1000 * bytesOf(printOf(first)) / bytesOf(printOf(tc.next))
			}
			if u.CachedTokens != want || u.CacheEstimated != tc.est {
				t.Errorf("cached %d (estimated %v), want %d (%v)", u.CachedTokens, u.CacheEstimated, want, tc.est)
			}
		})
	}
}

func bytesOf(p promptPrint) int {
	n := 0
	for _, s := range p.sizes {
		n += s
	}
	return n
}

func TestDoneSummary(t *testing.T) {
	for _, tc := range []struct {
		d    Done
		want string
	}{
		{Done{Turns: 2, PromptTokens: 4100, CachedTokens: 3608, CacheEstimated: true, EvalTokens: 312, Duration: 14230 * time.Millisecond},
			"2 requests · 4.1k in, ~88% cached · 312 out · 14.2s"},
		{Done{Turns: 1, PromptTokens: 900, CachedTokens: 0, EvalTokens: 40, Duration: time.Second}, "1 request · 900 in, 0% cached · 40 out · 1s"},
		{Done{Turns: 1}, "1 request · ? in · 0 out · 0s"},
	} {
		if got := tc.d.Summary(); got != tc.want {
			t.Errorf("Summary() = %q, want %q", got, tc.want)
		}
	}
}
