//go:build realollama

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The official ACP TypeScript SDK, as an editor, drives tern acp against
// the real Ollama: the scripted model's read_file call goes through the
// editor's file system (its unsaved buffer), the answer streams, and the
// session loads in a new process with its history.
func TestRealACPEditor(t *testing.T) {
	f := realFixture(t)
	bin := buildTern(t)
	notes := filepath.Join(f.dir, "NOTES.md")
	env := append(os.Environ(), "OLLAMA_HOST="+f.env["OLLAMA_HOST"], "HOME="+f.env["HOME"], "XDG_CONFIG_HOME="+f.env["XDG_CONFIG_HOME"])
	rep := runACPClient(t, f.dir, env, map[string]any{
		"command": []string{bin, "acp", "--dir", f.dir, "--root", f.dir, "--model", "tiny-script"},
		"cwd":     f.dir,
		"buffers": map[string]string{"NOTES.md": "# Notes\nThe release codename is zebra-quartz-17. (unsaved edit)\n"},
		"steps": []acpStep{
			{Op: "initialize"},
			{Op: "new"},
			{Op: "prompt", Text: "What is the release codename? Read NOTES.md."},
			{Op: "restart"},
			{Op: "initialize"},
			{Op: "load"},
		},
	})
	if len(rep.Steps) != 6 {
		t.Fatalf("the editor ran %d steps", len(rep.Steps))
	}
	asked := rep.Steps[2]
	if asked.stopReason() != "end_turn" || !slices.Contains(asked.Reads, notes) {
		t.Errorf("prompt: stop %q, reads %v", asked.stopReason(), asked.Reads)
	}
	wantIn(t, "the prompt's updates", asked.text(), `"kind":"read"`, "(unsaved edit)", "zebra-quartz-17")
	wantIn(t, "the load's replay", rep.Steps[5].text(), "What is the release codename?", `"sessionUpdate":"tool_call"`)
	if rep.ExitCode != 0 || !strings.Contains(string(rep.Steps[5].Result), "currentModeId") {
		t.Errorf("exit %d, load result %s", rep.ExitCode, rep.Steps[5].Result)
	}
}
