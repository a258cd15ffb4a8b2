package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/ternhq/tern/cmd/tern/internal/indexview"
	"github.com/ternhq/tern/index"
	"github.com/ternhq/tern/models/ollamatest"
)

// newCodeFixture is a fixture whose workspace also holds the small
// repository of testdata/coderepo: a Go function Total, a Go function
// ParseConfigFile, a README and a binary file.
func newCodeFixture(t *testing.T, models ...ollamatest.Model) *fixture {
	t.Helper()
	return newRepoFixture(t, "testdata/coderepo", models...)
}

// newRepoFixture is a fixture whose directory holds a copy of the
// repository at dir as well.
func newRepoFixture(t *testing.T, dir string, models ...ollamatest.Model) *fixture {
	t.Helper()
	f := newFixture(t, models...)
	// CopyFS refuses to overwrite; the fixture's README gives way.
	if err := os.Remove(filepath.Join(f.dir, "README.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(f.dir, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	return f
}

// mustTern runs tern and fails the test unless it exits 0.
func (f *fixture) mustTern(args ...string) (stdout, stderr string) {
	f.t.Helper()
	code, out, errOut := f.tern(f.t.Context(), args...)
	if code != 0 {
		f.t.Fatalf("tern %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out, errOut
}

// status reads the fixture's index as tern left it.
func (f *fixture) status() index.Status {
	f.t.Helper()
	ix, err := index.Open(f.t.Context(), f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	defer ix.Close()
	st, err := ix.Status(f.t.Context())
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

// hits parses tern search --json output.
func hits(t *testing.T, out string) []indexview.JSONHit {
	t.Helper()
	var list []indexview.JSONHit
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var h indexview.JSONHit
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
			t.Fatalf("line %q is not a hit: %v", sc.Text(), err)
		}
		list = append(list, h)
	}
	return list
}

func TestIndexAndSearch(t *testing.T) {
	t.Parallel()
	f := newCodeFixture(t)
	f.dir = filepath.Join(f.dir, "calc") // DIR, not --dir, says which repository
	code, out, errOut := f.tern(t.Context(), "index", filepath.Dir(f.dir))
	f.dir = filepath.Dir(f.dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if errOut != "" {
		t.Errorf("a short run that embeds fine prints nothing on stderr, got:\n%s", errOut)
	}
	for _, want := range []string{
		"indexed " + f.dir + " in ",
		"  files    7 seen · 6 indexed · 0 unchanged · 1 skipped (1 binary)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`vectors  (\d+) of (\d+) chunks embedded with nomic-embed-text \(task prefixes\) · \d+ new`).MatchString(out) {
		t.Errorf("the summary has no vectors line:\n%s", out)
	}
	st := f.status()
	if st.Model != "nomic-embed-text (task prefixes)" || st.Embedded != st.Chunks || st.Chunks == 0 || st.Dim != 768 {
		t.Errorf("index status = %+v, want every chunk embedded by nomic-embed-text through /api/embed", st)
	}

	out, _ = f.mustTern("index")
	if !strings.Contains(out, "is up to date") || !strings.Contains(out, "0 indexed · 6 unchanged") {
		t.Errorf("a second run without changes:\n%s", out)
	}
	path := filepath.Join(f.dir, "calc", "total.go")
	if err := os.WriteFile(path, []byte("package calc\n\n// Total adds up a bill.\nfunc Total(xs []int) (sum int) {\n\tfor _, x := range xs {\n\t\tsum += x\n\t}\n\treturn\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ = f.mustTern("index")
	if !strings.Contains(out, "1 indexed · 5 unchanged") || !regexp.MustCompile(`· 1 new`).MatchString(out) {
		t.Errorf("after editing one file:\n%s", out)
	}

	out, errOut = f.mustTern("search", "Total")
	lines := strings.Split(out, "\n")
	if !regexp.MustCompile(`^calc/total\.go:3-9 +function Total +[01]\.\d{4}$`).MatchString(lines[0]) || lines[1] != "    func Total(xs []int) (sum int)" {
		t.Errorf("search output:\n%s", out)
	}
	if errOut != "" {
		t.Errorf("a hybrid search says nothing on stderr, got %s", errOut)
	}

	out, _ = f.mustTern("search", "--json", "where are the settings read from a file")
	list := hits(t, out)
	if len(list) == 0 || list[0].Path != "config/parse.go" || list[0].Symbol != "ParseConfigFile" || list[0].Kind != "function" ||
		list[0].Lang != "go" || list[0].StartLine != 5 || list[0].Preview == "" || list[0].Score <= 0 {
		t.Fatalf("json hits = %+v", list)
	}
	vectors := 0
	for _, h := range list {
		if h.VectorRank > 0 {
			vectors++
		}
	}
	if vectors == 0 {
		t.Error("no hit came from the vectors: the search was not hybrid")
	}

	for _, tt := range []struct {
		args []string
		want func([]indexview.JSONHit) bool
	}{
		{[]string{"-k", "1", "bill"}, func(h []indexview.JSONHit) bool { return len(h) == 1 }},
		{[]string{"--lang", "markdown", "bills settings"}, func(h []indexview.JSONHit) bool {
			return len(h) > 0 && h[0].Path == "README.md" && h[len(h)-1].Lang == "markdown"
		}},
		{[]string{"--docs", "bills settings"}, func(h []indexview.JSONHit) bool {
			for _, x := range h {
				if x.Lang != "markdown" {
					return false
				}
			}
			return len(h) > 0 && h[0].Path == "README.md"
		}},
		{[]string{"--code", "bills settings"}, func(h []indexview.JSONHit) bool {
			for _, x := range h {
				if x.Lang == "markdown" {
					return false
				}
			}
			return len(h) > 0
		}},
		{[]string{"--tests", "bills settings"}, func(h []indexview.JSONHit) bool { return len(h) == 0 }},
		{[]string{"--path", "config/", "file"}, func(h []indexview.JSONHit) bool {
			for _, x := range h {
				if !strings.HasPrefix(x.Path, "config/") {
					return false
				}
			}
			return len(h) > 0
		}},
	} {
		out, _ := f.mustTern(append([]string{"search", "--json"}, tt.args...)...)
		if got := hits(t, out); !tt.want(got) {
			t.Errorf("search %v = %+v", tt.args, got)
		}
	}
	if code, _, errOut := f.tern(t.Context(), "search", "--tests", "--docs", "bill"); code != exitUsage || !strings.Contains(errOut, "exclude each other") {
		t.Errorf("search --tests --docs: exit %d, %s", code, errOut)
	}
}

func TestIndexWithoutEmbeddings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		models []ollamatest.Model
		host   string
		args   []string
		why    string
	}{
		{"model not pulled", []ollamatest.Model{ollamatest.Qwen3()}, "", nil, "embedding model nomic-embed-text is not installed (run `ollama pull nomic-embed-text`)"},
		{"ollama down", nil, "127.0.0.1:1", nil, "Ollama is not reachable at http://127.0.0.1:1 (start it with `ollama serve`)"},
		{"not an embedding model", nil, "", []string{"--embed-model", "qwen3:8b"}, "qwen3:8b is not an embedding model"},
		{"asked for", nil, "", []string{"--no-embed"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newCodeFixture(t, tt.models...)
			if tt.host != "" {
				f.env["OLLAMA_HOST"] = tt.host
			}
			out, errOut := f.mustTern(append([]string{"index"}, tt.args...)...)
			if !strings.Contains(out, "vectors  none: search is lexical only") || !strings.Contains(out, "6 indexed") {
				t.Errorf("summary:\n%s", out)
			}
			if tt.why == "" {
				if errOut != "" {
					t.Errorf("--no-embed is not a problem to report:\n%s", errOut)
				}
			} else if strings.Count(errOut, "indexing without embeddings") != 1 || !strings.Contains(errOut, tt.why) {
				t.Errorf("stderr should say once why the index is lexical (%q):\n%s", tt.why, errOut)
			}

			out, errOut = f.mustTern("search", "bill total")
			if !strings.HasPrefix(out, "calc/total.go:3-10") {
				t.Errorf("lexical search:\n%s", out)
			}
			if strings.Count(errOut, "lexical only") != 1 {
				t.Errorf("the lexical notice should come once:\n%s", errOut)
			}
		})
	}
}

// allMiniLM is a second embedding model, without task prefixes.
func allMiniLM() ollamatest.Model {
	m := ollamatest.NomicEmbed()
	m.Name, m.Family, m.EmbeddingLength, m.EmbedDims = "all-minilm:latest", "bert", 384, 384
	return m
}

func TestIndexOtherEmbeddingModel(t *testing.T) {
	t.Parallel()
	f := newCodeFixture(t, ollamatest.Qwen3(), ollamatest.NomicEmbed(), allMiniLM())
	f.mustTern("index")
	out, errOut := f.mustTern("index", "--embed-model", "all-minilm")
	if !strings.Contains(errOut, "the index was embedded with nomic-embed-text (task prefixes); re-embedding every chunk with all-minilm") {
		t.Errorf("stderr:\n%s", errOut)
	}
	if !strings.Contains(out, "chunks embedded with all-minilm") || !strings.Contains(out, "(re-embedded: was nomic-embed-text (task prefixes))") {
		t.Errorf("summary:\n%s", out)
	}
	if st := f.status(); st.Model != "all-minilm" || st.Dim != 384 || st.Embedded != st.Chunks {
		t.Errorf("status = %+v", st)
	}
	// Queries go to the index's own model by default.
	out, errOut = f.mustTern("search", "--json", "bill")
	if errOut != "" || len(hits(t, out)) == 0 {
		t.Errorf("search with the index's model: %s\n%s", errOut, out)
	}
	// Another model cannot query these vectors: the search says so.
	_, errOut = f.mustTern("search", "--embed-model", "nomic-embed-text", "bill")
	if !strings.Contains(errOut, "the index was embedded with all-minilm, not nomic-embed-text (task prefixes) (run tern index to re-embed), so search is lexical only") {
		t.Errorf("stderr:\n%s", errOut)
	}
}

// TestSearchCodeWithoutAGrammar: a Kotlin file and one of an extension tern
// has never heard of are searched as code, through tern index and tern
// search: named after their declarations, found by --lang, and ranked
// before the changelog that restates the query.
func TestSearchCodeWithoutAGrammar(t *testing.T) {
	t.Parallel()
	f := newCodeFixture(t)
	files := map[string]string{
		"app/Totals.kt": "package shop\n\n/** Totals sums orders by SKU. */\nobject Totals {\n" +
			"    /** largest is the SKU ordered most. */\n    fun largest(orders: List<Order>): String? =\n" +
			"        orders.maxByOrNull { it.qty }?.sku\n}\n",
		"app/refund.zz": "// refund returns a paid order's money.\nfn refund(order) {\n  pay(order.total * -1)\n}\n",
		"CHANGELOG.md":  "# 2.0\n- The largest SKU ordered is shown.\n- Refund a paid order's money.\n",
	}
	for name, body := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(f.dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.mustTern("index", "--no-embed")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"largest SKU ordered"}, "app/Totals.kt:1-8  class Totals"},
		{[]string{"--lang", "kotlin", "orders"}, "app/Totals.kt:1-8  class Totals"},
		{[]string{"refund a paid order"}, "app/refund.zz:1-4  function refund"},
		{[]string{"--lang", "zz", "order"}, "app/refund.zz:1-4  function refund"},
	} {
		out, _ := f.mustTern(append([]string{"search", "--no-embed", "-k", "3"}, tt.args...)...)
		if !strings.HasPrefix(out, tt.want) {
			t.Errorf("tern search %v:\n%s\nwant first: %s", tt.args, out, tt.want)
		}
	}
}

// TestSearchLanguageNames: --lang takes a language's name or one of its
// extensions, and a name the index does not hold says which was meant
// and what it holds, where it said only "no hits".
func TestSearchLanguageNames(t *testing.T) {
	t.Parallel()
	f := newCodeFixture(t)
	f.mustTern("index", "--no-embed")
	out, errOut := f.mustTern("search", "--no-embed", "--lang", "golang", "total")
	if out != "" || !strings.Contains(errOut, `tern: no hits for "total": no indexed file is in "golang" (did you mean --lang go?); the index holds go (`) {
		t.Errorf("--lang golang: %q\n%s", out, errOut)
	}
	out, _ = f.mustTern("search", "--no-embed", "--lang", "go", "total")
	outExt, _ := f.mustTern("search", "--no-embed", "--lang", ".go", "total")
	if !strings.Contains(out, "calc/total.go") || outExt != out {
		t.Errorf("--lang go:\n%s\n--lang .go:\n%s", out, outExt)
	}
}

// A template is searched as the language of what it renders, and data is
// known by its content: testdata/pagerrepo is a Rust pager whose zsh
// completion and man page are templates (pg.zsh.in, pg.1.in) and whose
// theme and syntax are a property list and YAML under extensions tern
// does not know (.tmTheme, .sublime-syntax). The man page and the theme
// say more about the pager's environment and the theme's colours than the
// code does, but the code comes first; --lang and --docs find them.
func TestSearchTemplatesAndDataFiles(t *testing.T) {
	t.Parallel()
	f := newRepoFixture(t, "testdata/pagerrepo")
	f.mustTern("index", "--no-embed")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"which environment variable names the pager"}, "src/pager.rs:"},
		{[]string{"caret and background settings"}, "src/theme.rs:"},
		{[]string{"--docs", "the pager environment variable"}, "assets/manual/pg.1.in:"},
		{[]string{"--lang", "bash", "pager"}, "assets/completions/pg.zsh.in:"},
		{[]string{"--lang", "plist", "caret"}, "assets/themes/Dark.tmTheme:"},
		{[]string{"--lang", "yaml", "section"}, "assets/syntaxes/Toml.sublime-syntax:"},
	} {
		out, _ := f.mustTern(append([]string{"search", "--no-embed", "-k", "3"}, tt.args...)...)
		if !strings.HasPrefix(out, tt.want) {
			t.Errorf("tern search %v:\n%s\nwant first: %s", tt.args, out, tt.want)
		}
	}
}
