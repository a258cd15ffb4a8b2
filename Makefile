# tern — build, run, test. `make help` lists the targets.
GO       ?= go
BIN      := bin/tern
PKGS     := ./...
ARGS     ?=
FUZZTIME ?= 10s

.PHONY: help build run test test-short test-real bench bench-summary lint fuzz fake clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 14

build: ## build bin/tern (the first build takes minutes: it lists each package as it compiles)
	@[ -x $(BIN) ] || echo "First build: Go compiles tern's dependencies, the tree-sitter grammars in C (cgo) the slowest;" \
	  "a few minutes (about 5 on a busy 2-core machine). Each package is listed as it is compiled."
	$(GO) build -v -o $(BIN) ./cmd/tern

run: build ## build, then run tern in this repository (pass flags with ARGS="...")
	./$(BIN) $(ARGS)

# A race-built program sleeps a second before it exits, to catch late
# reports (GORACE's atexit_sleep_ms). The tests start hundreds of them:
# tern's reaper and sandbox helper are the test binary itself. A GORACE
# of your own is added after it.
#
# RACEFLAGS leave the race detector and checkptr out of modernc.org's
# SQLite, which is C translated to Go: its memory is SQLite's, guarded by
# SQLite's own locks, and no tern code touches it. Under the detector it
# cost a fifth of the suite's CPU (session's tests 8.2 s against 1.4,
# index's 17.8 against 5.3), and checkptr can abort on its C-style pointer
# arithmetic. tern's own code, and every value it hands SQLite or reads
# back, stays checked. `make test RACEFLAGS=` checks it all.
RACEFLAGS ?= -gcflags='modernc.org/...=-race=false -d=checkptr=0'
# Packages tested at once: twice the cores, not go test's one per core. Much
# of the suite waits on the processes it starts (tern itself, commands under
# the sandbox, language servers, MCP servers), and a core left idle by one
# package's wait runs another's tests.
TESTP ?= $(shell echo $$(( $$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1) * 2 )))
test: export GORACE := atexit_sleep_ms=0 $(GORACE)
test: ## run every test with the race detector (the CI command)
	$(GO) test -race $(RACEFLAGS) -p $(TESTP) -count=1 $(PKGS)

test-short: ## run the tests without the race detector, faster
	$(GO) test -count=1 $(PKGS)

test-real: ## integration tests against a real Ollama (built once, cached; needs gcc and g++)
	bash models/ollamatest/real/run.sh $(ARGS)

bench: ## run the benchmarks (speed and memory targets)
	$(GO) test -run '^$$' -bench . -benchmem -benchtime=3x $(PKGS)

bench-summary: ## run the performance-target benchmarks one by one and print their figures in a table (ONLY="AskStartup Stream20k" for some)
	GO=$(GO) bash scripts/bench-summary.sh

lint: ## gofmt, go vet and the go.mod tidiness check
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	@cp go.mod /tmp/tern-go.mod.bak; cp go.sum /tmp/tern-go.sum.bak; \
	$(GO) mod tidy; \
	if ! git diff --quiet -- go.mod go.sum; then echo "go.mod/go.sum not tidy (run go mod tidy):"; git diff -- go.mod go.sum | head -40; \
	  cp /tmp/tern-go.mod.bak go.mod; cp /tmp/tern-go.sum.bak go.sum; exit 1; fi

fuzz: ## run every Go fuzz target for FUZZTIME (default 10s) each; a bare fuzztime-deadline stop (a Go 1.26 bug) is run again
	GO=$(GO) FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh

fake: ## run a fake Ollama on 127.0.0.1:11434 to try tern without a GPU
	$(GO) run ./cmd/fakeollama $(ARGS)

clean: ## remove build output
	rm -rf bin
