package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// bufferEditor is an editor whose open buffers differ from the disk.
type bufferEditor struct {
	mu      sync.Mutex
	buffers map[string]string // absolute path → text
	reads   []string
	writes  []string
	fail    error
}

func (e *bufferEditor) ReadTextFile(_ context.Context, path string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reads = append(e.reads, path)
	if e.fail != nil {
		return "", e.fail
	}
	if text, ok := e.buffers[path]; ok {
		return text, nil
	}
	data, err := os.ReadFile(path)
	return string(data), err
}

func (e *bufferEditor) WriteTextFile(_ context.Context, path, content string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.writes = append(e.writes, path)
	if e.fail != nil {
		return e.fail
	}
	e.buffers[path] = content
	return nil
}

// With an editor, read_file shows the unsaved buffer, edit_file edits it
// and write_file creates files through it, and the disk is left alone;
// containment and read-before-edit hold as on disk.
func TestEditorIsTheFileToolsHands(t *testing.T) {
	ws := newFixture(t)
	main := filepath.Join(ws.Root(), "main.go")
	ed := &bufferEditor{buffers: map[string]string{main: "package main\n\nfunc main() {\n\tprintln(\"unsaved\")\n}\n"}}
	ws.UseEditor(ed)

	read := call(t, NewReadFile(ws), `{"path":"main.go"}`, 0)
	if read.IsError || !strings.Contains(read.Output, `println("unsaved")`) {
		t.Fatalf("read_file did not show the editor's buffer: %+v", read)
	}
	edit := call(t, NewEditFile(ws, nil), `{"path":"main.go","old_string":"unsaved","new_string":"edited"}`, 0)
	if edit.IsError {
		t.Fatalf("edit_file: %+v", edit)
	}
	if got := ed.buffers[main]; !strings.Contains(got, `println("edited")`) {
		t.Errorf("the editor's buffer after the edit:\n%s", got)
	}
	if disk, _ := os.ReadFile(main); !strings.Contains(string(disk), `println("hello")`) {
		t.Errorf("the edit reached the disk instead of the editor:\n%s", disk)
	}

	created := call(t, NewWriteFile(ws, nil), `{"path":"pkg/new/file.go","content":"package file\n"}`, 0)
	if created.IsError {
		t.Fatalf("write_file: %+v", created)
	}
	if ed.buffers[filepath.Join(ws.Root(), "pkg", "new", "file.go")] != "package file\n" {
		t.Errorf("write_file did not write through the editor: %v", ed.writes)
	}
	if st, err := os.Stat(filepath.Join(ws.Root(), "pkg", "new")); err != nil || !st.IsDir() {
		t.Errorf("the new file's directory was not made for the editor: %v", err)
	}

	// Rules that hold on disk hold through the editor.
	for _, c := range []struct {
		tool       Tool
		args, want string
	}{
		{NewWriteFile(ws, nil), `{"path":"agent/loop.go","content":"x","overwrite":true}`, "not read"},
		{NewWriteFile(ws, nil), `{"path":"../outside.go","content":"x"}`, "outside the workspace"},
		{NewReadFile(ws), `{"path":"secret.txt"}`, "ignored"},
		{NewEditFile(ws, nil), `{"path":".git/config","old_string":"a","new_string":"b"}`, "never writes"},
	} {
		res := call(t, c.tool, c.args, 0)
		if !res.IsError || !strings.Contains(res.Output, c.want) {
			t.Errorf("%s %s = %+v, want a refusal saying %q", c.tool.Spec().Name, c.args, res, c.want)
		}
	}
	for _, p := range append(ed.reads, ed.writes...) {
		if !strings.HasPrefix(p, ws.Root()+string(filepath.Separator)) {
			t.Errorf("the editor was asked about %s, outside the workspace", p)
		}
	}
}

// An editor that fails is a result for the model, and the disk is left
// as it was.
func TestEditorFailureIsAResult(t *testing.T) {
	ws := newFixture(t)
	ed := &bufferEditor{buffers: map[string]string{}, fail: errors.New("buffer is read-only")}
	ws.UseEditor(ed)
	for _, c := range []struct {
		tool Tool
		args string
	}{
		{NewReadFile(ws), `{"path":"main.go"}`},
		{NewWriteFile(ws, nil), `{"path":"new.go","content":"package main\n"}`},
	} {
		res := call(t, c.tool, c.args, 0)
		if !res.IsError || !strings.Contains(res.Output, "buffer is read-only") {
			t.Errorf("%s with a failing editor = %+v", c.tool.Spec().Name, res)
		}
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), "new.go")); err == nil {
		t.Error("write_file wrote the disk when the editor failed")
	}
}

// fakeTerminal runs nothing: it answers as a terminal would.
type fakeTerminal struct {
	got  TerminalCommand
	exit TerminalExit
	// hang waits for the context, as a command that does not end.
	hang bool
}

func (f *fakeTerminal) Run(ctx context.Context, c TerminalCommand) (TerminalExit, error) {
	f.got = c
	if f.hang {
		<-ctx.Done()
		return TerminalExit{Output: "partial\n"}, nil
	}
	return f.exit, nil
}

// run_command in a terminal keeps tern's policy, timeout and output cap.
func TestRunCommandInTerminal(t *testing.T) {
	ws := newFixture(t)
	term := &fakeTerminal{exit: TerminalExit{Output: strings.Repeat("x", 5000) + "\nok\n", Exited: true, ExitCode: 2}}
	tool, err := NewRunCommand(ws, nil, CommandPolicy{Deny: []string{"git push*"}, Terminal: term})
	if err != nil {
		t.Fatal(err)
	}
	res := tool.Run(t.Context(), Input{Args: []byte(`{"command":"make test"}`), Limit: 1000, CallID: "call_7"})
	if !res.IsError || !strings.Contains(res.Output, "exit code 2") || len(res.Output) > 1500 || !strings.Contains(res.Output, ".tern/outputs/") {
		t.Errorf("result = %+v", res)
	}
	if term.got.CallID != "call_7" || term.got.Dir != ws.Root() || term.got.Argv[len(term.got.Argv)-1] != "make test" ||
		term.got.OutputLimit != terminalOutputLimit {
		t.Errorf("terminal command = %+v", term.got)
	}

	denied := tool.Run(t.Context(), Input{Args: []byte(`{"command":"git push --force"}`)})
	if !strings.Contains(denied.Output, "denied by the user's configuration") {
		t.Errorf("a denied command reached the terminal: %+v", denied)
	}

	term.hang = true
	timed := tool.Run(t.Context(), Input{Args: []byte(`{"command":"sleep 100","timeout":1}`)})
	if !strings.Contains(timed.Output, "Timed out after 1s") || !strings.Contains(timed.Output, "partial") {
		t.Errorf("a command past its timeout = %+v", timed)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	cancelled := tool.Run(ctx, Input{Args: []byte(`{"command":"sleep 100"}`)})
	if !strings.Contains(cancelled.Output, "Timed out") && !strings.Contains(cancelled.Output, "Cancelled by the user") {
		t.Errorf("a cancelled command = %+v", cancelled)
	}
}
