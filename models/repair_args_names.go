package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// argAliases are argument names small models use for a parameter, by the
// parameter's name: file_path for path, contents for content, cmd for
// command. An alias is used only when the tool has that parameter and
// nothing else it could mean.
var argAliases = map[string][]string{
	"path": {"file", "filepath", "file_path", "filename", "file_name", "fname", "target_file", "target",
		"absolute_path", "abs_path", "relative_path", "dir", "dir_path", "directory", "folder", "location", "uri"},
	"content":    {"contents", "text", "data", "body", "file_content", "file_contents", "code", "new_content", "file_text", "code_edit", "new_file_content"},
	"command":    {"cmd", "shell", "script", "bash", "command_line", "commandline", "cmdline", "shell_command", "run"},
	"pattern":    {"regex", "regexp", "search", "search_pattern", "expression", "glob", "query", "term"},
	"old_string": {"old", "old_str", "old_text", "search", "find", "original", "before", "old_content", "target_text"},
	"new_string": {"new", "new_str", "new_text", "replace", "replacement", "after", "new_content", "replace_with"},
	"query":      {"q", "search", "search_query", "question", "text"},
	"offset":     {"start", "start_line", "line", "from", "line_start"},
	"limit":      {"count", "max", "lines", "num_lines", "max_results", "n"},
	"url":        {"link", "uri", "href", "address"},
}

