package ollamatest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ternhq/tern/models/ollamatest"
)

// The tests in this file hold the fake to the real server's answers
// captured in testdata/wire (a copy of shared/ollama-wire).

func readCapture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "wire", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func decodeAny(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("decode %q: %v", data, err)
	}
	return v
}

// shape replaces every value by its JSON type, keeping object keys and the
// shape of an array's first element: two answers with the same shape have
// the same field names and types.
func shape(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = shape(e)
		}
		return out
	case []any:
		if len(x) == 0 {
			return []any{}
		}
		return []any{shape(x[0])}
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return "?"
}

func do(t *testing.T, method, url, body string) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data, resp.Header
}

func tinyServer(t *testing.T) *ollamatest.Server {
	s := ollamatest.New(t)
	s.AddModel(ollamatest.Tiny())
	s.AddModel(ollamatest.TinyTools())
	return s
}

func TestTagsMatchCapture(t *testing.T) {
	s := tinyServer(t)
	status, got, _ := do(t, "GET", s.URL()+"/api/tags", "")
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	if diff := cmp.Diff(decodeAny(t, readCapture(t, "tags.json")), decodeAny(t, got)); diff != "" {
		t.Errorf("/api/tags differs from the capture (-real +fake):\n%s", diff)
	}
}

func TestShowMatchesCapture(t *testing.T) {
	s := tinyServer(t)
	status, body, _ := do(t, "POST", s.URL()+"/api/show", `{"model":"tiny-tools"}`)
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	want := decodeAny(t, readCapture(t, "show-tiny-tools.json")).(map[string]any)
	got := decodeAny(t, body).(map[string]any)
	if diff := cmp.Diff(shape(want), shape(got)); diff != "" {
		t.Errorf("shape differs (-real +fake):\n%s", diff)
	}
	for _, key := range []string{"model_info", "capabilities", "template", "parameters", "modified_at"} {
		if diff := cmp.Diff(want[key], got[key]); diff != "" {
			t.Errorf("%s differs (-real +fake):\n%s", key, diff)
		}
	}
	wantDetails, gotDetails := want["details"].(map[string]any), got["details"].(map[string]any)
	delete(wantDetails, "parent_model") // the capture's model was created from a local file
	delete(gotDetails, "parent_model")
	if diff := cmp.Diff(wantDetails, gotDetails); diff != "" {
		t.Errorf("details differ (-real +fake):\n%s", diff)
	}
}

func TestVersionMatchesCapture(t *testing.T) {
	s := tinyServer(t)
	_, body, _ := do(t, "GET", s.URL()+"/api/version", "")
	if diff := cmp.Diff(shape(decodeAny(t, readCapture(t, "version.json"))), shape(decodeAny(t, body))); diff != "" {
		t.Errorf("shape differs (-real +fake):\n%s", diff)
	}
	if want := `{"version":"0.17.4"}`; string(body) != want {
		t.Errorf("version body = %s, want %s", body, want)
	}
}

func TestChatStreamMatchesCapture(t *testing.T) {
	capture := readCapture(t, "chat-stream.ndjson")
	var wantLines []map[string]any
	var chunks []string
	for line := range bytes.Lines(capture) {
		m := decodeAny(t, line).(map[string]any)
		wantLines = append(wantLines, m)
		if m["done"] == false {
			chunks = append(chunks, m["message"].(map[string]any)["content"].(string))
		}
	}
	s := tinyServer(t)
	s.Script(ollamatest.Reply{Chunks: chunks, DoneReason: "length"})
	status, body, header := do(t, "POST", s.URL()+"/api/chat",
		`{"model":"tiny","messages":[{"role":"user","content":"hi"}],"options":{"num_ctx":2048}}`)
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	if ct := header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("Content-Type = %q", ct)
	}
	var gotLines []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		gotLines = append(gotLines, decodeAny(t, sc.Bytes()).(map[string]any))
	}
	if len(gotLines) != len(wantLines) {
		t.Fatalf("%d lines, the capture has %d:\n%s", len(gotLines), len(wantLines), body)
	}
	for i := range wantLines {
		if diff := cmp.Diff(shape(wantLines[i]), shape(gotLines[i])); diff != "" {
			t.Errorf("line %d shape differs (-real +fake):\n%s", i+1, diff)
		}
		if diff := cmp.Diff(wantLines[i]["message"], gotLines[i]["message"]); diff != "" {
			t.Errorf("line %d message differs (-real +fake):\n%s", i+1, diff)
		}
	}
	last := gotLines[len(gotLines)-1]
	for _, k := range []string{"total_duration", "load_duration", "prompt_eval_duration", "eval_duration", "eval_count", "prompt_eval_count"} {
		if n, _ := last[k].(float64); n <= 0 {
			t.Errorf("final line %s = %v, want > 0", k, last[k])
		}
	}
	if last["done_reason"] != "length" {
		t.Errorf("done_reason = %v", last["done_reason"])
	}
}

