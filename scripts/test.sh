#!/usr/bin/env bash
# The whole test suite: vet, unit tests, and the integration tests as the
# calling user and, when run as root, again as an unprivileged user.
# NSRUN_INTEGRATION=1 turns a host that cannot run sandboxes into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
TEST_USER="${NSRUN_TEST_USER:-nsrun-test}"

scripts/setup.sh

echo "== go vet"
go vet ./...

echo "== unit and integration tests as $(id -un)"
go test -count=1 ./...

if [ "$(id -u)" -eq 0 ]; then
	echo "== integration tests as $TEST_USER"
	dir="$(mktemp -d /var/tmp/nsrun-it.XXXXXX)"
	trap 'rm -rf "$dir"' EXIT
	chmod 755 "$dir"
	CGO_ENABLED=0 go build -tags netgo,osusergo -o "$dir/nsrun" ./cmd/nsrun
	CGO_ENABLED=0 go build -tags netgo,osusergo -o "$dir/helper" ./integration/helper
	go test -c -o "$dir/integration.test" ./integration
	go test -c -o "$dir/library.test" .
	chmod -R a+rX "$dir"
	# The test binary reads no source files; run it from a directory the
	# user can enter.
	(cd "$dir" && runuser -u "$TEST_USER" -- env \
		NSRUN_BIN="$dir/nsrun" NSRUN_HELPER="$dir/helper" \
		NSRUN_INTEGRATION="${NSRUN_INTEGRATION:-}" HOME="/home/$TEST_USER" PATH="$PATH" \
		sh -c './integration.test -test.count=1 && ./library.test -test.count=1')
	echo "ok  	integration and library as $TEST_USER"
fi