// resolveArgName matches an argument name the tool does not take to one of
// the parameters still unset, as tool names are matched: case, separators
// and camelCase; a known alias; a prefix or suffix around the name
// (file_path for path); a small misspelling. It returns "" unless exactly
// one parameter matches.
func resolveArgName(key string, free []string) string {
	nk := normalizeName(key)
	if nk == "" || strings.HasPrefix(key, "$") {
		return ""
	}
	if n := ResolveToolName(key, free); n != "" {
		return n
	}
	var found []string
	for _, p := range free {
		np := normalizeName(p)
		if slices.Contains(argAliases[p], nk) || strings.HasSuffix(nk, "_"+np) || strings.HasPrefix(nk, np+"_") {
			found = append(found, p)
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	return ""
}

// renameArgs renames the arguments spec does not take to the parameters
// they stand for (resolveArgName). ok is false when nothing was renamed.
func renameArgs(spec ToolSpec, args json.RawMessage) (json.RawMessage, bool) {
	keys, obj, isObj := orderedObject(normalizeArgs(args))
	params := SchemaParams(spec.Parameters)
	if !isObj || len(params) == 0 {
		return args, false
	}
	known := map[string]bool{}
	for _, p := range params {
		known[p.Name] = true
	}
	renamed := false
	for i, k := range keys {
		if known[k] {
			continue
		}
		var free []string
		for _, p := range params {
			if _, set := obj[p.Name]; !set {
				free = append(free, p.Name)
			}
		}
		if n := resolveArgName(k, free); n != "" {
			obj[n] = obj[k]
			delete(obj, k)
			keys[i] = n
			renamed = true
		}
	}
	if !renamed {
		return args, false
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSON(&b, k)
		b.WriteByte(':')
		b.Write(obj[k])
	}
	b.WriteByte('}')
	return b.Bytes(), true
}

// inferTool names the tool a call without a name meant: the one tool on
// offer whose parameters take every argument given (after renaming near
// misses) and whose required parameters are all there. fits lists the
// tools that fit when more than one does.
func inferTool(args json.RawMessage, specs []ToolSpec) (name string, fits []string) {
	for _, spec := range specs {
		a, _ := renameArgs(spec, args)
		keys, obj, ok := orderedObject(normalizeArgs(a))
		if !ok || len(keys) == 0 {
			continue
		}
		params := SchemaParams(spec.Parameters)
		fit := true
		for _, k := range keys {
			if !slices.ContainsFunc(params, func(p Param) bool { return p.Name == k }) {
				fit = false
			}
		}
		for _, p := range params {
			if _, set := obj[p.Name]; p.Required && !set {
				fit = false
			}
		}
		if fit {
			fits = append(fits, spec.Name)
		}
	}
	if len(fits) == 1 {
		return fits[0], nil
	}
	return "", fits
}

// Placeholders: values a model copies from an example or a template
// instead of writing the real thing.
var (
	// <fileContent>, <path>, {content}, {{code}}, [file contents],
	// YOUR_CONTENT_HERE, your_command_here
	placeholderWhole = regexp.MustCompile(`^(?:<[A-Za-z_][\w \-]{0,40}>|\{\{?\s*[A-Za-z_][\w \-]{0,40}\}?\}|\[[A-Za-z_][\w \-]{0,40}\]|\.{2,}|…+)$|(?i)^(?:your|insert|enter|put|add)[_\s\-](?:\w+[_\s\-]){0,3}here$`)
	// $FILE_PATH, ${TARGET_DIR}: a variable no shell will expand, as a path
	placeholderVar = regexp.MustCompile(`^\$\{?[A-Z][A-Z0-9]*_[A-Z0-9_]+\}?$`)
	// /path/to/file, path/to/your/file.py, your_file.py, /your/project,
	// filename.ext
	placeholderPath = regexp.MustCompile(`(?i)(?:^|/)path/to(?:/|$)|(?:^|[/\s])your[_\-/]?(?:file|path|dir|directory|folder|script|code|project|module|repo|app)|^(?:some|my|the)[_\-]?(?:file|path)(?:\.\w+)?$|(?:^|/)(?:file|filename|file_name|name)\.(?:ext|extension)$`)
	// // ... existing code ..., # rest of the file unchanged, insert code
	// here, // ... (rest of file), # full content of the file goes here
	placeholderText = regexp.MustCompile(`(?i)(?:\.\.\.|…)\s*[(\[]?\s*(?:keep(?:ing)? |the )?(?:existing code|rest of (?:the )?(?:file|code)|remaining code|unchanged code|previous code|other code|same as before)|\b(?:rest of (?:the )?(?:file|code)|existing code) (?:remains? )?(?:the same|unchanged|here|as before)\b|\b(?:insert|put|add|your) (?:\w+ ){0,2}(?:code|content|text) here\b|^\W{0,3}(?:the )?(?:full |complete |entire |new |updated )?(?:code|content|contents|implementation|text)\b[^\n]{0,40}\bgoes here\b`)
)

// placeholderArg returns the first argument of a call that is a
// placeholder, and its value; "" when there is none.
func placeholderArg(spec ToolSpec, args json.RawMessage) (name, value string) {
	keys, obj, ok := orderedObject(args)
	if !ok {
		return "", ""
	}
	for _, k := range keys {
		var s string
		if json.Unmarshal(obj[k], &s) != nil {
			continue
		}
		t := strings.TrimSpace(s)
		switch {
		case len(t) <= 60 && placeholderWhole.MatchString(t),
			len(t) <= 200 && !strings.Contains(t, "\n") && placeholderPath.MatchString(t),
			k == "path" && placeholderVar.MatchString(t),
			placeholderText.MatchString(t):
			return k, t
		}
	}
	return "", ""
}

// cutArgs are arguments that hold whole code or text, which a cut-off
// reply leaves visibly unfinished (edit strings are fragments, and may
// well end in "(").
var cutArgs = map[string]bool{"content": true, "command": true, "code": true}

// cutArg returns the name of an argument that ends like text cut off in
// the middle ("print("): more brackets opened than closed and an opening
// bracket, comma or operator last.
func cutArg(args json.RawMessage) string {
	keys, obj, ok := orderedObject(args)
	if !ok {
		return ""
	}
	for _, k := range keys {
		var s string
		if !cutArgs[k] || json.Unmarshal(obj[k], &s) != nil {
			continue
		}
		t := strings.TrimRight(s, " \t\r\n")
		if t == "" || !strings.ContainsRune("([{,=+\\", rune(t[len(t)-1])) {
			continue
		}
		opened := 0
		for _, c := range t {
			switch c {
			case '(', '[', '{':
				opened++
			case ')', ']', '}':
				opened--
			}
		}
		if opened > 0 {
			return k
		}
	}
	return ""
}

// truncatedProblem is the correction for a call cut off mid-arguments.
func truncatedProblem(name string) string {
	return fmt.Sprintf("your call to %s was cut off before its arguments ended (the reply reached its length limit), so it was not run. Send it again, complete; if its content is long, write less in one call (a smaller edit, or the file in parts)", name)
}

// toolAliases are the names other agents give tern's tools, which small
// models trained on their transcripts call (bash for run_command, cat for
// read_file, create_file for write_file).
var toolAliases = map[string][]string{
	"run_command": {"bash", "shell", "sh", "terminal", "exec", "execute", "execute_command", "run", "run_shell", "run_shell_command",
		"run_terminal_cmd", "execute_bash", "shell_command", "command", "cmd", "run_cmd", "execute_shell", "run_in_terminal"},
	"read_file":  {"cat", "read", "open", "open_file", "view", "view_file", "get_file", "file_read", "read_file_content", "get_file_contents", "read_text_file"},
	"list_dir":   {"ls", "list", "list_files", "list_directory", "dir", "list_folder", "tree", "get_files"},
	"write_file": {"write", "create", "create_file", "save", "save_file", "file_write", "new_file", "write_to_file", "create_new_file"},
	"edit_file":  {"edit", "replace", "str_replace", "str_replace_editor", "replace_in_file", "apply_edit", "modify_file", "update_file", "patch", "file_edit", "search_replace", "replace_string_in_file"},
	"grep":       {"search", "search_files", "find_in_files", "grep_search", "search_text", "rg", "ripgrep", "code_search"},
	"glob":       {"find", "find_files", "file_search", "glob_search", "find_by_name"},
}

// aliasedTool is the offered tool another agent's name stands for. The
// names of one group of toolAliases, tern's own among them, all mean the
// same tool: bash finds an offered terminal or run_command. It returns -1
// when no offered tool, or more than one, is in the name's group.
func aliasedTool(name string, specs []ToolSpec) int {
	n := normalizeName(name)
	found := -1
	for canon, aliases := range toolAliases {
		if n != canon && !slices.Contains(aliases, n) {
			continue
		}
		for i, s := range specs {
			sn := normalizeName(s.Name)
			if sn != canon && !slices.Contains(aliases, sn) {
				continue
			}
			if found >= 0 && found != i {
				return -1
			}
			found = i
		}
	}
	return found
}

// aliasTool matches a tool name no tool on offer has to the tool other
// agents call by that name (aliasedTool), when it takes the arguments
// given (after renaming near misses). It returns "" otherwise.
func aliasTool(name string, args json.RawMessage, specs []ToolSpec) string {
	i := aliasedTool(name, specs)
	if i < 0 {
		return ""
	}
	a, _ := renameArgs(specs[i], args)
	if p, ok := positional(specs[i], a); ok {
		a = p
	}
	if _, _, err := CheckArgs(specs[i], a); err != nil {
		return ""
	}
	keys, _, _ := orderedObject(normalizeArgs(a))
	for _, k := range keys {
		if !slices.ContainsFunc(SchemaParams(specs[i].Parameters), func(p Param) bool { return p.Name == k }) {
			return "" // arguments the tool does not take: maybe not the same tool
		}
	}
	return specs[i].Name
}
