package eval

import (
	"fmt"
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	t.Parallel()
	var res Result
	res.Count([]Call{
		{Repair: "native"},
		{},                                // native, recorded without a label
		{Repair: "bare+alias"},            // repaired, ran
		{Repair: "bare+alias"},            // again
		{Repair: "tagged", Invalid: true}, // read, but its arguments were bad
		{Invalid: true, Unreadable: true}, // call text no call could be read from
	})
	if res.Attempts != 6 || res.Valid != 4 || res.Invalid != 2 || res.ToolCalls != 5 {
		t.Errorf("attempts %d, valid %d, invalid %d, tool calls %d; want 6, 4, 2, 5", res.Attempts, res.Valid, res.Invalid, res.ToolCalls)
	}
	if fmt.Sprint(res.Repaired) != "map[bare+alias:2 tagged:1]" {
		t.Errorf("repaired = %v, want what was not native, by repair", res.Repaired)
	}

	var none Result
	none.Count(nil)
	if none.Repaired != nil || none.Attempts != 0 {
		t.Errorf("no calls counted %+v", none)
	}
	var native Result
	native.Count([]Call{{Repair: "native"}})
	if native.Repaired != nil || native.Valid != 1 {
		t.Errorf("a native call counted %+v; want valid and no repairs (the JSON leaves repaired out)", native)
	}
}

// TestCountFeedsTheModeShare: what Count counts is what the report's
// share of valid calls is made of.
func TestCountFeedsTheModeShare(t *testing.T) {
	t.Parallel()
	res := Result{Task: "t", Status: Pass, Mode: "text"}
	res.Count([]Call{{Repair: "tagged"}, {Invalid: true, Unreadable: true}, {Repair: "tagged"}, {Repair: "tagged"}})
	var r Report
	r.Add(res)
	if m := r.Summary.Modes["text"]; m == nil || m.Attempts != 4 || m.Valid != 3 || m.Share != 0.75 {
		t.Errorf("text mode = %+v, want 3 of 4 calls valid", m)
	}
}

func TestCheckModes(t *testing.T) {
	t.Parallel()
	if err := CheckModes([]string{"native", "text", "constrained"}); err != nil {
		t.Error(err)
	}
	if err := CheckModes(nil); err != nil {
		t.Error(err)
	}
	err := CheckModes([]string{"text", "magic"})
	if err == nil || err.Error() != `--modes: "magic" is not a tool mode; use native, text or constrained` {
		t.Errorf("err = %v", err)
	}
}

func TestWriteProgress(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	WriteProgress(&b, Result{Task: "find-definition", Mode: "native", Status: Pass})
	WriteProgress(&b, Result{Task: "t", Status: Skip})
	want := "find-definition      native      pass\n" +
		"t                                skip\n"
	if b.String() != want {
		t.Errorf("progress:\n%q\nwant:\n%q", b.String(), want)
	}
}
