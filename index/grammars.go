package index

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	lang "github.com/ternhq/tern/index/grammar"
)

// A grammar tells the chunker how to find the symbols of one language.
type grammar struct {
	// Grammar is the language: its name, extensions and parser.
	*lang.Grammar
	// comments are the line prefixes of doc comments, attributes and
	// decorators that belong to the symbol below them.
	comments []string
	// blocks says the language has /* */ comments.
	blocks bool
	// sep joins a type's name to its members' names.
	sep string
	// wrappers are node types around one declaration (export, decorators,
	// templates): the symbol is inside, its lines are the wrapper's.
	wrappers map[string]bool
	classify func(n *sitter.Node, src []byte) sym
}

// sym is what classify says about a node. A zero sym is not a symbol; a sym
// with only members is a transparent group whose children are scanned.
type sym struct {
	kind string
	name string
	// nameNode is where the name stands; its line is the signature.
	nameNode *sitter.Node
	// members holds nested declarations (a class body, an impl block).
	members *sitter.Node
}

// compactKinds are containers kept whole while they fit a chunk: their
// members are signatures that read best together.
var compactKinds = map[string]bool{"interface": true, "trait": true, "enum": true}

// typeKinds are the kinds whose members are methods named Type.member.
var typeKinds = map[string]bool{
	"class": true, "struct": true, "interface": true, "trait": true, "impl": true, "enum": true,
}

var grammars = []*grammar{
	{Grammar: lang.Named("go"),
		comments: []string{"//"}, blocks: true, sep: ".", classify: goSymbol},
	{Grammar: lang.Named("python"),
		comments: []string{"#", "@"}, sep: ".",
		wrappers: map[string]bool{"decorated_definition": true}, classify: pySymbol},
	{Grammar: lang.Named("javascript"),
		comments: []string{"//", "@"}, blocks: true, sep: ".",
		wrappers: map[string]bool{"export_statement": true}, classify: jsSymbol},
	{Grammar: lang.Named("typescript"),
		comments: []string{"//", "@"}, blocks: true, sep: ".",
		wrappers: map[string]bool{"export_statement": true, "ambient_declaration": true}, classify: jsSymbol},
	{Grammar: lang.Named("tsx"),
		comments: []string{"//", "@"}, blocks: true, sep: ".",
		wrappers: map[string]bool{"export_statement": true, "ambient_declaration": true}, classify: jsSymbol},
	{Grammar: lang.Named("rust"),
		comments: []string{"//", "#["}, blocks: true, sep: "::", classify: rustSymbol},
	{Grammar: lang.Named("java"),
		comments: []string{"//", "@"}, blocks: true, sep: ".", classify: javaSymbol},
	{Grammar: lang.Named("c"),
		comments: []string{"//"}, blocks: true, sep: "::", classify: cSymbol},
	{Grammar: lang.Named("cpp"),
		comments: []string{"//"}, blocks: true, sep: "::",
		wrappers: map[string]bool{"template_declaration": true}, classify: cSymbol},
	{Grammar: lang.Named("ruby"),
		comments: []string{"#"}, sep: ".", classify: rubySymbol},
	{Grammar: lang.Named("bash"),
		comments: []string{"#"}, sep: ".", classify: bashSymbol},
}

// grammarFor returns the grammar for a file extension, or nil.
func grammarFor(ext string) *grammar {
	if g := lang.ForExt(ext); g != nil {
		return grammarNamed(g.Name)
	}
	return nil
}

// grammarNamed returns the grammar of a language name, or nil.
func grammarNamed(lang string) *grammar {
	for _, g := range grammars {
		if g.Name == lang {
			return g
		}
	}
	return nil
}

// named is the common case: a symbol whose name is in the "name" field.
func named(n *sitter.Node, kind string, src []byte) sym {
	nn := n.ChildByFieldName("name")
	if nn == nil {
		return sym{}
	}
	return sym{kind: kind, name: nn.Content(src), nameNode: nn}
}

// withMembers adds the body field as the members of s.
func withMembers(s sym, n *sitter.Node) sym {
	if s.kind != "" {
		s.members = n.ChildByFieldName("body")
	}
	return s
}

