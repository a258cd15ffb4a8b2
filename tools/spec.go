package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/ternhq/tern/models"
)

// Decl is a tool's declaration, made once from the args struct its Run
// decodes calls into: the spec the model reads, and what a call is about
// for people. A tool embeds it to get its Spec and Describe methods.
type Decl struct {
	spec    models.ToolSpec
	subject []subjectArg
}

// Spec is the tool's specification, as the model reads it.
func (d Decl) Spec() models.ToolSpec { return d.spec }

// Describe says what a call is about, from the arguments the declaration
// marks as its subject.
func (d Decl) Describe(args json.RawMessage) string { return subjectOf(args, d.subject) }

var _ Describer = Decl{} // tools.Describe finds it by type assertion

// Declare declares a tool named name from its args struct A and its
// embedded description md: the text before the first "## name" heading
// describes the tool, and each heading's section describes the parameter
// of that name.
//
// Each field of A with a json name is a parameter, in field order;
// embedded structs without one add their fields in place. The Go type
// gives the JSON type (string; int and intArg integer; bool and boolArg
// boolean; float number; a slice of strings array). A `tool` tag adds what
// the type cannot say, comma-separated:
//
//	required        the model must send it
//	type=T          the JSON type, for a field decoded by hand (json.RawMessage)
//	items=T         an array's element type (string when absent)
//	enum=a|b|c      the values allowed
//	subject         what a call is about, shown after the tool's name
//	                (the first one given counts)
//	subject=quoted  the same, in quotes: grep "parseConfig"
//	subject=scope   where a quoted subject is looked for: grep "x" in cmd;
//	                the subject itself when no other is given
//	subject=from    with subject=count, the lines a call is about: main.go:1-80
//	subject=count
//
// A field the declaration cannot type is a mistake in the tool's code, so
// Declare panics on it; every tool is built by its tests.
func Declare[A any](name, md string) Decl {
	params, subject := paramsOf(reflect.TypeFor[A]())
	return Decl{spec: specFrom(name, md, params...), subject: subject}
}

// specFrom builds a tool's spec from its embedded description and its
// parameters.
func specFrom(name, md string, params ...models.Param) models.ToolSpec {
	d := parseDoc(md)
	for i := range params {
		if params[i].Description == "" {
			params[i].Description = d.params[params[i].Name]
		}
	}
	return models.ToolSpec{Name: name, Description: d.text, Parameters: models.Schema(params...)}
}

// jsonTyped is an argument type that decodes leniently and says which JSON
// type the model should send it as.
type jsonTyped interface{ jsonType() string }

func (intArg) jsonType() string     { return "integer" }
func (boolArg) jsonType() string    { return "boolean" }
func (stringList) jsonType() string { return "array" }

// paramsOf lists the parameters of an args struct, and those that make a
// call's subject.
func paramsOf(t reflect.Type) (params []models.Param, subject []subjectArg) {
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("tools: args type %s is not a struct", t))
	}
	for i := range t.NumField() {
		f := t.Field(i)
		jsonName, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if jsonName == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && jsonName == "" && f.Type.Kind() == reflect.Struct {
			p, s := paramsOf(f.Type)
			params, subject = append(params, p...), append(subject, s...)
			continue
		}
		if jsonName == "" {
			jsonName = f.Name
		}
		p := models.Param{Name: jsonName, Type: jsonTypeOf(f.Type)}
		for opt := range strings.SplitSeq(f.Tag.Get("tool"), ",") {
			key, val, _ := strings.Cut(strings.TrimSpace(opt), "=")
			switch key {
			case "":
			case "required":
				p.Required = true
			case "type":
				p.Type = val
			case "items":
				p.Items = val
			case "enum":
				p.Enum = strings.Split(val, "|")
			case "subject":
				role := subjectRole(val)
				if !slices.Contains(subjectRoles, role) {
					panic(fmt.Sprintf("tools: %s.%s: unknown subject role %q", t, f.Name, val))
				}
				subject = append(subject, subjectArg{name: jsonName, role: role})
			default:
				panic(fmt.Sprintf("tools: %s.%s: unknown tool tag option %q", t, f.Name, key))
			}
		}
		if p.Type == "" {
			panic(fmt.Sprintf("tools: %s.%s: cannot tell the JSON type of %s; add a tool:\"type=…\" tag", t, f.Name, f.Type))
		}
		params = append(params, p)
	}
	return params, subject
}

// jsonTypeOf is the JSON Schema type of a Go type, "" when it has none.
func jsonTypeOf(t reflect.Type) string {
	if j, ok := reflect.Zero(t).Interface().(jsonTyped); ok {
		return j.jsonType()
	}
	if t == reflect.TypeFor[json.RawMessage]() {
		return ""
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "array"
		}
	}
	return ""
}
