package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNonUTF8NamesRoundTrip lists files whose names are not valid UTF-8
// with glob, grep and list_dir, and opens each name as listed, passed
// through JSON as a model would send it, with read_file and edit_file.
func TestNonUTF8NamesRoundTrip(t *testing.T) {
	ws := newFixture(t)
	names := []string{"caf\xe9.txt", "d\xff\xfe/na\xefve.txt", "ok-\u00e9t\u00e9.txt"}
	for _, n := range names {
		p := filepath.Join(ws.Root(), n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("needle\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A file really named with a backslash escape is still opened as is.
	os.WriteFile(filepath.Join(ws.Root(), `lit\x41.txt`), []byte("needle literal\n"), 0o644)

	globbed := call(t, NewGlob(ws), `{"pattern":"**/*.txt"}`, 0).Output
	grepped := call(t, NewGrep(ws), `{"pattern":"needle"}`, 0).Output
	listed := call(t, NewListDir(ws), `{"depth":3}`, 0).Output
	for _, out := range []string{globbed, grepped, listed} {
		if strings.Contains(out, "\uFFFD") || !json.Valid(must(json.Marshal(out))) {
			t.Errorf("listing carries a broken name:\n%s", out)
		}
	}
	opened := 0
	for _, line := range strings.Split(globbed, "\n") {
		args, _ := json.Marshal(map[string]string{"path": line})
		r := call(t, NewReadFile(ws), string(args), 0)
		if r.IsError {
			t.Errorf("read_file of listed name %q: %s", line, r.Output)
		}
		if strings.Contains(r.Output, "needle") {
			opened++
		}
	}
	if opened != len(names)+1 {
		t.Errorf("opened %d of the %d files glob listed:\n%s", opened, len(names)+1, globbed)
	}
	for _, line := range strings.Split(strings.TrimSpace(grepped), "\n") {
		name, _, ok := strings.Cut(line, ":1:")
		if !ok {
			continue
		}
		args, _ := json.Marshal(map[string]string{"path": name})
		if r := call(t, NewReadFile(ws), string(args), 0); r.IsError {
			t.Errorf("read_file of grepped name %q: %s", name, r.Output)
		}
	}
	if !strings.Contains(listed, `caf\xE9.txt`) || !strings.Contains(listed, `na\xEFve.txt`) {
		t.Errorf("list_dir:\n%s", listed)
	}
	edit := call(t, NewEditFile(ws, nil), `{"path":"caf\\xE9.txt","old_string":"needle","new_string":"thread"}`, 0)
	if edit.IsError {
		t.Fatalf("edit: %s", edit.Output)
	}
	if data, _ := os.ReadFile(filepath.Join(ws.Root(), "caf\xe9.txt")); !strings.HasPrefix(string(data), "thread") {
		t.Errorf("the edit went elsewhere: %q", data)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
