package proc

import (
	"fmt"
	"strings"
	"testing"
)

func TestTailSaysWhyTheProgramStopped(t *testing.T) {
	for _, tc := range []struct{ name, written, want string }{
		{"nothing", "", ""},
		{"the last line", "starting\nlistening on stdio\nno go.mod found\n\n", "no go.mod found"},
		{"an error before a backtrace", "Error: Unknown binary 'rust-analyzer'\n\nStack backtrace:\n   0: anyhow::kind::Adhoc::new\n   2: rustup::recursion_error\n", "Error: Unknown binary 'rust-analyzer'"},
		{"a panic", "panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.main()\n", "panic: runtime error: index out of range"},
		{"long", strings.Repeat("é", 300), strings.Repeat("é", 100) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tl Tail
			fmt.Fprint(&tl, tc.written)
			if got := tl.Last(); got != tc.want {
				t.Errorf("Last() = %q, want %q", got, tc.want)
			}
		})
	}
	var tl Tail
	tl.Write([]byte(strings.Repeat("x", 3*tailSize) + "\nthe end"))
	if got := tl.Last(); got != "the end" {
		t.Errorf("after much output, Last() = %q", got)
	}
	var none *Tail
	if none.Last() != "" {
		t.Error("a nil Tail has something to say")
	}
}
