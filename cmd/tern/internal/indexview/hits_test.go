package indexview

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ternhq/tern/rag"
)

func TestWriteHits(t *testing.T) {
	t.Parallel()
	hits := []rag.Hit{
		{Path: "billing/invoice.go", StartLine: 10, EndLine: 42, Kind: "func", Symbol: "Total", Score: 0.0328, Preview: "func Total(items []Item) Money"},
		{Path: "README.md", StartLine: 1, EndLine: 9, Kind: "section", Symbol: "Bills", Score: 0.01},
		{Path: "é.go", StartLine: 1, EndLine: 2, Kind: "func", Symbol: strings.Repeat("Long", 20), Score: 0.005, Preview: "x"},
	}
	var b strings.Builder
	WriteHits(&b, hits)
	want := "billing/invoice.go:10-42  func Total                                        0.0328\n" +
		"    func Total(items []Item) Money\n" +
		"README.md:1-9             section Bills                                     0.0100\n" +
		"é.go:1-2                  func LongLongLongLongLongLongLongLongLongLongLo…  0.0050\n" +
		"    x\n"
	if b.String() != want {
		t.Errorf("hits:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteHitsNarrowColumns(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	WriteHits(&b, []rag.Hit{{Path: "a", StartLine: 1, EndLine: 1, Score: 1}, {Path: "bb", StartLine: 1, EndLine: 2, Kind: "x", Score: 0.5}})
	if want := "a:1-1      1.0000\nbb:1-2  x  0.5000\n"; b.String() != want {
		t.Errorf("hits:\n%q\nwant:\n%q", b.String(), want)
	}
}

func TestWriteHitsJSON(t *testing.T) {
	t.Parallel()
	hits := []rag.Hit{
		{Path: "a.go", StartLine: 3, EndLine: 9, Kind: "func", Symbol: "F", Lang: "go", Score: 0.5, Preview: "func F()", Text: "not printed", LexicalRank: 1},
		{Path: "b.md", StartLine: 1, EndLine: 2, Lang: "markdown", Score: 0.25, VectorRank: 2},
	}
	var b strings.Builder
	if err := WriteHitsJSON(&b, hits); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if want := `{"path":"a.go","start_line":3,"end_line":9,"kind":"func","symbol":"F","lang":"go","score":0.5,"preview":"func F()","lexical_rank":1,"vector_rank":0}`; lines[0] != want {
		t.Errorf("first line:\n%s\nwant (the field names are documented):\n%s", lines[0], want)
	}
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	var got []JSONHit
	for sc.Scan() {
		var h JSONHit
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		got = append(got, h)
	}
	if len(got) != 2 || got[1].Path != "b.md" || got[1].VectorRank != 2 || got[1].Kind != "" {
		t.Errorf("hits read back: %+v", got)
	}
}
