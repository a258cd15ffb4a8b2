package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixtureFiles is a small repository: code, docs with awkward names, a
// .gitignore and what it ignores, a binary, Latin-1 text and a long file.
var fixtureFiles = map[string]string{
	".gitignore":                  "*.log\nbuild/\nsecret.txt\n",
	"main.go":                     "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n",
	"agent/loop.go":               "package agent\n\n// Run runs the loop.\nfunc Run() error {\n\treturn retry(3)\n}\n\nfunc retry(n int) error { return nil }\n",
	"agent/loop_test.go":          "package agent\n\nimport \"testing\"\n\nfunc TestRun(t *testing.T) {\n\tif err := Run(); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n",
	"agent/sub/deep/x.go":         "package deep\n",
	"docs/notes with spaces.md":   "# Notes\n\nRetry after a failure (once).\n",
	"ünï/файл.txt":                "привет мир\n",
	"latin1.txt":                  "caf\xe9 au lait\nna\xefve\n",
	"img/logo.png":                "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10",
	"build/out.txt":               "retry in build output\n",
	"debug.log":                   "retry in a log\n",
	"secret.txt":                  "retry secret\n",
	"empty.txt":                   "",
	"crlf.txt":                    "first\r\nsecond\r\n",
	"big.txt":                     numbered(1000),
	"vendor/lib/README":           "no newline at end",
	"agent/sub/deep/.ternignore":  "gen_*.go\n",
	"agent/sub/deep/gen_stubs.go": "package deep // retry\n",
}

// numbered returns n lines "line 1 of n" … "line n of n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d of %d\n", i, n)
	}
	return b.String()
}

func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newFixture returns a workspace over a fresh copy of fixtureFiles, with a
// fixed clock so spilled file names are predictable.
func newFixture(t testing.TB) *Workspace {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, fixtureFiles)
	ws, err := NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	ws.now = func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }
	return ws
}

// call runs tool with args given as a JSON object literal.
func call(t testing.TB, tool Tool, args string, limit int) Result {
	t.Helper()
	if args != "" && !json.Valid([]byte(args)) {
		t.Fatalf("test args are not JSON: %s", args)
	}
	return tool.Run(t.Context(), Input{Args: json.RawMessage(args), Limit: limit})
}

// toolCase is one call of a tool and what its result must show.
type toolCase struct {
	name    string
	args    string
	limit   int
	isError bool
	want    []string // substrings of the output
	notWant []string
	summary string // exact summary, when set
}

func runCases(t *testing.T, tool Tool, cases []toolCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, tool, tc.args, tc.limit)
			shown, _ := Cap(r.Output, 3000) // for failure messages
			if r.IsError != tc.isError {
				t.Fatalf("IsError = %v, want %v; output:\n%s", r.IsError, tc.isError, shown)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Output, w) {
					t.Errorf("output lacks %q; output:\n%s", w, shown)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(r.Output, w) {
					t.Errorf("output has %q; output:\n%s", w, shown)
				}
			}
			if tc.limit > 0 && len(r.Output) > tc.limit {
				t.Errorf("output is %d bytes, over the limit %d", len(r.Output), tc.limit)
			}
			if tc.summary != "" && r.Summary != tc.summary {
				t.Errorf("Summary = %q, want %q", r.Summary, tc.summary)
			}
			if strings.Contains(r.Summary, "\n") {
				t.Errorf("Summary has a newline: %q", r.Summary)
			}
		})
	}
}
