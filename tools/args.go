package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// decodeArgs decodes a call's JSON arguments into v, a pointer to a struct.
// Empty arguments and null decode as {}; unknown arguments are ignored. An
// error names the argument at fault, in words a model can act on.
func decodeArgs(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return errors.New(`invalid arguments: they must be one JSON object of named arguments, such as {"path":"main.go"}`)
	}
	// Decode the arguments one by one to find the one at fault.
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		one, _ := json.Marshal(map[string]json.RawMessage{name: fields[name]})
		probe := reflect.New(reflect.TypeOf(v).Elem()).Interface()
		if ferr := json.Unmarshal(one, probe); ferr != nil {
			var typeErr *json.UnmarshalTypeError
			if errors.As(ferr, &typeErr) {
				return fmt.Errorf("invalid argument %q: want a %s, got a %s", name, typeErr.Type.Kind(), typeErr.Value)
			}
			return fmt.Errorf("invalid argument %q: %v", name, ferr)
		}
	}
	return fmt.Errorf("invalid arguments: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// intArg is an integer argument that small models may also send as a string
// ("10") or as a whole float (10.0). Set tells a given value from a missing one.
type intArg struct {
	N   int
	Set bool
}

func (a *intArg) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if s == "null" {
		return nil
	}
	if u, err := strconv.Unquote(s); err == nil {
		s = strings.TrimSpace(u)
		if s == "" {
			return nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
		return fmt.Errorf("want a whole number such as 10, got %s", b)
	}
	a.N, a.Set = int(f), true
	return nil
}

// or returns the value, or def when none was given.
func (a intArg) or(def int) int {
	if !a.Set {
		return def
	}
	return a.N
}

// boolArg is a boolean argument that small models may also send as a string
// ("true", "yes") or a number (1).
type boolArg bool

func (a *boolArg) UnmarshalJSON(b []byte) error {
	s := strings.ToLower(strings.Trim(string(bytes.TrimSpace(b)), `"`))
	switch s {
	case "true", "yes", "1", "on":
		*a = true
	case "false", "no", "0", "off", "", "null":
		*a = false
	default:
		return fmt.Errorf("want true or false, got %s", b)
	}
	return nil
}

// doc is a tool's embedded description: the text before the first "## "
// heading describes the tool, and each "## name" section describes the
// parameter called name.
type doc struct {
	text   string
	params map[string]string
}

func parseDoc(md string) doc {
	d := doc{params: make(map[string]string)}
	sections := strings.Split("\n"+md, "\n## ")
	d.text = strings.TrimSpace(sections[0])
	for _, s := range sections[1:] {
		name, body, _ := strings.Cut(s, "\n")
		d.params[strings.TrimSpace(name)] = strings.Join(strings.Fields(body), " ")
	}
	d.text = strings.Join(strings.Fields(d.text), " ")
	return d
}

// fail is a failed Result with a one-line summary for people.
func fail(summary, format string, args ...any) Result {
	r := Errorf(format, args...)
	r.Summary = summary
	return r
}

// plural returns "1 file" or "3 files": n with the word's form for it.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// humanSize formats a byte count as "812 B", "12.4 KiB" or "3.1 MiB".
func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, suffix := float64(n)/unit, "KiB"
	for _, s := range []string{"MiB", "GiB", "TiB"} {
		if v < unit {
			break
		}
		v, suffix = v/unit, s
	}
	return fmt.Sprintf("%.1f %s", v, suffix)
}