// namedChildren returns the named children of n whose type is one of types.
func namedChildren(n *sitter.Node, types ...string) []*sitter.Node {
	var out []*sitter.Node
	for i := range int(n.NamedChildCount()) {
		ch := n.NamedChild(i)
		for _, t := range types {
			if ch.Type() == t {
				out = append(out, ch)
				break
			}
		}
	}
	return out
}

func goSymbol(n *sitter.Node, src []byte) sym {
	switch n.Type() {
	case "function_declaration":
		return named(n, "function", src)
	case "method_declaration":
		s := named(n, "method", src)
		if recv := n.ChildByFieldName("receiver"); recv != nil && s.kind != "" {
			if t := goReceiverType(recv.Content(src)); t != "" {
				s.name = t + "." + s.name
			}
		}
		return s
	case "type_declaration":
		specs := namedChildren(n, "type_spec", "type_alias")
		if len(specs) != 1 {
			return sym{members: n}
		}
		return goSymbol(specs[0], src)
	case "type_spec", "type_alias":
		kind := "type"
		if t := n.ChildByFieldName("type"); t != nil {
			switch t.Type() {
			case "struct_type":
				kind = "struct"
			case "interface_type":
				kind = "interface"
			}
		}
		return named(n, kind, src)
	case "const_declaration", "var_declaration":
		kind := strings.TrimSuffix(n.Type(), "_declaration")
		specs := namedChildren(n, kind+"_spec")
		if len(specs) == 0 {
			return sym{}
		}
		s := named(specs[0], kind, src)
		if len(specs) > 1 && s.kind != "" {
			s.name += ", …"
		}
		return s
	}
	return sym{}
}

// goReceiverType turns "(s *List[T])" into "List".
func goReceiverType(recv string) string {
	recv = strings.Trim(recv, "()")
	if i := strings.IndexByte(recv, '['); i >= 0 {
		recv = recv[:i]
	}
	fields := strings.Fields(recv)
	if len(fields) == 0 {
		return ""
	}
	return strings.TrimLeft(fields[len(fields)-1], "*")
}

func pySymbol(n *sitter.Node, src []byte) sym {
	switch n.Type() {
	case "function_definition":
		return named(n, "function", src)
	case "class_definition":
		return withMembers(named(n, "class", src), n)
	}
	return sym{}
}

func jsSymbol(n *sitter.Node, src []byte) sym {
	switch n.Type() {
	case "function_declaration", "generator_function_declaration":
		return named(n, "function", src)
	case "class_declaration", "abstract_class_declaration", "class":
		return withMembers(named(n, "class", src), n)
	case "method_definition", "abstract_method_signature":
		return named(n, "method", src)
	case "interface_declaration":
		return named(n, "interface", src)
	case "type_alias_declaration":
		return named(n, "type", src)
	case "enum_declaration":
		return named(n, "enum", src)
	case "internal_module", "module":
		return withMembers(named(n, "namespace", src), n)
	case "lexical_declaration", "variable_declaration":
		decls := namedChildren(n, "variable_declarator")
		if len(decls) != 1 {
			return sym{}
		}
		return jsValue(decls[0], "name", "function", src)
	case "public_field_definition", "field_definition":
		field := "name"
		if n.Type() == "field_definition" {
			field = "property"
		}
		return jsValue(n, field, "method", src)
	}
	return sym{}
}

// jsValue names a declarator or class field whose value is a function or
// a class: const handler = () => {…}.
func jsValue(n *sitter.Node, field, fnKind string, src []byte) sym {
	v := n.ChildByFieldName("value")
	nn := n.ChildByFieldName(field)
	if v == nil || nn == nil {
		return sym{}
	}
	switch v.Type() {
	case "arrow_function", "function_expression", "function", "generator_function":
		return sym{kind: fnKind, name: nn.Content(src), nameNode: nn}
	case "class":
		return sym{kind: "class", name: nn.Content(src), nameNode: nn, members: v.ChildByFieldName("body")}
	}
	return sym{}
}

