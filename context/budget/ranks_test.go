package budget

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

var update = flag.Bool("update", false, "rewrite cl100k.ranks from tiktoken-go-loader")

// TestRanksTableIsCurrent rebuilds cl100k.ranks from the offline loader's
// cl100k_base.tiktoken and compares it with the embedded table.
func TestRanksTableIsCurrent(t *testing.T) {
	file, err := assets.Assets.ReadFile("cl100k_base.tiktoken")
	if err != nil {
		t.Fatal(err)
	}
	table, err := buildRanks(file)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("cl100k.ranks", table, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(table, cl100kTable) {
		t.Fatal("cl100k.ranks is stale; rerun with -update")
	}
	r, err := openRanks(cl100kTable)
	if err != nil {
		t.Fatal(err)
	}
	for rank, line := range bytes.Split(bytes.TrimSpace(file), []byte{'\n'}) {
		tok, _, _ := bytes.Cut(line, []byte{' '})
		b, _ := base64.StdEncoding.DecodeString(string(tok))
		if got := r.get(b); got != rank {
			t.Fatalf("rank of %q = %d, want %d", b, got, rank)
		}
	}
	for _, s := range []string{"", "no such token at all", "\xff\xfe\xfd\xfc"} {
		if got := r.get([]byte(s)); got != -1 {
			t.Errorf("rank of %q = %d, want -1", s, got)
		}
	}
}

// buildRanks makes the table openRanks reads from a .tiktoken file
// ("base64 rank" lines, ranks 0, 1, 2… in order).
func buildRanks(file []byte) ([]byte, error) {
	var toks [][]byte
	for line := range bytes.Lines(file) {
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			continue
		}
		tok, num, ok := bytes.Cut(line, []byte{' '})
		b, err := base64.StdEncoding.DecodeString(string(tok))
		if err != nil || !ok {
			return nil, fmt.Errorf("bad line %q", line)
		}
		if rank, err := strconv.Atoi(string(num)); err != nil || rank != len(toks) {
			return nil, fmt.Errorf("rank %q out of order", num)
		}
		toks = append(toks, b)
	}
	n := len(toks)
	if n >= 1<<fpShift-1 {
		return nil, fmt.Errorf("%d tokens, too many", n)
	}
	bits := uint32(0)
	for 1<<bits < 2*n {
		bits++
	}
	out := []byte(ranksMagic)
	out = binary.LittleEndian.AppendUint32(out, uint32(n))
	out = binary.LittleEndian.AppendUint32(out, bits)
	var data []byte
	for _, b := range toks {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(data)))
		data = append(data, b...)
	}
	out = binary.LittleEndian.AppendUint32(out, uint32(len(data)))
	slots := make([]uint32, 1<<bits)
	mask := uint32(1<<bits - 1)
	seen := map[string]bool{}
	for rank, b := range toks {
		if seen[string(b)] {
			return nil, fmt.Errorf("token %q repeats", b)
		}
		seen[string(b)] = true
		h := fnv1a(b)
		i := uint32(h) & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = fingerprint(h)<<fpShift | uint32(rank+1)
	}
	for _, s := range slots {
		out = binary.LittleEndian.AppendUint32(out, s)
	}
	return append(out, data...), nil
}
