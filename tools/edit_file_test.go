package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// editFixture is a workspace of files to edit; the ones named in read have
// been read by the model.
func editFixture(t testing.TB, files map[string]string, read ...string) *Workspace {
	t.Helper()
	ws := newFixture(t)
	writeFiles(t, ws.Root(), files)
	for _, p := range read {
		ws.reads.mark(filepath.Join(ws.Root(), p))
	}
	return ws
}

const goFile = "package main\n\nfunc main() {\n\tif ready {\n\t\tstart()\n\t}\n\tprintln(\"done\")\n}\n\nfunc start() {\n\tprintln(\"start\")\n}\n"

func TestEditFile(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		unread  bool // the model has not read the file
		isError bool
		want    []string // in the output
		after   string   // the file afterwards, when it changes
	}{
		{name: "exact unique", args: `{"path":"main.go","old_string":"println(\"done\")","new_string":"println(\"finished\")"}`,
			want:  []string{"Edited main.go: replaced 1 occurrence at line 7.", "-\tprintln(\"done\")", "+\tprintln(\"finished\")"},
			after: strings.Replace(goFile, `println("done")`, `println("finished")`, 1)},
		{name: "several occurrences", args: `{"path":"main.go","old_string":"println","new_string":"log.Println"}`, isError: true,
			want: []string{"occurs 2 times in main.go (at lines 7, 11)", "replace_all"}},
		{name: "replace all", args: `{"path":"main.go","old_string":"println","new_string":"log.Println","replace_all":true}`,
			want:  []string{"replaced 2 occurrences at line 7, 11"},
			after: strings.ReplaceAll(goFile, "println", "log.Println")},
		{name: "spaces for tabs", args: `{"path":"main.go","old_string":"    if ready {\n        start()\n    }","new_string":"    if ready {\n        start()\n        ready = false\n    }"}`,
			want:  []string{"matched with different whitespace"},
			after: strings.Replace(goFile, "\tif ready {\n\t\tstart()\n\t}", "\tif ready {\n\t\tstart()\n\t\tready = false\n\t}", 1)},
		{name: "trailing spaces and newlines", args: `{"path":"main.go","old_string":"\nfunc start() {  \n","new_string":"\nfunc begin() {\n"}`,
			after: strings.Replace(goFile, "func start() {", "func begin() {", 1)},
		{name: "line numbers copied from read_file", args: `{"path":"main.go","old_string":"10\tfunc start() {\n11\t\tprintln(\"start\")","new_string":"10\tfunc start() {\n11\t\tprintln(\"go\")"}`,
			want:  []string{"removed the read_file line numbers"},
			after: strings.Replace(goFile, `println("start")`, `println("go")`, 1)},
		{name: "not found shows closest", args: `{"path":"main.go","old_string":"func start() {\n\tprintln(\"begin\")\n}","new_string":"x"}`, isError: true,
			want: []string{"old_string was not found in main.go", "most similar text is at lines 10-12", "11\t\tprintln(\"start\")"}},
		{name: "nothing similar", args: `{"path":"main.go","old_string":"zzzz qqqq xxxx","new_string":"y"}`, isError: true,
			want: []string{"Nothing in it looks similar", "read_file"}},
		{name: "unread exact edit applies with a note", unread: true, args: `{"path":"main.go","old_string":"println(\"done\")","new_string":"println(\"ok\")"}`,
			want:  []string{"you had not read main.go", "+\tprintln(\"ok\")"},
			after: strings.Replace(goFile, `println("done")`, `println("ok")`, 1)},
		{name: "unread loose edit shows the file", unread: true, args: `{"path":"main.go","old_string":"if ready {\n  start()\n}","new_string":"x"}`, isError: true,
			want: []string{"You have not read main.go", "4\t\tif ready {", "5\t\t\tstart()"}},
		{name: "missing file", args: `{"path":"nope.go","old_string":"a","new_string":"b"}`, isError: true,
			want: []string{"nope.go does not exist", "write_file"}},
		{name: "empty old_string", args: `{"path":"main.go","old_string":"","new_string":"b"}`, isError: true, want: []string{"old_string is empty"}},
		{name: "no change", args: `{"path":"main.go","old_string":"main","new_string":"main"}`, isError: true, want: []string{"the same"}},
		{name: "crlf file", args: `{"path":"crlf.txt","old_string":"first\nsecond","new_string":"one\ntwo"}`, after: "one\r\ntwo\r\n"},
		{name: "binary", args: `{"path":"img/logo.png","old_string":"PNG","new_string":"GIF"}`, isError: true, want: []string{"binary file"}},
		{name: "not UTF-8", args: `{"path":"latin1.txt","old_string":"au lait","new_string":"noir"}`, isError: true, want: []string{"not valid UTF-8"}},
		{name: "ignored", args: `{"path":"secret.txt","old_string":"retry","new_string":"x"}`, isError: true, want: []string{"ignored"}},
		{name: "directory", args: `{"path":"agent","old_string":"a","new_string":"b"}`, isError: true, want: []string{"is a directory"}},
		{name: "escape with dot-dot", args: `{"path":"../outside.txt","old_string":"a","new_string":"b"}`, isError: true, want: []string{"outside the workspace"}},
		{name: "absolute outside", args: `{"path":"/etc/passwd","old_string":"root","new_string":"toor"}`, isError: true, want: []string{"outside the workspace"}},
		{name: "into .git", args: `{"path":".git/config","old_string":"a","new_string":"b"}`, isError: true, want: []string{"inside .git"}},
		{name: "bad arguments", args: `{"path":"main.go","old_string":["a"],"new_string":"b"}`, isError: true, want: []string{`invalid argument "old_string"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := []string{"main.go", "crlf.txt"}
			if tt.unread {
				read = nil
			}
			ws := editFixture(t, map[string]string{"main.go": goFile}, read...)
			path := filepath.Join(ws.Root(), "main.go")
			if strings.Contains(tt.args, "crlf.txt") {
				path = filepath.Join(ws.Root(), "crlf.txt")
			}
			before, _ := os.ReadFile(path)
			// Review, on a copy, agrees with Run and changes nothing.
			copyWs := editFixture(t, map[string]string{"main.go": goFile}, read...)
			rv := NewEditFile(copyWs, nil).(Reviewer).Review(t.Context(), []byte(tt.args))
			if tt.isError != (rv.Refused != nil) {
				t.Errorf("Review refused = %v, want %v", rv.Refused != nil, tt.isError)
			}
			if rv.Refused == nil && !strings.HasPrefix(rv.Preview, "--- a/") {
				t.Errorf("Review preview is not a diff: %q", rv.Preview)
			}
			if got, _ := os.ReadFile(filepath.Join(copyWs.Root(), "main.go")); string(got) != goFile {
				t.Errorf("Review changed the file")
			}
			tool := NewEditFile(ws, nil)
			r := call(t, tool, tt.args, 0)
			if r.IsError != tt.isError {
				t.Fatalf("IsError = %v; output:\n%s", r.IsError, r.Output)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Output, w) {
					t.Errorf("output lacks %q:\n%s", w, r.Output)
				}
			}
			got, _ := os.ReadFile(path)
			want := string(before)
			if tt.after != "" {
				want = tt.after
			}
			if string(got) != want {
				t.Errorf("file afterwards:\n%q\nwant\n%q", got, want)
			}
			if !r.IsError && (r.Diff == "" || !strings.Contains(r.Summary, "+")) {
				t.Errorf("a successful edit has no diff or summary: %+v", r)
			}
		})
	}
}

func TestEditKeepsMode(t *testing.T) {
	ws := editFixture(t, map[string]string{"run.sh": "#!/bin/sh\necho hi\n"}, "run.sh")
	p := filepath.Join(ws.Root(), "run.sh")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := call(t, NewEditFile(ws, nil), `{"path":"run.sh","old_string":"hi","new_string":"hello"}`, 0); r.IsError {
		t.Fatal(r.Output)
	}
	info, _ := os.Stat(p)
	if info.Mode().Perm() != 0o755 {
		t.Errorf("mode after edit = %v, want 0755", info.Mode().Perm())
	}
	leftovers, _ := filepath.Glob(filepath.Join(ws.Root(), ".tern-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestEditThroughSymlinkEscape(t *testing.T) {
	ws := editFixture(t, nil)
	outside := filepath.Join(t.TempDir(), "victim.txt")
	os.WriteFile(outside, []byte("keep me\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(ws.Root(), "link.txt")); err != nil {
		t.Fatal(err)
	}
	ws.reads.mark(outside)
	for _, tool := range []Tool{NewEditFile(ws, nil), NewWriteFile(ws, nil)} {
		r := call(t, tool, `{"path":"link.txt","old_string":"keep me","new_string":"gone","content":"gone","overwrite":true}`, 0)
		if !r.IsError || !strings.Contains(r.Output, "symbolic link") {
			t.Errorf("%s through an escaping symlink: %+v", tool.Spec().Name, r)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep me\n" {
		t.Errorf("the file outside the workspace was changed: %q", b)
	}
}

func TestEditHugeFile(t *testing.T) {
	ws := editFixture(t, map[string]string{"huge.txt": strings.Repeat("x", maxChangeBytes+1)}, "huge.txt")
	r := call(t, NewEditFile(ws, nil), `{"path":"huge.txt","old_string":"x","new_string":"y"}`, 0)
	if !r.IsError || !strings.Contains(r.Output, "changes files up to 1.0 MiB") {
		t.Errorf("huge file: %+v", r)
	}
}

func TestReadThenEdit(t *testing.T) {
	ws := editFixture(t, map[string]string{"a.go": "package a\n\nvar  x = 1\n"})
	edit := NewEditFile(ws, nil)
	loose := `{"path":"a.go","old_string":"var x = 1","new_string":"var x = 2"}`
	if r := call(t, edit, loose, 0); !r.IsError || !strings.Contains(r.Output, "not read") {
		t.Fatalf("loose edit of an unread file: %+v", r)
	}
	// The refusal showed the lines, which counts as reading them.
	if r := call(t, edit, loose, 0); r.IsError {
		t.Fatalf("second try: %s", r.Output)
	}
	if b, _ := os.ReadFile(filepath.Join(ws.Root(), "a.go")); string(b) != "package a\n\nvar x = 2\n" {
		t.Errorf("a.go = %q", b)
	}
}
