package config

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
)

// readmePath is the repository's README, seen from this package.
var readmePath = filepath.Join("..", "..", "..", "..", "README.md")

// TestREADMEDocumentsEveryKey keeps README true: every config key,
// nested ones ([stream], [mcp.servers.NAME], [profiles.NAME], …)
// included, is named in it. (cmd/tern's TestREADMECoversEverything does
// the same for commands and flags.)
func TestREADMEDocumentsEveryKey(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	var keys func(typ reflect.Type, prefix string)
	keys = func(typ reflect.Type, prefix string) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			key := tomlKey(f)
			if key == "" || !f.IsExported() {
				continue
			}
			if !regexp.MustCompile(`(?m)(^|[\s\[.` + "`" + `])` + regexp.QuoteMeta(key) + `\b`).MatchString(readme) {
				t.Errorf("README does not document the config key %s%s", prefix, key)
			}
			if f.Type.Kind() == reflect.Struct && f.Type.NumField() > 0 && f.Type != reflect.TypeFor[Duration]() {
				keys(f.Type, prefix+key+".")
			}
		}
	}
	keys(reflect.TypeFor[Config](), "")
}
