package budget

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// This file counts cl100k_base tokens the way tiktoken-go's EncodeOrdinary
// does (the same pre-tokenizer, the same byte-pair merges, so the same
// count; counter_test checks it against tiktoken-go), from a precomputed
// table instead of tiktoken-go's maps. Building tiktoken-go's encoder from
// the offline loader's file takes 150-250 ms (a 100k-entry map, then a
// decoder map and a sorted copy that counting never uses), which was most
// of `tern ask`'s start-up; the table is ready as the binary is mapped.

// cl100kTable is the ranks of cl100k_base.tiktoken from
// github.com/pkoukk/tiktoken-go-loader, as a hash table (see ranks).
// TestRanksTableIsCurrent rebuilds it from the loader; `go test
// ./context/budget -run TestRanksTableIsCurrent -update` rewrites it.
//
//go:embed cl100k.ranks
var cl100kTable []byte

// The table's layout, all integers little-endian uint32:
//
//	magic "tkr1", n (tokens), slot bits,
//	off[n+1] (token r's bytes are data[off[r]:off[r+1]]; r is its rank),
//	slots[1<<slot bits] (0 empty, else fingerprint<<fpShift | 1+rank),
//	data.
//
// Slots are found by FNV-1a of the token's bytes, probing linearly; the
// fingerprint is the hash's top bits, so most probes never look at bytes.
const (
	ranksMagic = "tkr1"
	fpShift    = 17 // ranks below 1<<17 - 1
)

// ranks reads a table.
type ranks struct {
	off, slots, data []byte
	mask             uint32
}

func openRanks(table []byte) (*ranks, error) {
	if len(table) < 12 || string(table[:4]) != ranksMagic {
		return nil, errors.New("not a ranks table")
	}
	n := int(binary.LittleEndian.Uint32(table[4:]))
	bits := binary.LittleEndian.Uint32(table[8:])
	if n >= 1<<fpShift-1 || bits > 24 {
		return nil, errors.New("bad ranks table header")
	}
	offEnd := 12 + 4*(n+1)
	slotsEnd := offEnd + 4<<bits
	if len(table) < slotsEnd {
		return nil, errors.New("short ranks table")
	}
	r := &ranks{off: table[12:offEnd], slots: table[offEnd:slotsEnd], data: table[slotsEnd:], mask: 1<<bits - 1}
	if int(binary.LittleEndian.Uint32(r.off[4*n:])) != len(r.data) {
		return nil, errors.New("ranks table data size mismatch")
	}
	return r, nil
}

// fnv1a is the table's hash.
func fnv1a(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

func fingerprint(h uint64) uint32 { return uint32(h >> (64 - (32 - fpShift))) }

// get returns the rank of b, or -1 when b is not a token.
func (r *ranks) get(b []byte) int {
	h := fnv1a(b)
	fp := fingerprint(h)
	for i := uint32(h) & r.mask; ; i = (i + 1) & r.mask {
		s := binary.LittleEndian.Uint32(r.slots[4*i:])
		if s == 0 {
			return -1
		}
		if s>>fpShift != fp {
			continue
		}
		t := s&(1<<fpShift-1) - 1
		if string(r.data[binary.LittleEndian.Uint32(r.off[4*t:]):binary.LittleEndian.Uint32(r.off[4*t+4:])]) == string(b) {
			return int(t)
		}
	}
}

// cl100k is the counting state, built on first use and shared.
var cl100k = sync.OnceValues(func() (*bpe, error) {
	r, err := openRanks(cl100kTable)
	if err != nil {
		return nil, fmt.Errorf("load cl100k_base ranks: %w", err)
	}
	re, err := regexp2.Compile(cl100kPattern, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("build cl100k_base pre-tokenizer: %w", err)
	}
	return &bpe{ranks: r, re: re}, nil
})

// bpe counts tokens with a pre-tokenizer and ranks.
type bpe struct {
	ranks *ranks
	re    *regexp2.Regexp
}

// count returns the number of tokens tiktoken-go's EncodeOrdinary returns
// for text.
func (e *bpe) count(text string) int {
	// tiktoken-go works on runes: an invalid byte is U+FFFD.
	runes := []rune(text)
	n := 0
	var piece []byte
	m, _ := e.re.FindRunesMatch(runes)
	for m != nil {
		piece = piece[:0]
		for _, r := range runes[m.Index : m.Index+m.Length] {
			piece = utf8.AppendRune(piece, r)
		}
		n += e.pieceTokens(piece)
		m, _ = e.re.FindNextMatch(m)
	}
	return n
}

// pieceTokens counts the tokens of one pre-tokenized piece: one when it is
// a token, else as many as tiktoken-go's byte-pair merge leaves.
func (e *bpe) pieceTokens(piece []byte) int {
	if len(piece) <= 1 || e.ranks.get(piece) >= 0 {
		return min(len(piece), 1)
	}
	// parts[i] = {start of part i, rank of merging it with the next}.
	var buf [64][2]int
	parts := buf[:0]
	for i := 0; i <= len(piece); i++ {
		parts = append(parts, [2]int{i, math.MaxInt})
	}
	rankOf := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			return e.ranks.get(piece[parts[i][0]:parts[i+skip+2][0]])
		}
		return -1
	}
	for i := 0; i < len(parts)-2; i++ {
		if r := rankOf(i, 0); r >= 0 {
			parts[i][1] = r
		}
	}
	for len(parts) > 1 {
		minRank, minIdx := math.MaxInt, -1
		for i := 0; i < len(parts)-1; i++ {
			if parts[i][1] < minRank {
				minRank, minIdx = parts[i][1], i
			}
		}
		if minIdx < 0 {
			break
		}
		i := minIdx
		if r := rankOf(i, 1); r >= 0 {
			parts[i][1] = r
		} else {
			parts[i][1] = math.MaxInt
		}
		if i > 0 {
			if r := rankOf(i-1, 1); r >= 0 {
				parts[i-1][1] = r
			} else {
				parts[i-1][1] = math.MaxInt
			}
		}
		parts = append(parts[:i+1], parts[i+2:]...)
	}
	return len(parts) - 1
}
