// Package prompts renders the model-facing text tern sends: the system
// prompt for each model family, the text tool protocol for models that
// cannot take tools natively, and the summary prompt of compaction. The text lives in embedded template files next
// to this code, covered by golden tests, because every token of it is paid
// for on every request.
//
// prompts imports models only.
package prompts

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/ternhq/tern/models"
)

//go:embed system/*.tmpl
var systemFS embed.FS

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"params": paramList,
}).ParseFS(systemFS, "system/*.tmpl"))

// System is what a system prompt is rendered from.
type System struct {
	// Family is the model family from /api/show ("qwen3", "llama", …); it
	// picks the template.
	Family string
	// Repo is the repository's name, for orientation.
	Repo string
	// Notes are the project notes (AGENTS.md), already cut to size.
	Notes string
	// TextTools, when not empty, are described in the prompt with the text
	// tool protocol, for models without native tool support.
	TextTools []models.ToolSpec
}

// familyTemplates maps family prefixes to template names; the first match
// wins, and "default" serves the rest.
var familyTemplates = []struct{ prefix, name string }{
	{"qwen", "qwen"},
}

// TemplateFor returns the name of the system template used for family.
func TemplateFor(family string) string {
	family = strings.ToLower(family)
	for _, ft := range familyTemplates {
		if strings.HasPrefix(family, ft.prefix) {
			return ft.name
		}
	}
	return "default"
}

// Render returns the system prompt. The output depends only on s, so the
// same session always sends the same bytes.
func Render(s System) (string, error) {
	var b bytes.Buffer
	name := TemplateFor(s.Family) + ".tmpl"
	if err := templates.ExecuteTemplate(&b, name, s); err != nil {
		return "", fmt.Errorf("render system prompt %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}

// paramList renders a tool's parameters compactly: "path*, offset, limit"
// (a star marks the required ones).
func paramList(t models.ToolSpec) string {
	var parts []string
	for _, p := range models.SchemaParams(t.Parameters) {
		name := p.Name
		if p.Required {
			name += "*"
		}
		parts = append(parts, name)
	}
	return strings.Join(parts, ", ")
}
