package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		read    bool
		isError bool
		want    []string
		file    string // the file to check afterwards
		content string // its content afterwards
	}{
		{name: "create", args: `{"path":"pkg/util/new.go","content":"package util\n"}`,
			want: []string{"Created pkg/util/new.go (1 line)."}, file: "pkg/util/new.go", content: "package util\n"},
		{name: "refuses to overwrite", args: `{"path":"main.go","content":"package main\n"}`, isError: true,
			want: []string{"main.go already exists", "edit_file", "overwrite"}, file: "main.go", content: goFile},
		{name: "overwrite unread", args: `{"path":"main.go","content":"package main\n","overwrite":true}`, isError: true,
			want: []string{"you have not read it", "read_file"}, file: "main.go", content: goFile},
		{name: "overwrite after reading", read: true, args: `{"path":"main.go","content":"package main\n","overwrite":"true"}`,
			want: []string{"Replaced main.go", "-func main() {"}, file: "main.go", content: "package main\n"},
		{name: "same content", read: true, args: `{"path":"main.go","content":` + quote(goFile) + `,"overwrite":true}`, isError: true,
			want: []string{"already has exactly this content"}},
		{name: "empty file", args: `{"path":"empty.go","content":""}`, want: []string{"Created empty.go (0 lines)"}, file: "empty.go", content: ""},
		{name: "no path", args: `{"content":"x"}`, isError: true, want: []string{"path is required"}},
		{name: "dot-dot escape", args: `{"path":"../../evil.sh","content":"x"}`, isError: true, want: []string{"outside the workspace"}},
		{name: "absolute outside", args: `{"path":"/tmp/tern-evil.txt","content":"x"}`, isError: true, want: []string{"outside the workspace"}},
		{name: "into .tern", args: `{"path":".tern/tern.db","content":"x"}`, isError: true, want: []string{"inside .tern"}},
		{name: "over a directory", args: `{"path":"agent","content":"x","overwrite":true}`, isError: true, want: []string{"is a directory"}},
		{name: "too large", args: `{"path":"big.bin","content":"` + strings.Repeat("a", maxChangeBytes+1) + `"}`, isError: true, want: []string{"write_file writes files up to"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var read []string
			if tt.read {
				read = []string{"main.go"}
			}
			ws := editFixture(t, map[string]string{"main.go": goFile}, read...)
			r := call(t, NewWriteFile(ws, nil), tt.args, 0)
			if r.IsError != tt.isError {
				t.Fatalf("IsError = %v; output:\n%s", r.IsError, r.Output)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Output, w) {
					t.Errorf("output lacks %q:\n%s", w, r.Output)
				}
			}
			if tt.file != "" {
				got, err := os.ReadFile(filepath.Join(ws.Root(), tt.file))
				if err != nil || string(got) != tt.content {
					t.Errorf("%s = %q, %v; want %q", tt.file, got, err, tt.content)
				}
			}
		})
	}
	if _, err := os.Stat("/tmp/tern-evil.txt"); err == nil {
		t.Error("a file was written outside the workspace")
	}
}

func TestWrittenFileCanBeEdited(t *testing.T) {
	ws := editFixture(t, nil)
	if r := call(t, NewWriteFile(ws, nil), `{"path":"n.txt","content":"alpha\nbeta\n"}`, 0); r.IsError {
		t.Fatal(r.Output)
	}
	// The model wrote it, so it knows it: no read needed before an edit.
	r := call(t, NewEditFile(ws, nil), `{"path":"n.txt","old_string":"beta ","new_string":"gamma"}`, 0)
	if r.IsError || strings.Contains(r.Output, "not read") {
		t.Fatalf("edit after write: %s", r.Output)
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
