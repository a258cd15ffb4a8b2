package models

import (
	"regexp"
	"strings"
)

// Ollama's tool-call parsers fail in their own words: the harmony parser
// says "error parsing tool call: raw='…', err=…", the qwen3 parser "failed
// to parse JSON: unexpected end of JSON input", qwen3-vl and qwen3.5 pass
// encoding/json's message on bare ("invalid character ']' after object
// key:value pair"), glm "failed to parse XML: …", olmo3 "failed to parse
// function call …", lfm2 "invalid tool call: …". A new parser brings new
// wording, so the failures are recognised by their shape: a message that
// speaks of parsing a tool or function call or its arguments, or one that
// is the error of a JSON or XML decoder.

// toolParseShapes match the messages of a parser that could not read a call.
var toolParseShapes = []*regexp.Regexp{
	// Talk of a call that could not be parsed or is invalid.
	regexp.MustCompile(`(?i)\b(pars(e|ing)|invalid|malformed|unterminated|unexpected)\b.{0,40}\b(tool[ _-]?calls?|function[ _-]?calls?|arguments?)\b`),
	regexp.MustCompile(`(?i)\b(tool[ _-]?calls?|function[ _-]?calls?|arguments?)\b.{0,40}\b(pars(e|ing)|invalid|malformed)\b`),
	// A decoder's words, wrapped or bare.
	regexp.MustCompile(`(?i)failed to parse (json|xml)\b`),
	regexp.MustCompile(`unexpected end of JSON input`),
	regexp.MustCompile(`invalid character '.{1,4}' (after|looking for|in)\b`),
	regexp.MustCompile(`^json: cannot unmarshal\b`),
	regexp.MustCompile(`^XML syntax error\b`),
	regexp.MustCompile(`^expected element type <[\w:\-]+> but have <[\w:\-]+>`),
	// Parsers that found no usable function name or arguments.
	regexp.MustCompile(`(?i)^(empty function name|invalid (function call )?format|mismatched arg_key and arg_value counts)`),
}

// speaksOfParsing matches a server's words for output it could not read:
// parsing, a format (llama.cpp's "does not match the expected peg-native
// format"), a grammar, JSON, XML, syntax, a tool or function call.
var speaksOfParsing = regexp.MustCompile(`(?i)\b(pars(e|ed|er|ing)|format|grammar|json|xml|syntax|tool[ _-]?calls?|function[ _-]?calls?)\b`)

// IsToolParseFailure reports whether a server's error, raised while it
// generated a reply (an HTTP 5xx or an error in the reply stream), is its
// parser failing on the model's call: its known words
// (IsToolParseMessage), or, when the request offered tools, any words
// that speak of parsing, a format, a grammar, JSON or a tool call. A new
// parser's wording is caught by what the failure is, not by its phrase.
func IsToolParseFailure(msg string, toolsOffered bool) bool {
	return IsToolParseMessage(msg) || toolsOffered && speaksOfParsing.MatchString(msg)
}

// IsToolParseMessage reports whether an error message from the model
// server (an HTTP 500 body or an error line in a reply stream) has the
// shape of a tool-call parser failing on the model's output, whatever the
// parser's wording. It is meant for server-side failures only: a 4xx about
// the request's own JSON is the client's fault and must not match here.
func IsToolParseMessage(msg string) bool {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return false
	}
	for _, re := range toolParseShapes {
		if re.MatchString(msg) {
			return true
		}
	}
	return false
}
