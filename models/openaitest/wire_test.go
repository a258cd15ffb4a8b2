package openaitest_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/models/openai"
	"github.com/ternhq/tern/models/openaitest"
)

// TestCapturesParse plays each captured-style stream of testdata to the
// client, as the server would send it.
func TestCapturesParse(t *testing.T) {
	tests := []struct {
		file     string
		content  string
		thinking string
		call     string
		prompt   int
	}{
		{"llama-server-toolcall.sse", "I'll read it.", "", `read_file {"path": "README.md"}`, 1187},
		{"llama-server-reasoning.sse", "Hello!", "The user greets me.", "", 0},
		{"vllm-toolcall.sse", "", "", `read_file {"path": "README.md"}`, 1190},
		{"vllm-reasoning.sse", "Hello!", "The user greets me.", "", 14},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write(body)
			}))
			defer srv.Close()
			c, _ := openai.New(srv.URL, "")
			r, err := c.Chat(t.Context(), models.Request{Model: "m", Messages: []models.Message{{Role: models.RoleUser, Content: "hi"}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			call := ""
			if len(r.Message.ToolCalls) == 1 {
				call = r.Message.ToolCalls[0].Name + " " + string(r.Message.ToolCalls[0].Arguments)
			}
			if r.Message.Content != tt.content || r.Message.Thinking != tt.thinking || call != tt.call ||
				r.Metrics.PromptTokens != tt.prompt || r.DoneReason != "stop" {
				t.Errorf("reply %+v, call %q", r, call)
			}
		})
	}
	for _, file := range []string{"llama-server-overflow.json", "llama-server-nojinja.json", "vllm-notools.json"} {
		t.Run(file, func(t *testing.T) {
			body, _ := os.ReadFile(filepath.Join("testdata", file))
			status := map[string]int{"llama-server-overflow.json": 400, "llama-server-nojinja.json": 500, "vllm-notools.json": 400}[file]
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(status)
				w.Write(body)
			}))
			defer srv.Close()
			c, _ := openai.New(srv.URL, "")
			r, err := c.Chat(t.Context(), models.Request{Model: "m", Messages: []models.Message{{Role: models.RoleUser, Content: "hi"}},
				Options: models.Options{NumCtx: 8192}}, nil)
			switch {
			case strings.Contains(file, "overflow"):
				if err != nil || r.DoneReason != "length" || r.Metrics.PromptTokens != 9310 {
					t.Errorf("reply %+v, err %v", r, err)
				}
			default:
				if !errorsIsNoTools(err) {
					t.Errorf("err = %v", err)
				}
			}
		})
	}
}

func errorsIsNoTools(err error) bool {
	return err != nil && strings.Contains(err.Error(), models.ErrNoTools.Error())
}

// TestFakeMatchesCaptures checks that the fake streams events of the same
// shapes (the same key paths) as the captured-style streams.
func TestFakeMatchesCaptures(t *testing.T) {
	tests := []struct {
		file   string
		flavor openaitest.Flavor
		reply  openaitest.Reply
		think  bool
		usage  bool
	}{
		{"llama-server-toolcall.sse", openaitest.LlamaServer, openaitest.Reply{Content: "I'll read it.", ToolCalls: []openaitest.Call{{Name: "read_file", Args: `{"path": "README.md"}`}}}, false, true},
		{"llama-server-reasoning.sse", openaitest.LlamaServer, openaitest.Reply{Thinking: "The user greets me.", Content: "Hello!"}, true, false},
		{"vllm-toolcall.sse", openaitest.VLLM, openaitest.Reply{ToolCalls: []openaitest.Call{{Name: "read_file", Args: `{"path": "README.md"}`}}}, false, true},
		{"vllm-reasoning.sse", openaitest.VLLM, openaitest.Reply{Thinking: "The user greets me.", Content: "Hello!"}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			srv := openaitest.New(t, openaitest.WithFlavor(tt.flavor))
			srv.Script(tt.reply)
			body := `{"model":"` + srv.Model() + `","stream":true,"messages":[{"role":"user","content":"hi"}],` +
				`"tools":[{"type":"function","function":{"name":"read_file","description":"","parameters":{"type":"object","properties":{}}}}],` +
				`"chat_template_kwargs":{"enable_thinking":` +
				map[bool]string{true: "true", false: "false"}[tt.think] + `}`
			if tt.usage {
				body += `,"stream_options":{"include_usage":true}`
			}
			resp, err := http.Post(srv.URL()+"/v1/chat/completions", "application/json", strings.NewReader(body+"}"))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Errorf("content type %q", resp.Header.Get("Content-Type"))
			}
			if w, g := shapes(t, string(want)), shapes(t, string(got)); !slices.Equal(w, g) {
				t.Errorf("event shapes differ\ncaptured:\n  %s\nfake:\n  %s", strings.Join(w, "\n  "), strings.Join(g, "\n  "))
			}
		})
	}
}

// shapes lists the distinct key-path sets of a stream's events.
func shapes(t *testing.T, stream string) []string {
	t.Helper()
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(stream))
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		var paths []string
		walk("", v, &paths)
		sort.Strings(paths)
		seen[strings.Join(slices.Compact(paths), " ")] = true
	}
	var out []string
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func walk(prefix string, v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			walk(prefix+"."+k, e, out)
		}
		if len(x) == 0 {
			*out = append(*out, prefix+"{}")
		}
	case []any:
		for _, e := range x {
			walk(prefix+"[]", e, out)
		}
		if len(x) == 0 {
			*out = append(*out, prefix+"[]")
		}
	default:
		// The timings' per-token figures are derived numbers the fake leaves out.
		if !strings.Contains(prefix, "_per_") {
			*out = append(*out, prefix)
		}
	}
}
