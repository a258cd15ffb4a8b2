package index

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
)

// Data files in formats tern does not know by extension (a highlighter's
// .sublime-syntax and .tmTheme, an Xcode project's .pbxproj, a systemd
// unit) are known by their first bytes: text that reads as JSON, XML,
// YAML, a property list or an INI file is data, and ranks as
// configuration does, below code. Only the head of a file is read, so a
// large file costs what a small one does.

// sniffBytes is how much of a file's head detectLang reads.
const sniffBytes = 1024

// sniffData names the data format that head, the first bytes of a file,
// reads as: "json", "xml", "html", "yaml", "plist" (a property list, in
// XML or in the old style of OpenStep and Xcode) or "ini"; "" for
// anything else. whole says head is the whole file; otherwise its last
// line may be cut.
func sniffData(head []byte, whole bool) string {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	start := bytes.TrimLeft(head, " \t\r\n")
	if len(start) == 0 {
		return ""
	}
	switch start[0] {
	case '<':
		return xmlLike(start, whole)
	case '{', '[', '(', '/':
		switch {
		case treeLike(start, whole, &jsonDialect):
			return "json"
		case treeLike(start, whole, &plistDialect):
			return "plist" // OpenStep's and Xcode's (.pbxproj)
		}
	}
	if !whole {
		// The last line may be cut.
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
			head = head[:i]
		}
	}
	if yamlLike(head) {
		return "yaml"
	}
	if iniLike(head) {
		return "ini"
	}
	return ""
}

// A dialect is the syntax of a tree of dictionaries and arrays: JSON,
// with the comments and trailing commas its configuration files allow
// (JSONC), or the old-style property list of OpenStep and Xcode:
// { key = value; list = (a, b); data = <0fbd>; }.
type dialect struct {
	dict, array [2]byte // their brackets
	pair        byte    // between a key and its value
	entry       byte    // after a dictionary's entry
	// bare says an entry may end at the dictionary's end without its
	// entry byte: JSON's commas separate, a plist's semicolons end.
	bare bool
	// word reports an unquoted word the dialect allows as a value.
	word func(w []byte) bool
	// openStep allows a plist's unquoted keys and <hex data>.
	openStep bool
}

var (
	jsonDialect  = dialect{dict: [2]byte{'{', '}'}, array: [2]byte{'[', ']'}, pair: ':', entry: ',', bare: true, word: jsonLiteral}
	plistDialect = dialect{dict: [2]byte{'{', '}'}, array: [2]byte{'(', ')'}, pair: '=', entry: ';', word: plistWord, openStep: true}
)

// treeLike reports text that reads as a tree of dialect d up to its end:
// the end of one whole value, or of the head. A value of one or two
// tokens ("{}") is too little to tell.
func treeLike(b []byte, whole bool, d *dialect) bool {
	// The states after a token: a value is wanted, a dictionary's key
	// (or its end), the pair byte after a key, or what follows a value.
	const (
		value = iota
		key
		pair
		next
	)
	var stack [64]byte // the open brackets
	depth, state, tokens := 0, value, 0
	cut := func() bool { return !whole && tokens > 2 } // the head ends inside a token
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
			continue
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			j := bytes.IndexByte(b[i:], '\n')
			if j < 0 {
				return cut()
			}
			i += j
			continue
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			j := bytes.Index(b[i+2:], []byte("*/"))
			if j < 0 {
				return cut()
			}
			i += j + 4
			continue
		}
		if depth == 0 && tokens > 0 {
			return false // something after the value
		}
		tokens++
		inDict := depth > 0 && stack[depth-1] == d.dict[0]
		switch {
		case c == d.dict[0] || c == d.array[0]:
			if state != value || depth == len(stack) {
				return false
			}
			stack[depth] = c
			depth++
			state = value
			if c == d.dict[0] {
				state = key
			}
			i++
		case c == d.dict[1] || c == d.array[1]:
			open := d.dict[0]
			if c == d.array[1] {
				open = d.array[0]
			}
			if depth == 0 || stack[depth-1] != open {
				return false
			}
			// A dictionary ends where a key may start, or after a
			// value where the dialect's entries need no end; an array
			// where a value may start (a trailing comma) or after one.
			if ok := state == key || state == next && (d.bare || !inDict) || state == value && !inDict; !ok {
				return false
			}
			depth--
			state = next
			i++
		case c == d.pair:
			if state != pair {
				return false
			}
			state = value
			i++
		case inDict && c == d.entry, !inDict && c == ',':
			if state != next || depth == 0 {
				return false
			}
			state = value
			if inDict {
				state = key
			}
			i++
		case c == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' && b[j] != '\n' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(b) {
				return cut()
			}
			if b[j] != '"' || state != value && state != key {
				return false
			}
			if state == key {
				state = pair
			} else {
				state = next
			}
			i = j + 1
		case c == '<' && d.openStep: // <hex data>
			j := bytes.IndexByte(b[i:], '>')
			if j < 0 {
				return cut()
			}
			if state != value {
				return false
			}
			state = next
			i += j + 1
		default:
			j := i
			for j < len(b) && wordByte(b[j]) {
				j++
			}
			if j == len(b) && cut() {
				return true
			}
			switch {
			case state == key && d.openStep && j > i:
				state = pair
			case state == value && d.word(b[i:j]):
				state = next
			default:
				return false
			}
			i = j
		}
		if depth == 0 {
			state = next
		}
	}
	if whole {
		return depth == 0 && state == next && tokens > 2
	}
	return tokens > 2
}

// wordByte reports a byte of an unquoted word: a JSON literal, or a plist
// string.
func wordByte(c byte) bool {
	return isIdentByte(c) || bytes.IndexByte([]byte(".+-$/:"), c) >= 0
}

