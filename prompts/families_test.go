package prompts

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ternhq/tern/models"
)

// TestFamiliesAreTheProfiles: the model profiles are the one table of
// families. Every prompt a profile names has its template, and every
// template serves a profile, so a new family is a row in that table (and
// a template when it needs its own words).
func TestFamiliesAreTheProfiles(t *testing.T) {
	files, err := fs.Glob(systemFS, "system/*.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	var templates []string
	for _, f := range files {
		templates = append(templates, strings.TrimSuffix(strings.TrimPrefix(f, "system/"), ".tmpl"))
	}
	fams := Families()
	for _, p := range models.Profiles() {
		if !slices.Contains(templates, p.Prompt) {
			t.Errorf("profile %s names prompt %q, which has no template in system/", p.Name, p.Prompt)
		}
	}
	for _, name := range templates {
		if !slices.Contains(fams, name) {
			t.Errorf("system/%s.tmpl serves no profile", name)
		}
	}
	if fams[len(fams)-1] != "default" {
		t.Errorf("Families() = %v, want default last", fams)
	}
}

// TestDocsNameTheFamilies keeps the configuration reference true: it
// names every profile and every prompt family, in table order.
func TestDocsNameTheFamilies(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(data)), " ") // lines wrap
	var profiles []string
	for _, p := range models.Profiles() {
		profiles = append(profiles, p.Name)
	}
	if want := "a profile name (" + strings.Join(profiles, ", ") + ")"; !strings.Contains(doc, want) {
		t.Errorf("docs/configuration.md does not name the profiles as %q", want)
	}
	families := Families()
	if want := "system prompt family: " + strings.Join(families[:len(families)-1], ", ") + " or " + families[len(families)-1]; !strings.Contains(doc, want) {
		t.Errorf("docs/configuration.md does not name the prompt families as %q (models.ProfileOverride's doc comment)", want)
	}
}
