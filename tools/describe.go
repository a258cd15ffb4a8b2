package tools

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Describer is a tool that says what a call is about, for people: the
// call's subject, which follows the tool's name on the one line a call
// takes ("agent/loop.go:1-80" in "read_file agent/loop.go:1-80"). Tools
// declared with Declare are Describers.
type Describer interface {
	// Describe returns the subject of a call with args, "" when the
	// arguments name none.
	Describe(args json.RawMessage) string
}

// Describe returns what a call of t is about: the tool's own word for it,
// or, for a tool that has none (an MCP server's) or an unknown tool (nil),
// the argument such tools most often name their subject by.
func Describe(t Tool, args json.RawMessage) string {
	if d, ok := t.(Describer); ok {
		return d.Describe(args)
	}
	return subjectOf(args, commonSubject)
}

// subjectRole is the part an argument plays in a call's subject.
type subjectRole string

const (
	subjectPlain  subjectRole = ""
	subjectQuoted subjectRole = "quoted"
	subjectScope  subjectRole = "scope"
	subjectFrom   subjectRole = "from"
	subjectCount  subjectRole = "count"
)

var subjectRoles = []subjectRole{subjectPlain, subjectQuoted, subjectScope, subjectFrom, subjectCount}

// subjectArg is an argument that makes a call's subject.
type subjectArg struct {
	name string
	role subjectRole
}

// commonSubject guesses the subject of a tool that does not declare one,
// by the names most tools give their arguments.
var commonSubject = []subjectArg{
	{"command", subjectPlain}, {"pattern", subjectQuoted}, {"query", subjectQuoted}, {"path", subjectScope},
	{"file_path", subjectPlain}, {"file", subjectPlain}, {"url", subjectPlain}, {"dir", subjectPlain},
	{"offset", subjectFrom}, {"limit", subjectCount},
}

// subjectOf builds a call's subject from the arguments that make it: the
// first given one of the plain, quoted and scope arguments (a quoted one
// followed by its scope, "in cmd"), then the line range of from and count.
func subjectOf(raw json.RawMessage, args []subjectArg) string {
	var m map[string]any
	if len(args) == 0 || json.Unmarshal(raw, &m) != nil || len(m) == 0 {
		return ""
	}
	str := func(k string) string {
		switch v := m[k].(type) {
		case string:
			return v
		case float64:
			return strconv.FormatFloat(v, 'f', -1, 64)
		case bool:
			return strconv.FormatBool(v)
		}
		return ""
	}
	of := func(role subjectRole) string {
		for _, a := range args {
			if a.role == role {
				return str(a.name)
			}
		}
		return ""
	}
	var main string
	for _, a := range args {
		if a.role != subjectPlain && a.role != subjectQuoted && a.role != subjectScope {
			continue
		}
		if v := str(a.name); v != "" {
			main = v
			if a.role == subjectQuoted {
				main = strconv.Quote(v)
				if p := of(subjectScope); p != "" && p != "." {
					main += " in " + p
				}
			}
			break
		}
	}
	if main == "" {
		return ""
	}
	if off := of(subjectFrom); off != "" {
		start, _ := strconv.Atoi(off)
		if lim, _ := strconv.Atoi(of(subjectCount)); lim > 0 {
			main += fmt.Sprintf(":%d-%d", start, start+lim-1)
		} else {
			main += ":" + off + "-"
		}
	}
	return main
}
