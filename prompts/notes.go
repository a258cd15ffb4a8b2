package prompts

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

//go:embed notes/init.md
var initNotes string

// InitNotes is the prompt of /init: look around the repository with the
// tools, then answer with the project notes (AGENTS.md) a coding
// assistant should read before working in it.
func InitNotes() string { return initNotes }

// NotesFiles are the project-notes files tern reads, first found wins.
var NotesFiles = []string{"AGENTS.md", "TERN.md"}

// ProjectNotes reads the project notes at the root of a repository, cut to
// at most maxBytes at a line boundary. It returns "" when there are none;
// name is the file read.
func ProjectNotes(root string, maxBytes int) (notes, name string, cut bool, err error) {
	for _, n := range NotesFiles {
		data, err := os.ReadFile(filepath.Join(root, n))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", n, false, fmt.Errorf("read project notes: %w", err)
		}
		text := strings.TrimSpace(strings.ToValidUTF8(string(data), "\uFFFD"))
		if len(text) <= maxBytes {
			return text, n, false, nil
		}
		text = text[:maxBytes]
		if i := strings.LastIndexByte(text, '\n'); i > maxBytes/2 {
			text = text[:i]
		}
		for !utf8.ValidString(text) {
			text = text[:len(text)-1]
		}
		return text + "\n(" + n + " continues; read it with read_file)", n, true, nil
	}
	return "", "", false, nil
}
