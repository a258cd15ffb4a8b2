package tools

import (
	"fmt"
	"testing"
)

func TestGlob(t *testing.T) {
	ws := newFixture(t)
	files := map[string]string{}
	for i := range 250 {
		files[fmt.Sprintf("gen/f%03d.dat", i)] = ""
	}
	writeFiles(t, ws.Root(), files)
	ignored := []string{"build/", "debug.log", "secret.txt", "gen_stubs.go"}
	runCases(t, NewGlob(ws), []toolCase{
		{name: "recursive", args: `{"pattern":"**/*.go"}`, notWant: ignored, summary: `glob "**/*.go" 4 files`,
			want: []string{"agent/loop.go\nagent/loop_test.go\nagent/sub/deep/x.go\nmain.go"}},
		{name: "top level", args: `{"pattern":"*.go"}`, want: []string{"main.go"}, notWant: []string{"agent/"}},
		{name: "top level miss falls back to anywhere", args: `{"pattern":"*_test.go"}`,
			want: []string{`(nothing matched "*_test.go" directly in .; these match "**/*_test.go")` + "\nagent/loop_test.go"}},
		{name: "fixed directory", args: `{"pattern":"agent/*.go"}`, want: []string{"agent/loop.go\nagent/loop_test.go"}, notWant: []string{"x.go"}},
		{name: "everything under", args: `{"pattern":"agent/**"}`, notWant: ignored,
			want: []string{"agent/loop.go\nagent/loop_test.go\nagent/sub/deep/.ternignore\nagent/sub/deep/x.go"}},
		{name: "braces", args: `{"pattern":"**/*.{md,txt}","path":"."}`, notWant: ignored,
			want: []string{"big.txt\ncrlf.txt\ndocs/notes with spaces.md\nempty.txt\n", "latin1.txt\nünï/файл.txt"}},
		{name: "from a path, named from the root", args: `{"pattern":"*.go","path":"agent"}`,
			want: []string{"agent/loop.go\nagent/loop_test.go"}},
		{name: "dot slash", args: `{"pattern":"./main.go"}`, want: []string{"main.go"}},
		{name: "unicode", args: `{"pattern":"ünï/*"}`, want: []string{"ünï/файл.txt"}},
		{name: "cap", args: `{"pattern":"gen/*.dat"}`, summary: `glob "gen/*.dat" 250 files`,
			want: []string{"gen/f000.dat\n", "gen/f199.dat\n… 50 more files; narrow the pattern or the path"}, notWant: []string{"f200"}},
		{name: "ignored files never match", args: `{"pattern":"**/*.log"}`, want: []string{`no files match "**/*.log" in .`}},
		{name: "no match", args: `{"pattern":"**/*.rs"}`, want: []string{`no files match "**/*.rs" in .`}},
		{name: "invalid", args: `{"pattern":"[*.go"}`, isError: true, want: []string{"invalid glob pattern"}},
		{name: "path is a file", args: `{"pattern":"*","path":"main.go"}`, isError: true, want: []string{"main.go is a file"}},
		{name: "ignored path", args: `{"pattern":"*","path":"build"}`, isError: true, want: []string{"build is ignored"}},
		{name: "outside", args: `{"pattern":"../*"}`, isError: true, want: []string{"outside the workspace"}},
		{name: "no pattern", args: `{}`, isError: true, want: []string{"pattern is required"}},
	})
}
