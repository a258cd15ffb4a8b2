package tern_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsLinks keeps README and docs/ navigable: every relative link
// names a file of the repository, and every #fragment a heading of the
// page it points to.
func TestDocsLinks(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range pages {
		text := prose(t, page)
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s links to %s, which is not in the repository", page, target)
					continue
				}
			}
			if fragment != "" && !anchors(t, path)[fragment] {
				t.Errorf("%s links to %s, but %s has no heading with that anchor", page, target, path)
			}
		}
	}
}

// prose is a Markdown file without its fenced code blocks.
func prose(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fenced := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// anchors are the fragments GitHub gives a Markdown file's headings.
func anchors(t *testing.T, path string) map[string]bool {
	out := map[string]bool{}
	drop := regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	for _, line := range strings.Split(prose(t, path), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		heading := strings.TrimSpace(strings.TrimLeft(line, "#"))
		out[strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(heading), ""), " ", "-")] = true
	}
	return out
}
