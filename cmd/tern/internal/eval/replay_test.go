package eval

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ternhq/tern/models/ollamatest"
	"github.com/ternhq/tern/models/openaitest"
)

func suiteTask(t *testing.T, name string) Task {
	t.Helper()
	tasks, err := Load(Suite())
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if task.Name == name {
			return task
		}
	}
	t.Fatalf("the suite has no task %s", name)
	return Task{}
}

// getJSON decodes the JSON of GET url into v.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

func TestReplayServerOllama(t *testing.T) {
	t.Parallel()
	task := suiteTask(t, "find-definition")
	srv, name, err := ReplayServer(task, false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	want, _ := ollamatest.Preset(task.Replay.Model)
	if name != want.Name {
		t.Errorf("model %q, want the task's %q", name, want.Name)
	}
	var tags struct{ Models []struct{ Name string } }
	getJSON(t, srv.URL()+"/api/tags", &tags)
	if len(tags.Models) != 1 || tags.Models[0].Name != name {
		t.Errorf("the fake Ollama serves %+v, want only %s", tags.Models, name)
	}
}

func TestReplayServerOpenAI(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		task  string
		tools bool
	}{
		{"find-definition", true},
		{"text-protocol", false}, // a model without tools: llama-server without --jinja
	} {
		t.Run(tt.task, func(t *testing.T) {
			t.Parallel()
			srv, name, err := ReplayServer(suiteTask(t, tt.task), true)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			var models struct{ Data []struct{ ID string } }
			getJSON(t, srv.URL()+"/v1/models", &models)
			if len(models.Data) != 1 || models.Data[0].ID != name {
				t.Errorf("the fake llama-server serves %+v, want %s", models.Data, name)
			}
			var props struct {
				Settings struct {
					NCtx int `json:"n_ctx"`
				} `json:"default_generation_settings"`
				Caps struct {
					Tools bool `json:"supports_tools"`
				} `json:"chat_template_caps"`
			}
			getJSON(t, srv.URL()+"/props", &props)
			if props.Settings.NCtx != replayWindow || props.Caps.Tools != tt.tools {
				t.Errorf("props: window %d, tools %v; want %d, %v", props.Settings.NCtx, props.Caps.Tools, replayWindow, tt.tools)
			}
		})
	}
}

func TestReplayServerUnknownModel(t *testing.T) {
	t.Parallel()
	task := suiteTask(t, "find-definition")
	task.Replay.Model = "gpt-17"
	for _, openAI := range []bool{false, true} {
		if _, _, err := ReplayServer(task, openAI); err == nil || !strings.HasPrefix(err.Error(), "task find-definition: unknown model preset") {
			t.Errorf("openAI %v: err = %v, want the task and the unknown preset named", openAI, err)
		}
	}
}

func TestOpenAIReply(t *testing.T) {
	t.Parallel()
	in := ollamatest.Reply{
		Content: "c", Thinking: "th", Chunks: []string{"c"}, ChunkDelay: time.Millisecond,
		Status: 500, Error: "boom", StreamError: "cut", DropAfter: 2,
		DoneReason: "length", PromptEvalCount: 42,
		ToolCalls: []ollamatest.Call{{Name: "grep", Args: `{"pattern":"x"}`}},
	}
	got := openAIReply(in)
	want := openaitest.Reply{
		Content: "c", Thinking: "th", Chunks: []string{"c"}, ChunkDelay: time.Millisecond,
		Status: 500, Error: "boom", StreamError: "cut", DropAfter: 2,
		FinishReason: "length", PromptTokens: 42,
		ToolCalls: []openaitest.Call{{Name: "grep", Args: `{"pattern":"x"}`}},
	}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("openAIReply:\n%s\nwant:\n%s", gotJSON, wantJSON)
	}
}

func TestIsolatedEnv(t *testing.T) {
	t.Parallel()
	user := map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "XDG_CONFIG_HOME": "/home/u/.config", "OLLAMA_HOST": "gpu:11434", "TERN_MODEL": "big"}
	env := IsolatedEnv("/tmp/t1", func(k string) string { return user[k] })
	for key, want := range map[string]string{
		"PATH": "/usr/bin", "HOME": "/tmp/t1/home", "XDG_CONFIG_HOME": "/tmp/t1/home", "OLLAMA_HOST": "", "TERN_MODEL": "",
	} {
		if got := env(key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
}
