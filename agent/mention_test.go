package agent

import (
	"slices"
	"testing"
)

func TestMentions(t *testing.T) {
	for _, tc := range []struct {
		prompt string
		want   []Mention
	}{
		{"see @main.go.", []Mention{{Path: "main.go"}}},
		{"read @docs/café.md and @文档/说明.md, then @naïve-résumé.txt!", []Mention{{Path: "docs/café.md"}, {Path: "文档/说明.md"}, {Path: "naïve-résumé.txt"}}},
		{`explain @"notes/my plan.md" please`, []Mention{{Path: "notes/my plan.md"}}},
		{`lines @"my file.txt":3-5 and @"a b":7`, []Mention{{Path: "my file.txt", From: 3, To: 5}, {Path: "a b", From: 7, To: 7}}},
		{"@calc/total.go:3-10 and @main.go:7,", []Mention{{Path: "calc/total.go", From: 3, To: 10}, {Path: "main.go", From: 7, To: 7}}},
		{"(@a.go) [@b.go] list @./", []Mention{{Path: "a.go"}, {Path: "b.go"}, {Path: "./"}}},
		{"@a.go twice @a.go", []Mention{{Path: "a.go"}}},
		{"mail bob@example.com, or @ alone", nil},
		{`@"unclosed quote`, nil},
	} {
		if got := Mentions(tc.prompt); !slices.Equal(got, tc.want) {
			t.Errorf("Mentions(%q) = %v, want %v", tc.prompt, got, tc.want)
		}
	}
	if got := (Mention{Path: "my file.txt", From: 3, To: 5}).String(); got != `@"my file.txt":3-5` {
		t.Errorf("String = %s", got)
	}
}
