package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	ws := newFixture(t)
	writeFiles(t, ws.Root(), map[string]string{
		"long.min.js": strings.Repeat("x", 100_000) + "\nsecond line\n",
		"huge.txt":    numbered(100_000),
	})
	runCases(t, NewReadFile(ws), []toolCase{
		{name: "whole file", args: `{"path":"agent/loop.go"}`,
			want:    []string{"1\tpackage agent\n2\t\n3\t// Run runs the loop.\n", "8\tfunc retry(n int) error { return nil }"},
			notWant: []string{"continues"}, summary: "agent/loop.go:1-8"},
		{name: "offset and limit as strings", args: `{"path":"big.txt","offset":"10","limit":"5"}`,
			want:    []string{"10\tline 10 of 1000\n", "14\tline 14 of 1000\n… file continues: lines 15-1000 of 1000; call read_file with offset=15"},
			notWant: []string{"line 9 of", "line 15 of"}, summary: "big.txt:10-14"},
		{name: "whole-number float", args: `{"path":"big.txt","offset":998.0}`,
			want: []string{"998\tline 998 of 1000\n999\tline 999 of 1000\n1000\tline 1000 of 1000"}, notWant: []string{"continues"}},
		{name: "200 lines by default", args: `{"path":"big.txt"}`,
			want:    []string{"200\tline 200 of 1000\n… file continues: lines 201-1000 of 1000; call read_file with offset=201"},
			notWant: []string{"line 201 of"}, summary: "big.txt:1-200"},
		{name: "byte cap ends the page early", args: `{"path":"big.txt","limit":1000}`, limit: 1000,
			want: []string{"1\tline 1 of 1000\n", "call read_file with offset="}, notWant: []string{"line 200 of"}},
		{name: "huge file", args: `{"path":"huge.txt","offset":99999}`,
			want: []string{"99999\tline 99999 of 100000\n100000\tline 100000 of 100000"}, notWant: []string{"continues"}},
		{name: "huge file counted", args: `{"path":"huge.txt","limit":2}`,
			want: []string{"… file continues: lines 3-100000 of 100000; call read_file with offset=3"}},
		{name: "overlong line cut", args: `{"path":"long.min.js"}`,
			want: []string{"1\txxx", " … (line 1 is 97.7 KiB; cut here)\n2\tsecond line"}},
		{name: "line after an overlong one", args: `{"path":"long.min.js","offset":2}`, want: []string{"2\tsecond line"}},
		{name: "CRLF", args: `{"path":"crlf.txt"}`, want: []string{"1\tfirst\n2\tsecond"}, notWant: []string{"\r"}},
		{name: "no final newline", args: `{"path":"vendor/lib/README"}`, want: []string{"1\tno newline at end"}},
		{name: "Latin-1", args: `{"path":"latin1.txt"}`,
			want: []string{"1\tcaf\uFFFD au lait\n2\tna\uFFFDve\n", "not valid UTF-8"}},
		{name: "spaces in path", args: `{"path":"docs/notes with spaces.md"}`, want: []string{"3\tRetry after a failure (once)."}},
		{name: "unicode path", args: `{"path":"ünï/файл.txt"}`, want: []string{"1\tпривет мир"}},
		{name: "unknown arguments ignored", args: `{"path":"main.go","verbose":true}`, want: []string{"1\tpackage main"}},
		{name: "empty file", args: `{"path":"empty.txt"}`, want: []string{"(empty file)"}},
		{name: "past the end", args: `{"path":"big.txt","offset":1001}`, isError: true,
			want: []string{"offset 1001 is past the end of big.txt, which has 1000 lines"}},
		{name: "binary", args: `{"path":"img/logo.png"}`, isError: true,
			want: []string{"img/logo.png is a binary file (20 B)"}},
		{name: "directory", args: `{"path":"agent"}`, isError: true, want: []string{"agent is a directory; use list_dir"}},
		{name: "wrong directory", args: `{"path":"src/loop.go"}`, isError: true,
			want: []string{"src/loop.go does not exist. Did you mean agent/loop.go?"}},
		{name: "missing", args: `{"path":"nothing.go"}`, isError: true, want: []string{"nothing.go does not exist; use glob or list_dir"}},
		{name: "gitignored", args: `{"path":"debug.log"}`, isError: true, want: []string{"debug.log is ignored"}},
		{name: "in gitignored dir", args: `{"path":"build/out.txt"}`, isError: true, want: []string{"is ignored"}},
		{name: "ternignored", args: `{"path":"agent/sub/deep/gen_stubs.go"}`, isError: true, want: []string{"is ignored"}},
		{name: "outside", args: `{"path":"../../etc/passwd"}`, isError: true, want: []string{"outside the workspace"}},
		{name: "no path", args: `{}`, isError: true, want: []string{`path is required, e.g. {"path":"main.go"}`}},
		{name: "bad offset", args: `{"path":"main.go","offset":"ten"}`, isError: true, want: []string{"whole number"}},
	})
}

// TestReadFileAllowRead: a directory the user allowed for reading is read
// whatever its own .gitignore says.
func TestReadFileAllowRead(t *testing.T) {
	base := t.TempDir()
	writeFiles(t, base, map[string]string{
		"repo/main.go":    "package main\n",
		"ref/.gitignore":  "*.txt\n",
		"ref/notes.txt":   "reference notes\n",
		"other/notes.txt": "not allowed\n",
	})
	ws, err := NewWorkspace(filepath.Join(base, "repo"), filepath.Join(base, "ref"))
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := filepath.EvalSymlinks(filepath.Join(base, "ref"))
	runCases(t, NewReadFile(ws), []toolCase{
		{name: "allowed", args: `{"path":"` + filepath.Join(ref, "notes.txt") + `"}`, want: []string{"1\treference notes"}},
		{name: "relative into allowed", args: `{"path":"../ref/notes.txt"}`, want: []string{"1\treference notes"}},
		{name: "not allowed", args: `{"path":"../other/notes.txt"}`, isError: true, want: []string{"directories allowed for reading"}},
	})
}

func TestLooksBinary(t *testing.T) {
	random := make([]byte, 4096)
	x := uint32(1)
	for i := range random {
		x = x*1664525 + 1013904223
		random[i] = byte(x>>24) | 1 // no NULs
	}
	tests := []struct {
		name string
		in   []byte
		want bool
	}{
		{"go source", []byte("package main\n\nfunc main() {}\n"), false},
		{"utf-8", []byte("привет, 世界\n"), false},
		{"latin-1 prose", []byte("Le caf\xe9 est tr\xe8s bon, na\xefvement.\n"), false},
		{"NUL", []byte("abc\x00def"), true},
		{"random bytes", random, true},
		{"empty", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := looksBinary(tt.in); got != tt.want {
				t.Errorf("looksBinary = %v, want %v", got, tt.want)
			}
		})
	}
	// A file whose first 8 KiB ends inside a rune is still text.
	sample := []byte(strings.Repeat("é", sniffSize))[:sniffSize-1]
	sample = append(sample, "é"[0])
	if len(sample) != sniffSize || looksBinary(sample) {
		t.Error("a rune cut by the sample's end made the file binary")
	}
	if err := os.WriteFile(filepath.Join(t.TempDir(), "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
