// Package testenv is what tests need from the machine they run on: a
// program that .ci/run installs (a language server, bubblewrap, tmux) and
// a developer may not have.
//
// A test that needs such a program skips with a message saying how to
// install it, except in CI (CI=true), where .ci/run has installed it and
// a missing program fails the test: CI can never pass by skipping.
//
// testenv imports nothing of tern.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the tests run in CI, where every program .ci/run
// installs must be there.
func InCI() bool { return os.Getenv("CI") == "true" }

// Program returns the path of the program name, found on PATH. When it is
// not there the test is skipped, with install saying how to get it
// ("go install golang.org/x/tools/gopls@v0.23.0"), or, in CI, fails.
func Program(t testing.TB, name, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if InCI() {
		t.Fatalf("%s is not on PATH, and CI must run this test: .ci/run should install it (%s)", name, install)
	}
	t.Skipf("%s is not on PATH; install it to run this test: %s", name, install)
	return ""
}

// Missing stops the test for something else it needs that is not there,
// such as the npm packages of a test's client: a skip saying how to get
// it ("npm ci in cmd/tern/testdata/acpclient"), or, in CI, a failure.
func Missing(t testing.TB, what, install string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s is missing, and CI must run this test: .ci/run should install it (%s)", what, install)
	}
	t.Skipf("%s is missing; install it to run this test: %s", what, install)
}

// LanguageServers says how to install the language servers (gopls,
// pyright) that the tests of tools/lsp and cmd/tern run, at the versions
// CI pins.
const LanguageServers = "bash scripts/install-language-servers.sh, then put the directories it prints on PATH"
