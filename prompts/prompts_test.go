package prompts

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s changed; run go test ./prompts -update if intended.\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestRenderGolden(t *testing.T) {
	readFile := models.ToolSpec{
		Name:        "read_file",
		Description: "Read a text file.",
		Parameters: models.Schema(
			models.Param{Name: "path", Type: "string", Required: true},
			models.Param{Name: "offset", Type: "integer"},
		),
	}
	tests := []struct {
		name string
		in   System
	}{
		{"default", System{Family: "llama", Repo: "demo"}},
		{"qwen", System{Family: "qwen3", Repo: "demo"}},
		{"notes", System{Family: "gemma3", Repo: "demo", Notes: "Run `make test` before committing."}},
		{"texttools", System{Family: "llama", Repo: "demo", TextTools: []models.ToolSpec{readFile}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Render(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, got)
			again, _ := Render(tt.in)
			if again != got {
				t.Error("Render is not deterministic")
			}
		})
	}
}

func TestTemplateFor(t *testing.T) {
	for family, want := range map[string]string{"qwen3": "qwen", "Qwen2": "qwen", "llama": "default", "": "default"} {
		if got := TemplateFor(family); got != want {
			t.Errorf("TemplateFor(%q) = %q, want %q", family, got, want)
		}
	}
}

func TestProjectNotes(t *testing.T) {
	dir := t.TempDir()
	if notes, _, _, err := ProjectNotes(dir, 100); err != nil || notes != "" {
		t.Fatalf("no notes file: got %q, %v", notes, err)
	}
	body := strings.Repeat("line of notes\n", 20)
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	notes, name, cut, err := ProjectNotes(dir, 60)
	if err != nil || name != "AGENTS.md" || !cut {
		t.Fatalf("got name=%q cut=%v err=%v", name, cut, err)
	}
	if !strings.HasSuffix(notes, "(AGENTS.md continues; read it with read_file)") || strings.Count(notes, "line of notes") > 4 {
		t.Errorf("notes not cut at a line with a pointer to the rest:\n%s", notes)
	}
}
