package config

import (
	"encoding"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ternhq/tern/cmd/tern/internal/words"
)

// FileError is every problem of one config file: its unknown keys, the
// values of the wrong type and those out of range, each on a line of its
// own, so that one run of tern shows them all.
type FileError struct {
	Path     string
	Problems []string
}

func (e FileError) Error() string {
	if len(e.Problems) == 1 {
		return fmt.Sprintf("config %s: %s", e.Path, e.Problems[0])
	}
	return fmt.Sprintf("config %s has %d problems:\n  %s", e.Path, len(e.Problems), strings.Join(e.Problems, "\n  "))
}

// decodeFile decodes the TOML text data into cfg key by key, so that a
// value of the wrong type does not hide the rest: it returns the file's
// metadata and its problems (unknown keys, each with the known key it was
// probably meant as, and values that do not decode); err when the text
// does not parse.
func decodeFile(data string, cfg *Config) (md toml.MetaData, problems []string, err error) {
	var top map[string]toml.Primitive
	if md, err = toml.Decode(data, &top); err != nil {
		return md, nil, err
	}
	d := decoder{md: md}
	d.table(top, reflect.ValueOf(cfg).Elem(), nil)
	// Keys inside maps and other values decoded whole ([profiles.NAME],
	// [mcp.servers.NAME]) are checked by the toml package.
	for _, k := range md.Undecoded() {
		d.unknown(k)
	}
	return md, d.problems, nil
}

// decoder walks a file's tables along Config's fields.
type decoder struct {
	md       toml.MetaData
	problems []string
	// reported are the unknown keys said, so that a table's keys are
	// not said again under it.
	reported []toml.Key
}

// table decodes the keys of one table, in the order the file has them,
// into the struct v at path.
func (d *decoder) table(keys map[string]toml.Primitive, v reflect.Value, path toml.Key) {
	// A key's place is where the file first names it or a key below it
	// (a table of its own, [a.b], names no [a]).
	first := map[string]int{}
	for i, k := range d.md.Keys() {
		if len(k) > len(path) && slices.Equal(k[:len(path)], path) {
			if _, ok := first[k[len(path)]]; !ok {
				first[k[len(path)]] = i
			}
		}
	}
	names := slices.SortedFunc(maps.Keys(keys), func(a, b string) int { return first[a] - first[b] })
	for _, name := range names {
		prim := keys[name]
		k := append(slices.Clone(path), name)
		f, ok := fieldByKey(v, name)
		if !ok {
			d.unknown(k)
			continue
		}
		if walked(f.Type()) {
			var sub map[string]toml.Primitive
			if typ := d.md.Type(k...); d.md.PrimitiveDecode(prim, &sub) != nil || typ != "" && typ != "Hash" {
				d.problems = append(d.problems, fmt.Sprintf("%s must be a table ([%s])", k, k))
				continue
			}
			d.table(sub, f, k)
			continue
		}
		if err := d.md.PrimitiveDecode(prim, f.Addr().Interface()); err != nil {
			d.problems = append(d.problems, tomlProblem(err))
		}
	}
}

// unknown reports k, or the table above it that tern does not know
// ([strem] is said once, not key by key), with the key it was probably
// meant as: mcp.server gets "did you mean mcp.servers?".
func (d *decoder) unknown(k toml.Key) {
	top := reflect.TypeFor[Config]()
	if known(top, k) {
		return // a map's table ([profiles.NAME]), whose keys are checked
	}
	// The first part of k that leads nowhere tern knows.
	for i := 1; i < len(k); i++ {
		if !known(top, k[:i]) {
			k = k[:i]
			break
		}
	}
	for _, r := range d.reported {
		if len(r) <= len(k) && slices.Equal(r, k[:len(r)]) {
			return
		}
	}
	d.reported = append(d.reported, k)
	part := fmt.Sprintf("unknown key %q", k.String())
	if known := knownKeysAt(top, k[:len(k)-1]); len(known) > 0 {
		if best := words.Nearest(k[len(k)-1], known); best != "" {
			part += fmt.Sprintf(" (did you mean %q?)", strings.Join(append(slices.Clone(k[:len(k)-1]), best), "."))
		}
	}
	d.problems = append(d.problems, part)
}

// fieldByKey is the field of the struct v that the key name is read into.
func fieldByKey(v reflect.Value, name string) (reflect.Value, bool) {
	f, ok := structField(v.Type(), name)
	if !ok {
		return reflect.Value{}, false
	}
	return v.FieldByIndex(f.Index), true
}

// walked reports whether a value of t is a table whose keys are walked
// one by one: a struct that does not decode itself.
func walked(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	p := reflect.PointerTo(t)
	return !p.Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) && !p.Implements(reflect.TypeFor[toml.Unmarshaler]())
}

// knownKeysAt lists the keys a config table at path may hold, following
// the toml tags of t; a map's key (a profile's or server's name) matches
// anything. nil when path leads nowhere tern knows.
func knownKeysAt(t reflect.Type, path []string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if len(path) == 0 {
		if t.Kind() != reflect.Struct {
			return nil
		}
		var keys []string
		for i := range t.NumField() {
			if k := tomlKey(t.Field(i)); k != "" && t.Field(i).IsExported() {
				keys = append(keys, k)
			}
		}
		return keys
	}
	switch t.Kind() {
	case reflect.Map:
		return knownKeysAt(t.Elem(), path[1:])
	case reflect.Struct:
		for i := range t.NumField() {
			if tomlKey(t.Field(i)) == path[0] {
				return knownKeysAt(t.Field(i).Type, path[1:])
			}
		}
	}
	return nil
}

// known reports whether the key path leads somewhere in t: along struct
// fields by their keys, and through maps, whose keys are names (any is
// known), to the end or into a value of any shape.
func known(t reflect.Type, path []string) bool {
	for _, part := range path {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Map:
			t = t.Elem()
		case reflect.Struct:
			f, ok := structField(t, part)
			if !ok {
				return false
			}
			t = f.Type
		case reflect.Interface:
			return true // a free-form table (a language server's settings)
		default:
			return false
		}
	}
	return true
}

// structField is the field of the struct type t read from key.
func structField(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && tomlKey(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// tomlProblem words an error of the toml package: "line 2: ctx must be
// an integer, not a string" instead of `toml: line 2 (last key "ctx"):
// incompatible types: TOML value has type string; destination has type
// integer`.
func tomlProblem(err error) string {
	msg := strings.TrimPrefix(err.Error(), "toml: ")
	line, rest, ok := strings.Cut(msg, " (last key ")
	if !ok {
		return msg
	}
	key, rest, ok := strings.Cut(rest, "): ")
	if !ok {
		return msg
	}
	key = strings.Trim(key, `"`)
	if m := typeMismatch.FindStringSubmatch(rest); m != nil {
		return fmt.Sprintf("%s: %s must be %s, not %s", line, key, article(m[2]), article(m[1]))
	}
	return fmt.Sprintf("%s: %s: %s", line, key, rest)
}

// typeMismatch is the toml package's wording of a value of the wrong type.
var typeMismatch = regexp.MustCompile(`^incompatible types: TOML value has type (\w+); destination has type (\w+)`)

// article puts "a" or "an" before a type's name.
func article(s string) string {
	s = strings.ToLower(s)
	switch s {
	case "hash", "map", "struct":
		return "a table"
	case "slice", "array":
		return "an array"
	case "float":
		return "a number"
	}
	if strings.ContainsAny(s[:1], "aeiou") {
		return "an " + s
	}
	return "a " + s
}
