# make build: static bin/nsrun.  make demo / make test: the two README
# commands; each installs what it needs on a fresh Debian machine.
GO       ?= go
VERSION  ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
# Static and pure Go: no C library at build or run time (cgo would cost
# each of nsrun's two processes ~0.7 ms at start; see docs/BENCHMARKS.md).
GOFLAGS_BUILD = -trimpath -ldflags "-s -w -X main.version=$(VERSION)"

export PATH := $(PATH):/usr/local/go/bin

STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2

FUZZTIME ?= 30s

.PHONY: build demo test test-race test-container cross lint clean bench fuzz
build:
	scripts/setup.sh
	CGO_ENABLED=0 $(GO) build $(GOFLAGS_BUILD) -o bin/nsrun ./cmd/nsrun

demo:
	$(MAKE) build
	scripts/demo.sh

test:
	scripts/test.sh

# The race detector on the library's and the launcher's tests (the race
# runtime needs cgo; nsrun itself is built without it).
test-race:
	scripts/setup.sh
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 30m . ./cmd/nsrun ./internal/...

# The integration suite in containers (podman), in three shapes.
test-container:
	scripts/test-container.sh

cross:
	GOOS=darwin $(GO) build ./... && GOOS=darwin $(GO) vet ./...
	GOOS=windows $(GO) build ./... && GOOS=windows $(GO) vet ./...

lint:
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo "gofmt: the files above need formatting"; exit 1; }
	GOBIN=$(CURDIR)/bin $(GO) install $(STATICCHECK)
	for os in linux darwin windows; do GOOS=$$os bin/staticcheck ./... || exit 1; done

# Each target for FUZZTIME; make test runs their seed corpora.
FUZZ_TARGETS = FuzzEffective:. FuzzReportRoundTrip:. FuzzParsePolicyFile:. FuzzReadSpec:. FuzzParseArgs:./cmd/nsrun FuzzParseOCI:./seccomp FuzzUnmarshal:./internal/wire FuzzParseConfig:./internal/gitguard FuzzGitlinks:./internal/gitguard FuzzParseRule:./netproxy FuzzParseQuery:./netproxy FuzzReadHead:./netproxy FuzzQueries:./pty

fuzz:
	for t in $(FUZZ_TARGETS); do $(GO) test -run XXX -fuzz "^$${t%%:*}$$" -fuzztime $(FUZZTIME) $${t#*:} || exit 1; done

clean:
	rm -rf bin

bench:
	bench/all.sh