// plistWord reports an unquoted plist string.
func plistWord(w []byte) bool { return len(w) > 0 }

// jsonLiteral reports a JSON number, true, false or null.
func jsonLiteral(w []byte) bool {
	switch string(w) {
	case "true", "false", "null":
		return true
	case "":
		return false
	}
	for i, c := range w {
		if (c < '0' || c > '9') && c != '.' && c != 'e' && c != 'E' && c != '+' && !(c == '-' && (i == 0 || w[i-1]|0x20 == 'e')) {
			return false
		}
	}
	return w[0] == '-' || w[0] >= '0' && w[0] <= '9'
}

// xmlLike names text that reads as XML up to its last tag: "xml",
// "plist" for a property list (a .tmTheme), or "html" for a web page.
// The first thing in it must be an XML declaration, a document type or an
// element (after comments), and it has one root element: "<?php" is not
// XML, nor is a web component's <script> beside its <template>.
func xmlLike(b []byte, whole bool) string {
	if !whole {
		// Cut after the last complete tag: what follows may be cut.
		b = b[:bytes.LastIndexByte(b, '>')+1]
	}
	lower := bytes.ToLower(b[:min(len(b), 20)])
	if bytes.HasPrefix(lower, []byte("<!doctype html")) || bytes.HasPrefix(lower, []byte("<html")) {
		return "html" // not always well-formed XML
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	var root string
	depth := 0
	for first := true; ; {
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			switch root {
			case "":
				return ""
			case "plist":
				return "plist"
			}
			return "xml"
		}
		if err != nil {
			return ""
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 && root != "" {
				return "" // a second root
			}
			if root == "" {
				root = t.Name.Local
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.ProcInst:
			if first && t.Target != "xml" {
				return ""
			}
		case xml.Directive:
			if first && !bytes.HasPrefix(t, []byte("DOCTYPE")) {
				return ""
			}
		case xml.Comment:
			continue
		case xml.CharData:
			if len(bytes.TrimSpace(t)) == 0 {
				continue
			}
			if depth == 0 {
				return "" // text beside the root
			}
		}
		first = false
	}
}

// yamlLike reports lines that read as YAML: a "%YAML" directive, or
// lines each of which is blank, a comment, a document marker, a list
// item, or a key and a colon at the margin, or indented by spaces, with
// at least two keys. An indented line is a key, an item, or the text of
// a block scalar ("key: |"); fewer than half as many indented lines as
// keys may be anything else (a plain scalar's second line), so a
// justfile's recipes are not YAML. A colon ends a key only before a
// space or the end of the line ("a::b" and "x := 1" are code), and tabs
// do not indent YAML, so a makefile is not.
func yamlLike(b []byte) bool {
	if bytes.HasPrefix(b, []byte("%YAML")) {
		return true
	}
	keys, loose := 0, 0
	block := -1 // the indent of the key of the block scalar we are in
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte("\n"))
		line = bytes.TrimRight(line, " \r")
		text := bytes.TrimLeft(line, " ")
		indent := len(line) - len(text)
		if len(text) == 0 || block >= 0 && indent > block {
			continue
		}
		block = -1
		item := text[0] == '-' && (len(text) == 1 || text[1] == ' ')
		if item {
			text = bytes.TrimLeft(text[1:], " ") // it may hold a key
			if len(text) == 0 {
				continue
			}
		}
		switch {
		case text[0] == '#':
		case indent == 0 && !item && (bytes.HasPrefix(text, []byte("---")) || bytes.Equal(text, []byte("..."))):
		case yamlKey(text):
			keys++
			if v := bytes.TrimLeft(text[bytes.IndexByte(text, ':')+1:], " "); len(v) > 0 && (v[0] == '|' || v[0] == '>') {
				block = indent
			}
		case item:
		case indent > 0:
			loose++
		default:
			return false
		}
	}
	return keys >= 2 && 2*loose < keys
}

// yamlKey reports a line that starts with a mapping key: a word (letters,
// digits, '_', '-', '.', '/') or a quoted string, then a colon before a
// space or the end of the line. A key with spaces in it is left out:
// "class Foo:" is Python.
func yamlKey(line []byte) bool {
	n := 0
	if q := line[0]; q == '"' || q == '\'' {
		i := bytes.IndexByte(line[1:], q)
		if i < 0 {
			return false
		}
		n = i + 2
	} else {
		for n < len(line) && (isIdentByte(line[n]) || line[n] == '-' || line[n] == '.' || line[n] == '/') {
			n++
		}
	}
	return n > 0 && n < len(line) && line[n] == ':' && (n+1 == len(line) || line[n+1] == ' ')
}

// iniLike reports lines that read as an INI file: a [section] first, then
// sections, comments (# or ;), key = value lines and indented
// continuations, with at least one key.
func iniLike(b []byte) bool {
	keys, sections := 0, 0
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte("\n"))
		line = bytes.TrimRight(line, " \t\r")
		switch {
		case len(line) == 0, line[0] == '#', line[0] == ';':
		case line[0] == '[' && line[len(line)-1] == ']':
			sections++
		case sections == 0:
			return false
		case line[0] == ' ' || line[0] == '\t':
		default:
			k, _, ok := bytes.Cut(line, []byte("="))
			k = bytes.TrimRight(k, " \t")
			if !ok || len(k) == 0 {
				return false
			}
			for _, c := range k {
				if !isIdentByte(c) && c != '-' && c != '.' && c != ' ' {
					return false
				}
			}
			keys++
		}
	}
	return sections > 0 && keys > 0
}