func TestChatNoStreamMatchesCapture(t *testing.T) {
	s := tinyServer(t)
	s.Script(ollamatest.Reply{Content: "qudestroy Wrestling pushed ej сп irtual align", DoneReason: "length"})
	status, body, _ := do(t, "POST", s.URL()+"/api/chat",
		`{"model":"tiny","messages":[{"role":"user","content":"hi"}],"stream":false}`)
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	if diff := cmp.Diff(shape(decodeAny(t, readCapture(t, "chat-nostream.json"))), shape(decodeAny(t, body))); diff != "" {
		t.Errorf("shape differs (-real +fake):\n%s", diff)
	}
}

func TestEmbedMatchesCapture(t *testing.T) {
	s := tinyServer(t)
	status, body, _ := do(t, "POST", s.URL()+"/api/embed", `{"model":"tiny","input":["hello world","why is the sky blue"]}`)
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	if diff := cmp.Diff(shape(decodeAny(t, readCapture(t, "embed.json"))), shape(decodeAny(t, body))); diff != "" {
		t.Errorf("shape differs (-real +fake):\n%s", diff)
	}
	var got struct{ Embeddings [][]float64 }
	_ = json.Unmarshal(body, &got)
	if len(got.Embeddings) != 2 {
		t.Fatalf("%d vectors, want 2", len(got.Embeddings))
	}
	for i, v := range got.Embeddings {
		var sum float64
		for _, x := range v {
			sum += x * x
		}
		if len(v) != 8 || math.Abs(sum-1) > 1e-5 {
			t.Errorf("vector %d: %d dims, norm² %v; want 8 dims, unit norm like the capture", i, len(v), sum)
		}
	}
}

func TestPsMatchesCapture(t *testing.T) {
	s := tinyServer(t)
	s.Script(ollamatest.Reply{Content: "hi"})
	do(t, "POST", s.URL()+"/api/chat", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"options":{"num_ctx":2048}}`)
	_, body, _ := do(t, "GET", s.URL()+"/api/ps", "")
	want, got := decodeAny(t, readCapture(t, "ps.json")), decodeAny(t, body)
	if diff := cmp.Diff(shape(want), shape(got)); diff != "" {
		t.Errorf("shape differs (-real +fake):\n%s", diff)
	}
	m := got.(map[string]any)["models"].([]any)[0].(map[string]any)
	if m["name"] != "tiny:latest" || m["context_length"] != 2048.0 {
		t.Errorf("ps = %s, want tiny:latest loaded with context_length 2048", body)
	}
}

// The error captures hold the body on the first line and "HTTP nnn" on the
// second; the fake's bodies must be byte-identical.
func TestErrorBodiesMatchCaptures(t *testing.T) {
	tests := []struct {
		capture, path, body string
	}{
		{"error-model-not-found.txt", "/api/chat", `{"model":"nope","messages":[{"role":"user","content":"hi"}]}`},
		{"error-no-tools.txt", "/api/chat", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{}}}}]}`},
		{"error-no-thinking.txt", "/api/chat", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"think":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.capture, func(t *testing.T) {
			wantBody, wantStatus, _ := strings.Cut(strings.TrimSpace(string(readCapture(t, tt.capture))), "\n")
			code, err := strconv.Atoi(strings.TrimPrefix(wantStatus, "HTTP "))
			if err != nil {
				t.Fatal(err)
			}
			s := tinyServer(t)
			status, body, header := do(t, "POST", s.URL()+tt.path, tt.body)
			if status != code || string(body) != wantBody {
				t.Errorf("got HTTP %d %s\nwant HTTP %d %s", status, body, code, wantBody)
			}
			if ct := header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
}

func TestTruncationMatchesCapture(t *testing.T) {
	s := tinyServer(t)
	s.Script(ollamatest.Reply{Content: "a b c d", DoneReason: "length"})
	// About 3,000 tokens at four bytes a token, as in the capture.
	long := strings.Repeat("lorem ipsum dolor sit amet ", 450)
	body, _ := json.Marshal(map[string]any{
		"model":    "tiny",
		"messages": []map[string]string{{"role": "user", "content": long}},
		"stream":   false,
		"options":  map[string]any{"num_ctx": 512},
	})
	status, got, _ := do(t, "POST", s.URL()+"/api/chat", string(body))
	if status != 200 {
		t.Fatalf("status %d: %s (the real server truncates silently)", status, got)
	}
	want := decodeAny(t, readCapture(t, "truncation-512.json")).(map[string]any)
	gotMap := decodeAny(t, got).(map[string]any)
	delete(gotMap, "message") // removed from the capture
	if diff := cmp.Diff(shape(want), shape(gotMap)); diff != "" {
		t.Errorf("shape differs (-real +fake):\n%s", diff)
	}
	if gotMap["prompt_eval_count"] != 512.0 {
		t.Errorf("prompt_eval_count = %v, want 512 (reported after truncation)", gotMap["prompt_eval_count"])
	}
	rec := s.Records()[0]
	if !rec.Truncated || rec.PromptTokens < 3000 {
		t.Errorf("record = %+v, want truncated from ~3,000 tokens", rec)
	}
}
