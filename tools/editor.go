package tools

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
)

// Editor is the user's editor as the hands of the file tools (tern acp):
// read_file, edit_file and write_file read what its buffers hold, unsaved
// changes included, and their writes land in it, where the user can undo
// them. Paths are absolute and symlink-free; the workspace has already
// checked them (containment, ignore rules, .git and .tern, read before
// edit), and the checkpoint is taken before the first write as on disk.
type Editor interface {
	ReadTextFile(ctx context.Context, path string) (string, error)
	WriteTextFile(ctx context.Context, path, content string) error
}

// UseEditor makes the file tools read and write through e; nil goes back
// to the disk. Call it before the tools run.
func (w *Workspace) UseEditor(e Editor) { w.editor = e }

// editorText is the editor's text of abs, a regular file the workspace
// opened, when the file tools go through an editor; ok is false when they
// read the disk.
func (w *Workspace) editorText(ctx context.Context, abs string) (text string, ok bool, err error) {
	if w.editor == nil {
		return "", false, nil
	}
	text, err = w.editor.ReadTextFile(ctx, abs)
	if err != nil {
		return "", false, fmt.Errorf("the editor could not read it: %w", err)
	}
	return text, true, nil
}

// writeFile replaces (or creates) the file abs with content: through the
// editor when there is one, its missing directories made through the
// workspace's root first; else atomically on disk (writeAtomic).
func (w *Workspace) writeFile(ctx context.Context, abs, content string, mode fs.FileMode) error {
	if w.editor == nil {
		return w.writeAtomic(abs, content, mode)
	}
	r, rel, err := w.inRoot(abs)
	if err != nil {
		return err
	}
	defer r.Close()
	if dir := filepath.Dir(rel); dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return rootErr(rel, err)
		}
	}
	if err := w.editor.WriteTextFile(ctx, abs, content); err != nil {
		return fmt.Errorf("the editor could not write it: %w", err)
	}
	return nil
}
