package testenv

import (
	"runtime"
	"testing"
)

func TestProgramFindsAProgramOnPath(t *testing.T) {
	if got := Program(t, "go", "it runs the tests"); got == "" {
		t.Fatal("Program returned no path for go, which runs this test")
	}
}

func TestProgramSkipsOrFailsWithoutIt(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Run("CI="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			var rec recorder
			done := make(chan struct{})
			go func() { // Skipf and Fatalf end the goroutine that calls them
				defer close(done)
				Program(&rec, "tern-no-such-program", "apt-get install nothing")
			}()
			<-done
			switch {
			case ci == "true" && !rec.failed:
				t.Error("in CI a missing program must fail the test")
			case ci != "true" && !rec.skipped:
				t.Error("outside CI a missing program must skip the test")
			}
		})
	}
}

// recorder is a testing.TB that notes a skip or a failure.
type recorder struct {
	testing.TB
	failed, skipped bool
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(string, ...any) {
	r.failed = true
	runtime.Goexit()
}
func (r *recorder) Skipf(string, ...any) {
	r.skipped = true
	runtime.Goexit()
}
