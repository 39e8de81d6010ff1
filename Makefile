# make build: static bin/nsrun.  make demo / make test: the two README
# commands; each installs what it needs on a fresh Debian machine.
GO       ?= go
VERSION  ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
# Pure Go for now; the seccomp layer (cgo, libseccomp) switches this to
# CGO_ENABLED=1 with -linkmode external -extldflags -static.
GOFLAGS_BUILD = -tags netgo,osusergo -trimpath -ldflags "-s -w -X main.version=$(VERSION)"

export PATH := $(PATH):/usr/local/go/bin

STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: build demo test cross lint clean bench
build:
	CGO_ENABLED=0 $(GO) build $(GOFLAGS_BUILD) -o bin/nsrun ./cmd/nsrun

demo:
	scripts/setup.sh
	$(MAKE) build
	scripts/demo.sh

test:
	scripts/test.sh

cross:
	GOOS=darwin $(GO) build ./... && GOOS=darwin $(GO) vet ./...
	GOOS=windows $(GO) build ./... && GOOS=windows $(GO) vet ./...

lint:
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo "gofmt: the files above need formatting"; exit 1; }
	GOBIN=$(CURDIR)/bin $(GO) install $(STATICCHECK)
	for os in linux darwin windows; do GOOS=$$os bin/staticcheck ./... || exit 1; done

clean:
	rm -rf bin

bench:
	bench/startup.sh
