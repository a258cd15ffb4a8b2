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

	"github.com/ternhq/tern/models"
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

// NotesWriter writes the project notes /init drafted. It never overwrites:
// a new AGENTS.md is created at Root, but when one exists it is left alone
// and the draft saved as AGENTS.draft.md in tern's state directory, for the
// user to merge by hand. Its methods are those of the TUI's notes writer.
type NotesWriter struct {
	Root string
	// StateFile returns the path of a file in tern's state directory,
	// making the directory; it is called only when a draft is saved.
	StateFile func(name string) (string, error)
}

// Prompt asks the model for the notes.
func (NotesWriter) Prompt() string { return initNotes }

// WriteNotes writes content and returns where it went, with why when it
// is not AGENTS.md.
func (w NotesWriter) WriteNotes(content string) (string, error) {
	path := filepath.Join(w.Root, "AGENTS.md")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		draft, err := w.StateFile("AGENTS.draft.md")
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(draft, []byte(content), 0o644); err != nil {
			return "", fmt.Errorf("write %s: %w", draft, err)
		}
		return draft + " (AGENTS.md exists and was left alone; merge the draft by hand)", nil
	}
	if err != nil {
		return "", fmt.Errorf("create %s: %w", path, err)
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// NotesMaxBytes caps the project notes sent in the system prompt.
const NotesMaxBytes = 4 << 10

// ForModel renders a session's system prompt for a model's profile, with
// the repository's project notes (at most NotesMaxBytes of them; notices
// says when they were cut). think is the thinking level asked for ("" for
// none): a profile that switches thinking off by a tag gets it. The prompt
// holds no tools: in the text tool protocol the agent appends their
// description itself, for the tools on offer at each request.
func ForModel(root string, prof models.Profile, think string) (system string, notices []string, err error) {
	notes, file, cut, err := ProjectNotes(root, NotesMaxBytes)
	if err != nil {
		return "", nil, err
	}
	if cut {
		notices = append(notices, fmt.Sprintf("%s is long; only its first %d KiB are in the prompt", file, NotesMaxBytes>>10))
	}
	system, err = Render(System{Family: prof.Prompt, Repo: filepath.Base(root), Notes: notes,
		Reminder: prof.OneToolPerReply, NoThink: prof.ThinkControl == models.ThinkTag && think == ""})
	return system, notices, err
}
