package index

import (
	"strings"
	"testing"
)

// The data sniffed from a file's head: the formats, each as a whole file
// and cut short, and code and prose that only look like them.
func TestSniffData(t *testing.T) {
	plist := `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>name</key>
  <string>Dark</string>
</dict>
</plist>
`
	syntax := "%YAML 1.2\n---\nname: TOML\nscope: source.toml\n"
	for _, tt := range []struct{ name, head, want string }{
		{"json object", `{"name": "x", "version": 2, "tags": ["a", "b"], "ok": true, "n": -1.5e3}`, "json"},
		{"json array", "[\n  {\"a\": 1},\n  {\"a\": null}\n]\n", "json"},
		{"json with comments and trailing commas", "// Settings\n{\n  /* the font */ \"font_size\": 12,\n  \"rulers\": [80,],\n}\n", "json"},
		{"json cut short", `{"name": "x", "description": "a long descr`, "json"},
		{"json, one line of many", `{"__name__":"metric","foo":"bar"}` + "\n" + `{"__name__":"metric","foo":"baz"}`, ""},
		{"a json value too small to tell", "{}", ""},
		{"xml plist", plist, "plist"},
		{"xml plist cut short", plist[:len(plist)-20], "plist"},
		{"xml without a declaration", "<project>\n  <target name=\"build\"/>\n</project>\n", "xml"},
		{"a web page", "<!DOCTYPE html>\n<html><body><p>Hi<br></body></html>\n", "html"},
		{"php is not xml", "<?php\necho 'hi';\n?>\n", ""},
		{"a component with code is not xml", "<script>\nif (a < b && c) { go() }\n</script>\n", ""},
		{"a component is not xml", "<script>\n  let count = 0;\n</script>\n\n<div>\n  <button/>\n</div>\n", ""},
		{"yaml directive", syntax, "yaml"},
		{"yaml keys", "name: build\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu-latest\n", "yaml"},
		{"yaml items and block scalars", "steps:\n- name: test\n  run: |\n    go test ./...\n    echo done\n- lint\n", "yaml"},
		{"yaml cut short", "name: x\nversion: 1\ndescription: a long descr", "yaml"},
		{"a justfile is not yaml", "build:\n    cargo build\n\ntest:\n    cargo test\n", ""},
		{"a makefile is not yaml", "all: build\n\tgo build ./...\ntest: all\n\tgo test ./...\n", ""},
		{"python is not yaml", "class Foo:\n    x = 1\n\nclass Bar:\n    y = 2\n", ""},
		{"rust is not yaml", "#[derive(Debug)]\nstruct Foo {\n    x: u32,\n}\n", ""},
		{"a changelog is not yaml", "# Changes\n\nFixed: the pager.\nAdded: themes.\n\nMore text here.\n", ""},
		{"ini", "[Unit]\nDescription=The pager\nAfter=network.target\n\n[Service]\nExecStart=/usr/bin/pg\n", "ini"},
		{"ini with comments", "; settings\n[core]\n\tbare = false\n# more\n[remote \"origin\"]\nurl = x\n", "ini"},
		{"powershell is not ini", "[CmdletBinding()]\nparam(\n  [string]$Name\n)\n", ""},
		{"old-style plist", "{\n  name = \"Dark\";\n  settings = ( { background = \"#000\"; } );\n}\n", "plist"},
		{"xcode project cut short", "// !$*UTF8*$!\n{\n\tarchiveVersion = 1;\n\tclasses = {\n\t};\n\tobjects = {\n\t\t0A1B /* main.m */ = {isa = PBXBuildFile; fileRef = 0A1C /* main.m */; };\n", "plist"},
		{"nix is not a plist", "{\n  description = \"a flake\";\n  outputs = { self, nixpkgs }: {\n    packages = nixpkgs;\n  };\n}\n", ""},
		{"plist data and arrays", "{\n  key = <0fbd 7891>;\n  list = (a, \"b c\", { x = 1; },);\n}\n", "plist"},
		{"a record of another language", "{\n  name = \"test\",\n  nested = { value = 1 },\n}\n", ""},
		{"prometheus dump", `{__name__="heavy_metric", foo="bar"} 9 0`, ""},
		{"prose", "This is a README.\nIt has no format.\n", ""},
		{"empty", "", ""},
	} {
		whole := !strings.Contains(tt.name, "cut short")
		if got := sniffData([]byte(tt.head), whole); got != tt.want {
			t.Errorf("%s: sniffData = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func FuzzSniffData(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2, {"b": null}]}`, "<a><b/></a>", "%YAML 1.2\nk: v\n", "k: v\nl:\n  - m\n",
		"[s]\nk = v\n", "{ a = b; }", "// !$*UTF8*$!\n{ a = 1; }", "[,]", "{\"a\":}"} {
		f.Add([]byte(s), true)
		f.Add([]byte(s[:len(s)/2]), false)
	}
	f.Fuzz(func(t *testing.T, head []byte, whole bool) {
		if got := sniffData(head, whole); got != sniffData(head, whole) {
			t.Fatalf("sniffData(%q) is not stable", head)
		}
	})
}
