package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ternhq/tern/cmd/tern/internal/words"
)

// UnknownKeysError names the keys a config file holds that tern does not
// know, each with the known key it was probably meant as, if any.
type UnknownKeysError struct {
	Path string
	Keys []string // `"modle" (did you mean "model"?)`
}

func (e UnknownKeysError) Error() string {
	if len(e.Keys) == 1 {
		return fmt.Sprintf("config %s: unknown key %s", e.Path, e.Keys[0])
	}
	return fmt.Sprintf("config %s: unknown keys %s and %s", e.Path, strings.Join(e.Keys[:len(e.Keys)-1], ", "), e.Keys[len(e.Keys)-1])
}

// unknownKeys words the keys of path that tern does not know: "modle"
// (did you mean "model"?); a table's keys are not listed when the table
// itself is unknown.
func unknownKeys(path string, keys []toml.Key) UnknownKeysError {
	e := UnknownKeysError{Path: path}
	seen := map[string]bool{}
	for _, k := range keys {
		name := k.String()
		if seen[name] || hasUnknownParent(k, seen) {
			continue
		}
		seen[name] = true
		part := fmt.Sprintf("%q", name)
		if known := knownKeysAt(reflect.TypeFor[Config](), k[:len(k)-1]); len(known) > 0 {
			if best := words.Nearest(k[len(k)-1], known); best != "" {
				part += fmt.Sprintf(" (did you mean %q?)", strings.Join(append(slices.Clone(k[:len(k)-1]), best), "."))
			}
		}
		e.Keys = append(e.Keys, part)
	}
	return e
}

// hasUnknownParent is true when a table above k was already reported:
// [strem] reports "strem", not each key inside it.
func hasUnknownParent(k toml.Key, seen map[string]bool) bool {
	for i := 1; i < len(k); i++ {
		if seen[k[:i].String()] {
			return true
		}
	}
	return false
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
