package config

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

var updateREADME = flag.Bool("update-readme", false, "rewrite README's configuration table from Config's doc comments")

// The configuration table's place in README.
const (
	configTableStart = "<!-- config-table: generated from the doc comments of Config in cmd/tern/internal/config/config.go by `go generate ./cmd/tern/internal/config`; do not edit -->\n"
	configTableEnd   = "<!-- end config-table -->\n"
)

// TestREADMEConfigTable keeps README's configuration table what Config
// says: one row per key, with its default, whether a project file may set
// it, and its doc comment. With -update-readme (go generate
// ./cmd/tern/internal/config) it rewrites the table instead of failing.
func TestREADMEConfigTable(t *testing.T) {
	t.Parallel()
	table, err := configTable()
	if err != nil {
		t.Fatal(err)
	}
	path := readmePath
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	before, rest, ok := strings.Cut(readme, configTableStart)
	if !ok {
		t.Fatalf("README has no line %q where the configuration table goes", configTableStart)
	}
	current, after, ok := strings.Cut(rest, configTableEnd)
	if !ok {
		t.Fatalf("README's configuration table does not end with %q", configTableEnd)
	}
	if current == table {
		return
	}
	if *updateREADME {
		if err := os.WriteFile(path, []byte(before+configTableStart+table+configTableEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README's configuration table is not what Config's doc comments say; run `go generate ./cmd/tern/internal/config`. Want:\n%s", table)
}

// configTable renders the table from config.go's source (for the doc
// comments) and Default (for the defaults).
func configTable() (string, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "config.go", nil, parser.ParseComments)
	if err != nil {
		return "", err
	}
	var fields []*ast.Field
	ast.Inspect(file, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "Config" {
			fields = ts.Type.(*ast.StructType).Fields.List
			return false
		}
		return true
	})
	if fields == nil {
		return "", fmt.Errorf("config.go declares no Config struct")
	}
	def := reflect.ValueOf(Default())
	var b strings.Builder
	b.WriteString("| key | default | in `.tern.toml` | what it does |\n|---|---|---|---|\n")
	for _, f := range fields {
		if f.Tag == nil || len(f.Names) != 1 {
			continue
		}
		tag, _ := strconv.Unquote(f.Tag.Value)
		sf, _ := reflect.TypeFor[Config]().FieldByName(f.Names[0].Name)
		key := tomlKey(reflect.StructField{Tag: reflect.StructTag(tag)})
		if key == "" || !sf.IsExported() {
			continue
		}
		doc := strings.Join(strings.Fields(f.Doc.Text()), " ")
		if doc == "" {
			return "", fmt.Errorf("the config key %s (Config.%s) has no doc comment to show in README", key, sf.Name)
		}
		project := projectText(key)
		if project == "" {
			return "", fmt.Errorf("the config key %s is in none of trustKeys, mergedKeys and projectKeys: say what a project file may do with it", key)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", key, defaultText(def.FieldByIndex(sf.Index)), project, strings.ReplaceAll(doc, "|", `\|`))
	}
	return b.String(), nil
}

// defaultText writes a default value as TOML would hold it.
func defaultText(v reflect.Value) string {
	if d, ok := v.Interface().(Duration); ok {
		s := d.Duration.String()
		for _, unit := range []string{"h0m0s", "m0s"} {
			if strings.HasSuffix(s, unit) {
				s = strings.TrimSuffix(s, unit[1:])
			}
		}
		if d.Duration == 0 {
			s = time.Duration(0).String()
		}
		return "`\"" + s + "\"`"
	}
	switch v.Kind() {
	case reflect.String:
		return "`" + strconv.Quote(v.String()) + "`"
	case reflect.Bool:
		return "`" + strconv.FormatBool(v.Bool()) + "`"
	case reflect.Int:
		return "`" + strconv.FormatInt(v.Int(), 10) + "`"
	case reflect.Float64:
		return "`" + strconv.FormatFloat(v.Float(), 'f', -1, 64) + "`"
	case reflect.Slice:
		if v.Len() == 0 {
			return "`[]`"
		}
	case reflect.Pointer:
		if v.IsNil() {
			return "unset"
		}
	case reflect.Map, reflect.Struct:
		return "(a table)"
	}
	return fmt.Sprintf("`%v`", v.Interface())
}

// projectText says what a project's .tern.toml may do with a key.
func projectText(key string) string {
	switch {
	case trustKeys[key] != "":
		return "no: your own file only"
	case mergedKeys[key] != "":
		return mergedKeys[key]
	case projectKeys[key]:
		return "yes"
	}
	return ""
}
