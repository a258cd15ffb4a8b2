package config

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite docs/configuration.md's tables from the config types' doc comments")

// docPath is the configuration reference, seen from this package.
var docPath = filepath.Join("..", "..", "..", "..", "docs", "configuration.md")

// moduleRoot is the repository root, seen from this package.
const modulePath = "github.com/ternhq/tern"

var moduleRoot = filepath.Join("..", "..", "..", "..")

// The generated part's place in docs/configuration.md.
const (
	configTableStart = "<!-- config-table: generated from the doc comments of Config and the types of its tables by `go generate ./cmd/tern/internal/config`; do not edit -->\n"
	configTableEnd   = "<!-- end config-table -->\n"
)

// TestConfigReference keeps docs/configuration.md what the config types
// say: one row per key of Config, with its default, whether a project
// file may set it, and its doc comment, then a table per nested table
// ([stream], [profiles.NAME], …) from its own type's doc comments. With
// -update (go generate ./cmd/tern/internal/config) it rewrites the
// tables instead of failing.
func TestConfigReference(t *testing.T) {
	t.Parallel()
	table, err := configReference()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	before, rest, ok := strings.Cut(doc, configTableStart)
	if !ok {
		t.Fatalf("%s has no line %q where the configuration tables go", docPath, configTableStart)
	}
	current, after, ok := strings.Cut(rest, configTableEnd)
	if !ok {
		t.Fatalf("%s's configuration tables do not end with %q", docPath, configTableEnd)
	}
	if current == table {
		return
	}
	if *update {
		if err := os.WriteFile(docPath, []byte(before+configTableStart+table+configTableEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is not what the config types' doc comments say; run `go generate ./cmd/tern/internal/config`. Want:\n%s", docPath, table)
}

// configReference renders the tables from the config types' source (for
// the doc comments) and Default (for the top level's defaults).
func configReference() (string, error) {
	docs, err := fieldDocs(reflect.TypeFor[Config]())
	if err != nil {
		return "", err
	}
	def := reflect.ValueOf(Default())
	var b, nested strings.Builder
	b.WriteString("| key | default | in `.tern.toml` | what it does |\n|---|---|---|---|\n")
	typ := reflect.TypeFor[Config]()
	for i := range typ.NumField() {
		sf := typ.Field(i)
		key := tomlKey(sf)
		if key == "" || !sf.IsExported() {
			continue
		}
		doc := docs[sf.Name]
		if doc == "" {
			return "", fmt.Errorf("the config key %s (Config.%s) has no doc comment to show in the reference", key, sf.Name)
		}
		project := projectText(key)
		if project == "" {
			return "", fmt.Errorf("the config key %s is in none of trustKeys, mergedKeys and projectKeys: say what a project file may do with it", key)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", key, defaultText(def.Field(i)), project, cell(doc))
		if err := tables(&nested, sf.Type, key); err != nil {
			return "", err
		}
	}
	return b.String() + nested.String(), nil
}

// tables writes a section for each TOML table typ holds: typ itself when
// it is a struct with keys, the values of a map keyed by a NAME, and the
// tables within those. name is the table's dotted name so far.
func tables(b *strings.Builder, typ reflect.Type, name string) error {
	switch {
	case typ.Kind() == reflect.Pointer:
		return tables(b, typ.Elem(), name)
	case typ.Kind() == reflect.Map && typ.Key().Kind() == reflect.String && isTable(typ.Elem()):
		return tables(b, typ.Elem(), name+".NAME")
	case !isTable(typ):
		return nil
	}
	docs, err := fieldDocs(typ)
	if err != nil {
		return err
	}
	var rows strings.Builder
	var inner []reflect.StructField
	for i := range typ.NumField() {
		sf := typ.Field(i)
		key := tomlKey(sf)
		if key == "" || !sf.IsExported() {
			continue
		}
		if isTable(sf.Type) || sf.Type.Kind() == reflect.Map && isTable(sf.Type.Elem()) {
			inner = append(inner, sf)
			continue
		}
		doc := docs[sf.Name]
		if doc == "" {
			return fmt.Errorf("the config key %s.%s (%s.%s) has no doc comment to show in the reference", name, key, typ, sf.Name)
		}
		fmt.Fprintf(&rows, "| `%s` | %s |\n", key, cell(doc))
	}
	if rows.Len() > 0 {
		fmt.Fprintf(b, "\n### `[%s]`\n\n| key | what it does |\n|---|---|\n%s", name, rows.String())
	}
	for _, sf := range inner {
		if err := tables(b, sf.Type, name+"."+tomlKey(sf)); err != nil {
			return err
		}
	}
	return nil
}

// isTable says whether typ is written as a TOML table of keys (a struct
// of tern's own, not a value type such as Duration).
func isTable(typ reflect.Type) bool {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct || !strings.HasPrefix(typ.PkgPath(), modulePath) {
		return false
	}
	for i := range typ.NumField() {
		if tomlKey(typ.Field(i)) != "" && typ.Field(i).IsExported() && typ.Field(i).Tag.Get("toml") != "" {
			return true
		}
	}
	return false
}

// fieldDocs reads the doc comments of typ's fields from its package's
// source, one line each.
func fieldDocs(typ reflect.Type) (map[string]string, error) {
	dir := filepath.Join(moduleRoot, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(typ.PkgPath(), modulePath), "/")))
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		var docs map[string]string
		ast.Inspect(file, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.Name != typ.Name() {
				return docs == nil
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return false
			}
			docs = map[string]string{}
			for _, f := range st.Fields.List {
				for _, n := range f.Names {
					docs[n.Name] = strings.Join(strings.Fields(f.Doc.Text()), " ")
				}
			}
			return false
		})
		if docs != nil {
			return docs, nil
		}
	}
	return nil, fmt.Errorf("no struct %s in %s", typ.Name(), dir)
}

// cell makes text fit a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

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
