package index

// Small repositories in five languages, each with the code a question is
// about, its tests, a changelog and test data that restate the question's
// words, and generic methods (Add, Update, Bytes, drop, url) that prose
// queries name by accident.
var rankRepos = map[string]map[string]string{
	"go": {
		"sniff.go": `package web

// DetectContentType implements the algorithm of the MIME sniffing
// standard: it looks at the first 512 bytes of data and guesses the
// content type, "application/octet-stream" when nothing matches.
func DetectContentType(data []byte) string {
	if len(data) > sniffLen {
		data = data[:sniffLen]
	}
	for _, sig := range sniffSignatures {
		if ct := sig.match(data); ct != "" {
			return ct
		}
	}
	return "application/octet-stream"
}

const sniffLen = 512

type sniffSig interface{ match(data []byte) string }

var sniffSignatures = []sniffSig{htmlSig("<!DOCTYPE HTML"), htmlSig("<HTML")}

type htmlSig string

func (h htmlSig) match(data []byte) string { return "" }
`,
		"sniff_test.go": `package web

import "testing"

// The content type of every sample must be detected: content type
// detection of html, of text, of images; the content type is sniffed.
func TestDetectContentType(t *testing.T) {
	for _, tt := range []struct{ data, contentType string }{
		{"<html>", "text/html; charset=utf-8"},
		{"GIF87a", "image/gif"},
	} {
		if ct := DetectContentType([]byte(tt.data)); ct != tt.contentType {
			t.Errorf("content type of %q: %s, want %s", tt.data, ct, tt.contentType)
		}
	}
}
`,
		"server.go": `package web

import (
	"net"
	"time"
)

// Server serves HTTP connections.
type Server struct {
	// ReadHeaderTimeout is how long reading the request header may take.
	ReadHeaderTimeout time.Duration
	Handler           Handler
}

// readRequest reads the next request from a connection; the header must
// arrive within ReadHeaderTimeout.
func (srv *Server) readRequest(c net.Conn) (*Request, error) {
	if d := srv.ReadHeaderTimeout; d > 0 {
		c.SetReadDeadline(time.Now().Add(d))
	}
	hdr, err := readHeader(c)
	if err != nil {
		return nil, err
	}
	c.SetReadDeadline(time.Time{})
	return &Request{Header: hdr}, nil
}
`,
		"header.go": `package web

// Header holds the fields of a request or response header.
type Header map[string][]string

// Add adds the value to the values of key.
func (h Header) Add(key, value string) { h[key] = append(h[key], value) }

// Update replaces the values of key.
func (h Header) Update(key, value string) { h[key] = []string{value} }

// Buffer collects bytes.
type Buffer struct{ buf []byte }

// Bytes returns the bytes collected.
func (b *Buffer) Bytes() []byte { return b.buf }

// Request is a parsed request.
type Request struct{ Header Header }

// Handler responds to requests.
type Handler interface{ Serve(r *Request) }
`,
		"gzip.go": `package web

import (
	"compress/gzip"
	"io"
)

// gzipReader decompresses a request body sent with Content-Encoding
// gzip, so handlers read plain bytes.
func gzipReader(body io.Reader) (io.Reader, error) {
	return gzip.NewReader(body)
}
`,
		"CHANGELOG.md": `# Changes

## 1.4
- The content type is now sniffed from the first 512 bytes.
- ReadHeaderTimeout is enforced while the request header is read.
- Add support for gzip request bodies: read the bytes decompressed.
`,
		"testdata/sniff/golden.txt": "content type sniffed: text/html\ncontent type sniffed: image/gif\n",
	},
	"python": {
		"clicky/parser.py": `"""Command line option parsing."""


def _normalize_opt(opt, ctx):
    """Apply the token normalization function of the context to an option
    name, keeping its prefix characters."""
    prefix, name = _split_opt(opt)
    return prefix + ctx.token_normalize_func(name)


def _split_opt(opt):
    first = opt[:1]
    if first.isalnum():
        return "", opt
    if opt[1:2] == first:
        return opt[:2], opt[2:]
    return first, opt[1:]


class OptionParser:
    """Parses command line arguments against declared options and
    arguments, honouring the prefixes an option was declared with."""

    def __init__(self, ctx=None):
        self.ctx = ctx
        self._long_opt = {}
        self._short_opt = {}

    def add_option(self, obj, opts, dest, action=None):
        opts = [_normalize_opt(opt, self.ctx) for opt in opts]
        for opt in opts:
            prefix, _ = _split_opt(opt)
            if len(prefix) == 1:
                self._short_opt[opt] = obj
            else:
                self._long_opt[opt] = obj
`,
		"clicky/utils.py": `"""Small helpers."""


def update(target, other):
    """Update a dict with another, skipping None values."""
    for k, v in other.items():
        if v is not None:
            target[k] = v


def add(a, b):
    return a + b


def drop(seq, n):
    """Drop the first n items."""
    return seq[n:]
`,
		"clicky/termui.py": `"""Terminal interaction."""
import os


def get_terminal_width():
    """Return the width of the terminal window, from the COLUMNS
    environment variable or the operating system, at least 80."""
    try:
        return max(os.get_terminal_size().columns, 80)
    except OSError:
        return int(os.environ.get("COLUMNS", 80))
`,
		"tests/test_parser.py": `from clicky.parser import OptionParser


def test_custom_prefix_options():
    """Options declared with a custom prefix character are parsed."""
    parser = OptionParser()
    parser.add_option(None, ["+p"], "p")
    parser.add_option(None, ["++plus"], "plus")
    assert "+p" in parser._short_opt  # prefix option parsed
`,
		"CHANGES.rst": `Version 8.1
-----------

-   Options with a custom prefix character are parsed again.
-   Update the terminal width detection to drop the old fallback.
`,
	},
	"typescript": {
		"src/router/trie.ts": `// TrieRouter matches request paths against routes kept in a trie,
// including named parameters such as /users/:id and wildcards.
export class TrieRouter<T> {
  private root = new Node<T>()

  add(method: string, path: string, handler: T): void {
    this.root.insert(method, path.split('/'), handler)
  }

  match(method: string, path: string): [T, Record<string, string>] | undefined {
    const params: Record<string, string> = {}
    const handler = this.root.search(method, path.split('/'), params)
    return handler ? [handler, params] : undefined
  }
}

class Node<T> {
  children: Record<string, Node<T>> = {}
  handlers: Record<string, T> = {}
  insert(method: string, parts: string[], handler: T): void {}
  search(method: string, parts: string[], params: Record<string, string>): T | undefined {
    return undefined
  }
}
`,
		"src/router/trie.test.ts": `import { TrieRouter } from './trie'

describe('TrieRouter', () => {
  it('matches a route with named parameters', () => {
    const router = new TrieRouter<string>()
    router.add('GET', '/users/:id', 'user')
    expect(router.match('GET', '/users/1')).toEqual(['user', { id: '1' }])
  })
})
`,
		"src/utils/url.ts": `// getPath returns the path of a request URL, with percent-encoded
// characters decoded.
export const getPath = (request: Request): string => {
  const url = request.url
  const start = url.indexOf('/', 8)
  return tryDecodeURI(url.slice(start))
}

const tryDecodeURI = (str: string): string => {
  try {
    return decodeURI(str)
  } catch {
    return str
  }
}
`,
		"src/context.ts": `export class Context {
  // url returns the request URL.
  url(): string {
    return ''
  }
  // update sets a header of the response.
  update(name: string, value: string): void {}
}
`,
		"docs/routing.md": `# Routing

Routes match paths with named parameters (/users/:id) and wildcards.
The router decodes percent-encoded characters in the url path.
`,
	},
	// A language without a grammar here: chunked in line windows, it must
	// still rank as code, before its tests and changelog.
	"ocaml": {
		"lib/lexer.ml": `(* The lexer turns source text into tokens. *)

type token = Int of int | Ident of string | Str of string | Op of char | Eof

(* skip_whitespace moves past blanks and newlines. *)
let rec skip_whitespace s i =
  if i < String.length s && (s.[i] = ' ' || s.[i] = '\n') then skip_whitespace s (i + 1) else i

(* read_string reads a quoted string literal, turning escape sequences
   such as \n and \t into the characters they stand for. *)
let read_string s i =
  let buf = Buffer.create 16 in
  let rec go i =
    match s.[i] with
    | '"' -> (Str (Buffer.contents buf), i + 1)
    | '\\' ->
      let c = match s.[i + 1] with 'n' -> '\n' | 't' -> '\t' | c -> c in
      Buffer.add_char buf c; go (i + 2)
    | c -> Buffer.add_char buf c; go (i + 1)
  in
  go (i + 1)
`,
		"lib/parser.ml": `(* The parser builds expressions from tokens. *)

type expr = Num of int | Var of string | Binop of char * expr * expr | Let of string * expr * expr

(* precedence: multiplication and division bind tighter than addition. *)
let precedence = function '*' | '/' -> 2 | '+' | '-' -> 1 | _ -> 0

(* parse_binary climbs operator precedence: it parses the left operand,
   then every operator binding at least as tightly as min_prec. *)
let rec parse_binary tokens min_prec =
  let lhs, rest = parse_atom tokens in
  climb lhs rest min_prec

and climb lhs tokens min_prec =
  match tokens with
  | Lexer.Op op :: rest when precedence op >= min_prec ->
    let rhs, rest = parse_binary rest (precedence op + 1) in
    climb (Binop (op, lhs, rhs)) rest min_prec
  | _ -> (lhs, tokens)

and parse_atom = function
  | Lexer.Int n :: rest -> (Num n, rest)
  | Lexer.Ident x :: rest -> (Var x, rest)
  | _ -> failwith "expected an expression"
`,
		"lib/eval.ml": `(* The evaluator computes the value of an expression. *)

exception Division_by_zero_error of string

(* lookup finds a variable's value in the environment, innermost
   binding first. *)
let lookup env name =
  match List.assoc_opt name env with
  | Some v -> v
  | None -> failwith ("unbound variable " ^ name)

let rec eval env = function
  | Parser.Num n -> n
  | Parser.Var x -> lookup env x
  | Parser.Let (x, e, body) -> eval ((x, eval env e) :: env) body
  | Parser.Binop ('/', a, b) ->
    let d = eval env b in
    if d = 0 then raise (Division_by_zero_error "division by zero") else eval env a / d
  | Parser.Binop (op, a, b) -> apply op (eval env a) (eval env b)

and apply op x y = match op with '+' -> x + y | '-' -> x - y | '*' -> x * y | _ -> 0
`,
		"lib/pretty.ml": `(* The printer shows expressions as source text again. *)

(* to_string prints an expression, adding parentheses only where the
   precedence of a nested operator needs them. *)
let rec to_string ?(outer = 0) = function
  | Parser.Num n -> string_of_int n
  | Parser.Var x -> x
  | Parser.Let (x, e, body) -> "let " ^ x ^ " = " ^ to_string e ^ " in " ^ to_string body
  | Parser.Binop (op, a, b) ->
    let p = Parser.precedence op in
    let s = to_string ~outer:p a ^ " " ^ String.make 1 op ^ " " ^ to_string ~outer:(p + 1) b in
    if p < outer then "(" ^ s ^ ")" else s
`,
		"test/test_lexer.ml": `(* Tests of escape sequences in string literals and of division by zero. *)
let () = assert (Lexer.read_string "\"a\\nb\"" 0 = (Lexer.Str "a\nb", 6))
let () = assert (try ignore (Eval.eval [] (Parser.Binop ('/', Num 1, Num 0))); false with _ -> true)
`,
		"CHANGELOG.md": `# 0.3.0
- Read escape sequences in string literals.
- Report an error on division by zero.
- Print nested expressions with minimal parentheses.
- Look up a variable in the environment, innermost binding first.
`,
	},
	"rust": {
		"crates/walk/src/walk.rs": `use std::path::Path;

/// Walks a directory tree in parallel, skipping hidden files and
/// directories unless asked to show them.
pub struct WalkBuilder {
    hidden: bool,
}

impl WalkBuilder {
    /// Whether to skip hidden files and directories (on by default).
    pub fn hidden(&mut self, yes: bool) -> &mut WalkBuilder {
        self.hidden = yes;
        self
    }
}

/// Reports whether a path names a hidden file: one whose name starts
/// with a dot.
fn is_hidden(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .map(|name| name.starts_with('.'))
        .unwrap_or(false)
}
`,
		"crates/walk/src/glob.rs": `/// Translates a glob into a regular expression, using non-capturing
/// groups for alternations.
pub fn glob_to_regex(glob: &str) -> String {
    let mut re = String::from("^");
    for c in glob.chars() {
        match c {
            '*' => re.push_str("[^/]*"),
            '{' => re.push_str("(?:"),
            '}' => re.push(')'),
            ',' => re.push('|'),
            c => re.push(c),
        }
    }
    re.push('$');
    re
}
`,
		"crates/walk/src/lib.rs": `pub mod glob;
pub mod walk;

/// A file the walk found. Dropping it closes its handle.
pub struct DirEntry;

impl Drop for DirEntry {
    fn drop(&mut self) {}
}

impl DirEntry {
    /// add appends a component to the entry's path.
    pub fn add(&mut self, _part: &str) {}
}
`,
		"tests/hidden.rs": `// hidden files are skipped while walking; hidden directories too.
#[test]
fn skips_hidden_files() {
    let hidden = vec![".hidden", ".git"];
    assert!(hidden.iter().all(|h| h.starts_with('.')));
}
`,
		"CHANGELOG.md": `# 14.0
- Skip hidden files while walking directories, unless --hidden is given.
- Use non-capturing groups when translating globs to regexes.
- Drop the old add API of DirEntry.
`,
	},
}
