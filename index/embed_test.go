package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ternhq/tern/index/indextest"
	"github.com/ternhq/tern/models"
)

func TestEmbeddings(t *testing.T) {
	root := copyRepo(t)
	ix := openIndex(t, root)
	emb := &indextest.Embedder{}

	st := update(t, ix, Options{Embedder: emb, Model: "model-a"})
	status, _ := ix.Status(t.Context())
	if st.Embedded == 0 || status.Embedded != status.Chunks || status.Model != "model-a" || status.Dim != 64 {
		t.Fatalf("after embedding: stats %+v, status %+v", st, status)
	}

	t.Run("rename re-embeds nothing", func(t *testing.T) {
		_, before := emb.Stats()
		os.Rename(filepath.Join(root, "main.go"), filepath.Join(root, "cmd.go"))
		update(t, ix, Options{Embedder: emb, Model: "model-a"})
		if _, after := emb.Stats(); after != before {
			t.Errorf("rename embedded %d texts", after-before)
		}
	})
	t.Run("edit embeds the changed chunk only", func(t *testing.T) {
		_, before := emb.Stats()
		writeFiles(t, root, map[string]string{"cmd.go": "// Command shop runs the example shop.\npackage main\n\nimport \"fmt\"\n\n// main prints a greeting.\nfunc main() {\n\tfmt.Println(greeting(\"shop!\"))\n}\n\n// greeting builds the welcome line shown on start.\nfunc greeting(name string) string {\n\treturn \"welcome to \" + name\n}\n"})
		update(t, ix, Options{Embedder: emb, Model: "model-a"})
		if _, after := emb.Stats(); after-before != 1 {
			t.Errorf("edit embedded %d texts, want 1", after-before)
		}
	})
	t.Run("lexical update keeps vectors", func(t *testing.T) {
		update(t, ix, Options{})
		status, _ := ix.Status(t.Context())
		if status.Embedded != status.Chunks || status.Model != "model-a" {
			t.Errorf("status %+v", status)
		}
	})
	t.Run("an older chunk format reads every file again and keeps the vectors", func(t *testing.T) {
		// What an older tern left: no chunk format, and a language it
		// could not name.
		if _, err := ix.db.ExecContext(t.Context(), `DELETE FROM meta WHERE key = 'chunk_format'`); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.db.ExecContext(t.Context(), `UPDATE files SET lang = 'text' WHERE path = 'cmd.go'`); err != nil {
			t.Fatal(err)
		}
		_, before := emb.Stats()
		st := update(t, ix, Options{Embedder: emb, Model: "model-a"})
		status, _ := ix.Status(t.Context())
		if !st.Reformatted || st.Indexed != len(indexedPaths(t, ix)) || status.Embedded != status.Chunks {
			t.Errorf("stats %+v, status %+v", st, status)
		}
		if _, after := emb.Stats(); after != before {
			t.Errorf("reading the files again embedded %d texts", after-before)
		}
		var lang string
		ix.db.QueryRowContext(t.Context(), `SELECT lang FROM files WHERE path = 'cmd.go'`).Scan(&lang)
		if lang != "go" {
			t.Errorf("cmd.go is still %q", lang)
		}
		if st := update(t, ix, Options{Embedder: emb, Model: "model-a"}); st.Reformatted || st.Indexed != 0 {
			t.Errorf("the next update read files again: %+v", st)
		}
	})
	t.Run("another model rebuilds every vector", func(t *testing.T) {
		st := update(t, ix, Options{Embedder: emb, Model: "model-b"})
		status, _ := ix.Status(t.Context())
		if st.PreviousModel != "model-a" || st.Model != "model-b" || status.Model != "model-b" || status.Embedded != status.Chunks {
			t.Errorf("stats %+v, status %+v", st, status)
		}
	})
}

func TestEmbeddingFailures(t *testing.T) {
	tests := []struct {
		name    string
		fail    func(calls *int) func(string, []string) error
		wantErr string
		done    bool
	}{{
		name: "missing model",
		fail: func(*int) func(string, []string) error {
			return func(string, []string) error { return fmt.Errorf("404: %w", models.ErrModelNotFound) }
		},
		wantErr: "ollama pull nomic-embed-text",
	}, {
		name: "transient failure is retried",
		fail: func(calls *int) func(string, []string) error {
			return func(string, []string) error {
				*calls++
				if *calls == 1 {
					return errors.New("connection reset")
				}
				return nil
			}
		},
		done: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := copyRepo(t)
			ix := openIndex(t, root)
			var calls int
			emb := &indextest.Embedder{Fail: tt.fail(&calls)}
			_, err := ix.Update(t.Context(), Options{Embedder: emb, Model: "nomic-embed-text"})
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want it to say %q", err, tt.wantErr)
			}
			if tt.done && err != nil {
				t.Errorf("err = %v", err)
			}
			status, _ := ix.Status(t.Context())
			if status.Files == 0 || (status.Embedded == status.Chunks) != tt.done {
				t.Errorf("status %+v", status)
			}
		})
	}
}

func TestDecodeVectorRoundTrip(t *testing.T) {
	v := []float32{3, -4, 0, 1e-3}
	b := encodeVector(v)
	got := make([]float32, len(v))
	DecodeVector(got, b)
	for i, x := range got {
		want := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		if x != want {
			t.Errorf("number %d = %v, want %v", i, x, want)
		}
	}
	if got[0] < 0.59 || got[0] > 0.61 || got[1] > -0.79 || got[1] < -0.81 {
		t.Errorf("decoded %v, want the unit vector of %v", got, v)
	}
}
