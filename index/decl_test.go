package index

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDeclarations(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		// Keyword declarations, after modifiers and annotations.
		{"fun parse(): List<Order> {", "function parse"},
		{"    private suspend fun load(id: Int)", "function load"},
		{"fun <T> List<T>.second(): T = this[1]", "function List.second"},
		{"data class Order(val sku: String)", "class Order"},
		{"object Totals {", "class Totals"},
		{"func (s *Server) Serve(l net.Listener) error {", "function Serve"},
		{"@objc public func tap(_ sender: Any) {", "function tap"},
		{"extension String {", "extension String"},
		{"public static function create(array $attrs)", "function create"},
		{"  def add(cart, item) do", "function add"},
		{"defmodule Shop.Cart do", "module Shop.Cart"},
		{"def empty?", "function empty?"},
		{"pub(crate) fn walk(dir: &Path)", "function walk"},
		{"local function total(cart)", "function total"},
		{"sub parse_args {", "function parse_args"},
		{"proc main() =", "function main"},
		{"protocol Drawable {", "interface Drawable"},
		// Other forms.
		{"let rec eval env = function", "let eval"},
		{"lookup :: Env -> String -> Maybe Int", "function lookup"},
		{"handle(Msg, State) when is_atom(Msg) ->", "function handle"},
		{"(defn parse-line [s]", "function parse-line"},
		{"(defn a<b [x y]", "function a<b"},
		{"    public async Task<decimal> TotalAsync(IPriceList prices)", "method TotalAsync"},
		{"export const total = (items: Item[]) => items.length", "function total"},
		{"M.total = function(cart) return total(cart) end", "function M.total"},
		{"tidy_data <- function(df) {", "function tidy_data"},
		// Not declarations: comments, calls, statements, prose.
		{"// fun parse() is called once", ""},
		{"# def add(cart, item)", ""},
		{"    return new Cart(items);", ""},
		{"    items.Add(item);", ""},
		{"The class of an order is its SKU.", ""},
		{"static readonly Cart empty = new Cart();", ""},
	} {
		l := newLines([]byte(tt.line + "\n"))
		got := ""
		if ds := declarations(l, 0, 0); len(ds) > 0 {
			got = fmt.Sprintf("%s %s", ds[0].kind, ds[0].name)
		}
		if got != tt.want {
			t.Errorf("%q: %q, want %q", tt.line, got, tt.want)
		}
	}
}

// A file in a language without a grammar is cut before a declaration (its
// doc comment included) where a window must end, rather than at a blank
// line within a function, and each window is named after the first
// declaration in it, inside its container.
func TestDeclWindows(t *testing.T) {
	src := "class Shop {\n"
	for i := range 12 {
		src += fmt.Sprintf("    // step%d does step %d.\n    fun step%d() {\n        run(%d)\n\n        run(%d)\n    }\n", i, i, i, i, i+1)
	}
	src += "}\n"
	ck := newChunker()
	defer ck.Close()
	pieces, err := ck.chunk(t.Context(), "kotlin", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) < 2 {
		t.Fatalf("one piece for %d lines: %+v", newLines([]byte(src)).count(), pieces)
	}
	if p := pieces[0]; p.symbol != "Shop" || p.kind != "class" || p.sig != "class Shop {" {
		t.Errorf("first piece %+v, want class Shop", p)
	}
	l := newLines([]byte(src))
	for _, p := range pieces[1:] {
		first := string(l.line(p.start))
		if !strings.HasPrefix(first, "    // step") {
			t.Errorf("piece %d-%d starts with %q, not a declaration's comment", p.start, p.end, first)
		}
		if p.kind != "function" || !strings.HasPrefix(p.symbol, "Shop.step") {
			t.Errorf("piece %d-%d is %s %q, want a function Shop.step…", p.start, p.end, p.kind, p.symbol)
		}
	}
}

// FuzzDeclWindows chunks any text as code without a grammar: the pieces
// stay in order, within the file, and never overlap.
func FuzzDeclWindows(f *testing.F) {
	for _, name := range []string{"Parser.kt", "Cart.cs", "cart.ex", "cart.lua"} {
		src, err := os.ReadFile(filepath.Join("testdata", "langs", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte("fun a()\nfun b()\n\n\nclass C {\n  def d\n}\n"))
	ck := newChunker()
	f.Cleanup(ck.Close)
	f.Fuzz(func(t *testing.T, src []byte) {
		pieces, err := ck.chunk(t.Context(), "kotlin", src)
		if err != nil {
			t.Fatal(err)
		}
		n := newLines(src).count()
		last := -1
		for _, p := range pieces {
			if p.start <= last || p.end < p.start || p.end >= n {
				t.Fatalf("piece %d-%d after row %d of %d: %+v", p.start, p.end, last, n, pieces)
			}
			last = p.end
		}
	})
}
