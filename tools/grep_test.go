package tools

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

func TestGrep(t *testing.T) {
	ws := newFixture(t)
	writeFiles(t, ws.Root(), map[string]string{
		"min.js":     strings.Repeat("a", 3000) + "needle" + strings.Repeat("b", 3000) + "\n",
		"many.txt":   numbered(3000),
		"kelvin.txt": "0 \u212Aelvin\n",
	})
	ignored := []string{"build/out.txt", "debug.log", "secret.txt", "gen_stubs.go"}
	runCases(t, NewGrep(ws), []toolCase{
		{name: "plain", args: `{"pattern":"retry"}`, notWant: ignored, summary: `grep "retry" 2 matches`,
			want: []string{"agent/loop.go:5: return retry(3)\nagent/loop.go:8: func retry(n int) error { return nil }\n2 matches in 1 file"}},
		{name: "ignore case as string", args: `{"pattern":"RETRY","ignore_case":"true"}`, notWant: ignored,
			want: []string{"agent/loop.go:5: return retry(3)\n", "docs/notes with spaces.md:3: Retry after a failure (once).\n", "3 matches in 2 files"}},
		{name: "include", args: `{"pattern":"(?i)retry","include":"*.md"}`,
			want: []string{"docs/notes with spaces.md:3:", "1 match in 1 file"}, notWant: []string{"loop.go"}},
		{name: "include without star", args: `{"pattern":"package","include":".go"}`,
			want: []string{"main.go:1: package main", "agent/sub/deep/x.go:1: package deep", "4 matches in 4 files"}},
		{name: "include with braces", args: `{"pattern":"Retry|main","include":"*.{md,go}"}`,
			want: []string{"docs/notes with spaces.md:3:", "main.go:1: package main"}},
		{name: "path dir", args: `{"pattern":"package","path":"agent"}`,
			want: []string{"agent/loop.go:1:", "agent/loop_test.go:1:", "agent/sub/deep/x.go:1:"}, notWant: []string{"main.go:"}},
		{name: "path file", args: `{"pattern":"println","path":"main.go"}`, want: []string{`main.go:4: println("hello")`}},
		{name: "line anchors", args: `{"pattern":"^func \\w+\\(","path":"agent"}`,
			want: []string{"agent/loop.go:4: func Run() error {", "agent/loop.go:8: func retry", "agent/loop_test.go:5: func TestRun"}},
		{name: "case folding beyond ASCII", args: `{"pattern":"KELVIN","ignore_case":true}`, want: []string{"kelvin.txt:1: 0 \u212Aelvin"}},
		{name: "unicode", args: `{"pattern":"мир"}`, want: []string{"ünï/файл.txt:1: привет мир"}},
		{name: "Latin-1", args: `{"pattern":"au lait"}`, want: []string{"latin1.txt:1: caf\uFFFD au lait"}},
		{name: "binary skipped", args: `{"pattern":"IHDR"}`, want: []string{`no matches for "IHDR" in .; searched `}},
		{name: "long line trimmed", args: `{"pattern":"needle"}`, want: []string{"min.js:1: …aaa", "needlebbb", "bbb…\n"}},
		{name: "match cap", args: `{"pattern":"line \\d+ of","path":"many.txt"}`,
			want:    []string{"many.txt:1: line 1 of 3000\n", "many.txt:100: line 100 of 3000\nshowing 100 of 3000 matches in 1 file; narrow the search with path or include"},
			notWant: []string{"many.txt:101:"}},
		{name: "byte cap spills", args: `{"pattern":"line","path":"many.txt"}`, limit: 1500,
			want: []string{"many.txt:1: line 1 of 3000\n", " omitted …\n", "full output: .tern/outputs/20260301-120000.000-grep.txt; read it with read_file offset/limit"}},
		{name: "no matches", args: `{"pattern":"zebra"}`, want: []string{`no matches for "zebra" in .; searched 17 files`}, notWant: []string{"regular expression"}},
		{name: "no matches, regexp hint", args: `{"pattern":"retry(3)"}`,
			want: []string{`no matches for "retry(3)"`, "The pattern is a regular expression: put a backslash before . ( [ { * + ? | to match them literally"}},
		{name: "invalid regexp", args: `{"pattern":"retry(3"}`, isError: true,
			want: []string{"invalid regexp \"retry(3\": missing closing ): `retry(3`", "e.g. `\\(`"}},
		{name: "bad include", args: `{"pattern":"x","include":"[*.go"}`, isError: true, want: []string{"invalid include glob"}},
		{name: "ignored path", args: `{"pattern":"retry","path":"build"}`, isError: true, want: []string{"build is ignored"}},
		{name: "binary path", args: `{"pattern":"PNG","path":"img/logo.png"}`, isError: true, want: []string{"binary file"}},
		{name: "missing path", args: `{"pattern":"x","path":"nowhere"}`, isError: true, want: []string{"nowhere does not exist"}},
		{name: "outside", args: `{"pattern":"root","path":"/etc"}`, isError: true, want: []string{"outside the workspace"}},
		{name: "no pattern", args: `{"path":"."}`, isError: true, want: []string{"pattern is required"}},
	})
}

func TestGrepCancelled(t *testing.T) {
	ws := newFixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r := NewGrep(ws).Run(ctx, Input{Args: []byte(`{"pattern":"retry"}`)})
	if !r.IsError || !strings.Contains(r.Output, "context canceled") {
		t.Errorf("cancelled grep: IsError %v, output %q", r.IsError, r.Output)
	}
}

func TestExcerpt(t *testing.T) {
	line := []byte("\t\t" + strings.Repeat("é", 300) + "needle" + strings.Repeat("ü", 300))
	at := strings.Index(string(line), "needle")
	got := excerpt(line, at)
	if !strings.Contains(got, "needle") || len(got) > grepLineRoom+8 {
		t.Errorf("excerpt %q: %d bytes, want ≤ %d around the match", got, len(got), grepLineRoom)
	}
	if strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("excerpt cut inside a rune: %q", got)
	}
	if got := excerpt([]byte("\t  short line\r"), 3); got != "short line" {
		t.Errorf("excerpt = %q, want %q", got, "short line")
	}
}

// BenchmarkGrepGoroot greps the Go standard library sources for a common
// identifier, the size of a large real repository.
func BenchmarkGrepGoroot(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("go env GOROOT:", err)
	}
	ws, err := NewWorkspace(strings.TrimSpace(string(out)) + "/src")
	if err != nil {
		b.Skip(err)
	}
	grep := NewGrep(ws)
	for _, bb := range []struct{ name, args string }{
		{"literal", `{"pattern":"ErrUnexpectedEOF"}`},
		{"ignore_case", `{"pattern":"errunexpectedeof","ignore_case":true}`},
		{"regexp", `{"pattern":"func \\(\\w+ \\*Reader\\) Read\\("}`},
	} {
		b.Run(bb.name, func(b *testing.B) {
			in := Input{Args: []byte(bb.args)}
			for b.Loop() {
				if r := grep.Run(b.Context(), in); r.IsError || strings.HasPrefix(r.Output, "no matches") {
					b.Fatal(r.Output)
				}
			}
		})
	}
}