func rustSymbol(n *sitter.Node, src []byte) sym {
	switch n.Type() {
	case "function_item":
		return named(n, "function", src)
	case "struct_item", "union_item":
		return named(n, "struct", src)
	case "enum_item":
		return named(n, "enum", src)
	case "type_item":
		return named(n, "type", src)
	case "const_item":
		return named(n, "const", src)
	case "static_item":
		return named(n, "var", src)
	case "macro_definition":
		return named(n, "macro", src)
	case "trait_item":
		return withMembers(named(n, "trait", src), n)
	case "mod_item":
		return withMembers(named(n, "module", src), n)
	case "impl_item":
		t := n.ChildByFieldName("type")
		if t == nil {
			return sym{}
		}
		name, _, _ := strings.Cut(t.Content(src), "<")
		return sym{kind: "impl", name: name, nameNode: t, members: n.ChildByFieldName("body")}
	}
	return sym{}
}

func javaSymbol(n *sitter.Node, src []byte) sym {
	switch n.Type() {
	case "class_declaration", "record_declaration":
		return withMembers(named(n, "class", src), n)
	case "interface_declaration", "annotation_type_declaration":
		return withMembers(named(n, "interface", src), n)
	case "enum_declaration":
		return withMembers(named(n, "enum", src), n)
	case "enum_body_declarations":
		return sym{members: n}
	case "method_declaration", "constructor_declaration", "compact_constructor_declaration":
		return named(n, "method", src)
	}
	return sym{}
}

// cSymbol serves C and C++, whose grammars share node names.
func cSymbol(n *sitter.Node, src []byte) sym {
	switch n.Type() {
	case "function_definition":
		d := n.ChildByFieldName("declarator")
		nn := cDeclaratorName(d)
		if nn == nil {
			return sym{}
		}
		return sym{kind: "function", name: nn.Content(src), nameNode: nn}
	case "struct_specifier", "union_specifier", "class_specifier", "enum_specifier":
		body := n.ChildByFieldName("body")
		if body == nil {
			return sym{}
		}
		kind := strings.TrimSuffix(n.Type(), "_specifier")
		if kind == "union" {
			kind = "struct"
		}
		s := named(n, kind, src)
		if kind != "enum" {
			s.members = body
		}
		return s
	case "type_definition":
		nn := cDeclaratorName(n.ChildByFieldName("declarator"))
		if nn == nil {
			return sym{}
		}
		return sym{kind: "type", name: nn.Content(src), nameNode: nn}
	case "preproc_function_def":
		return named(n, "macro", src)
	case "namespace_definition":
		s := withMembers(named(n, "namespace", src), n)
		if s.kind == "" { // an anonymous namespace
			return sym{members: n.ChildByFieldName("body")}
		}
		return s
	case "preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif":
		return sym{members: n}
	case "linkage_specification":
		return sym{members: n.ChildByFieldName("body")}
	case "declaration_list":
		return sym{members: n}
	}
	return sym{}
}

// cDeclaratorName digs the name out of a C declarator, through pointers,
// references, arrays and function parameter lists.
func cDeclaratorName(d *sitter.Node) *sitter.Node {
	for i := 0; d != nil && i < 8; i++ {
		switch d.Type() {
		case "identifier", "field_identifier", "type_identifier", "qualified_identifier",
			"destructor_name", "operator_name", "primitive_type":
			return d
		}
		next := d.ChildByFieldName("declarator")
		if next == nil && d.NamedChildCount() > 0 {
			next = d.NamedChild(0)
		}
		d = next
	}
	return nil
}

func rubySymbol(n *sitter.Node, src []byte) sym {
	switch n.Type() {
	case "method":
		return named(n, "function", src)
	case "singleton_method":
		return named(n, "method", src)
	case "class":
		s := named(n, "class", src)
		if s.kind != "" {
			s.members = lastNamed(n, "body_statement")
		}
		return s
	case "module":
		s := named(n, "module", src)
		if s.kind != "" {
			s.members = lastNamed(n, "body_statement")
		}
		return s
	case "singleton_class":
		return sym{members: lastNamed(n, "body_statement")}
	}
	return sym{}
}

// lastNamed returns the last named child of n with the given type. Ruby's
// grammar does not put class bodies in a field.
func lastNamed(n *sitter.Node, typ string) *sitter.Node {
	kids := namedChildren(n, typ)
	if len(kids) == 0 {
		return nil
	}
	return kids[len(kids)-1]
}

func bashSymbol(n *sitter.Node, src []byte) sym {
	if n.Type() == "function_definition" {
		return named(n, "function", src)
	}
	return sym{}
}
