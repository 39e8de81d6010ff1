#!/usr/bin/env bash
# The whole test suite: vet, unit tests, and the integration tests as the
# calling user and, when run as root, again as an unprivileged user; the
# integration tests run once more with the init forked through the fork
# helper, as for a program with a large heap; then bubblewrap's own test
# suite against nsrun as bwrap (scripts/bwrap-suite-check.sh).
# NSRUN_INTEGRATION=1 turns a host that cannot run sandboxes into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
TEST_USER="${NSRUN_TEST_USER:-nsrun-test}"

scripts/setup.sh

echo "== go vet"
go vet ./...

log="$(mktemp /var/tmp/nsrun-test-log.XXXXXX)"
trap 'rm -f "$log"' EXIT

echo "== unit and integration tests as $(id -un)"
go test -count=1 -timeout 30m -v ./... >"$log" 2>&1 || { grep -vE '^(=== |    --- PASS|--- PASS|PASS$)' "$log"; exit 1; }
grep -E '^(ok|\?) ' "$log"

# A large program forks the init through the fork helper; force that path
# for the tests of what the helper changes: how the init is started, placed
# in its cgroup, signalled, reaped and cleaned up, and the terminal it gets.
# What happens inside a started sandbox does not depend on who forked it.
fork_helper_tests='^(TestExitStatuses|TestInitKilledFromOutside|TestForkHelperKilledFromOutside|TestGroupSignalReachesThePayload|TestNothingLeftAfterSIGKILL|TestCgroupOfAKilledNsrunIsRemoved|TestStragglersKilledWhenPayloadExits|TestSigtermIsForwarded|TestOnlyStandardDescriptorsReachThePayload|TestClosedStdinAndBrokenStdout|TestNamespacesAreNew|TestIdsAndHostname|TestCapabilitiesEmptyAndNoNewPrivs|TestCgroupLimits|TestRlimits|TestKillAfter|TestReportRunAndUsage|TestBadInputIsRefused|TestRootIsReadOnly|TestEscapeAttempts|TestSandboxesWhereClone3IsRefused|TestTraceDenialsSameOutcome|TestShellJobControlOnItsPTY|TestCtrlZStopsAndResumesAPlainPayload|TestTerminalIsTheSandboxsOwn|TestTerminalRestoredOnEveryEnd|TestNetworkAllowedName|TestAgentPresetDoesRealWork|TestLibrary.*|Example.*)$'
echo "== integration and library tests as $(id -un), through the fork helper"
helper_log="$(mktemp /var/tmp/nsrun-test-log.XXXXXX)"
NSRUN_FORK_HELPER=1 go test -count=1 -timeout 30m -v -run "$fork_helper_tests" ./integration . >"$helper_log" 2>&1 ||
	{ grep -vE '^(=== |    --- PASS|--- PASS|PASS$)' "$helper_log"; rm -f "$helper_log"; exit 1; }
grep -E '^(ok|\?) ' "$helper_log"
cat "$helper_log" >>"$log"
rm -f "$helper_log"

if [ "$(id -u)" -eq 0 ]; then
	echo "== integration tests as $TEST_USER"
	dir="$(mktemp -d /var/tmp/nsrun-it.XXXXXX)"
	trap 'rm -rf "$dir" "$log"' EXIT
	chmod 755 "$dir"
	CGO_ENABLED=0 go build -o "$dir/nsrun" ./cmd/nsrun
	CGO_ENABLED=0 go build -o "$dir/helper" ./integration/helper
	gcc -O2 -static -o "$dir/sysc" integration/testdata/sysc.c
	# /dev/fuse is root's alone here (Debian makes it 0666): a copy of the
	# node that the test user may open, removed with $dir.
	fuse=""
	if [ -c /dev/fuse ]; then
		mknod "$dir/fuse" c "$((0x$(stat -c %t /dev/fuse)))" "$((0x$(stat -c %T /dev/fuse)))" &&
			chmod 666 "$dir/fuse" && fuse="$dir/fuse"
	fi
	go test -c -o "$dir/integration.test" ./integration
	go test -c -o "$dir/library.test" .
	chmod -R a+rX "$dir"
	# The test binary reads no source files; run it from a directory the
	# user can enter.
	user_log="$dir/user.log"
	(cd "$dir" && runuser -u "$TEST_USER" -- env \
		NSRUN_BIN="$dir/nsrun" NSRUN_HELPER="$dir/helper" NSRUN_SYSC="$dir/sysc" NSRUN_FUSE="$fuse" \
		NSRUN_INTEGRATION="${NSRUN_INTEGRATION:-}" HOME="/home/$TEST_USER" PATH="$PATH" \
		sh -c './integration.test -test.count=1 -test.timeout=30m -test.v && ./library.test -test.count=1 -test.timeout=30m -test.v &&
			NSRUN_FORK_HELPER=1 ./integration.test -test.count=1 -test.timeout=30m -test.v -test.run "$0"' "$fork_helper_tests") >"$user_log" 2>&1 ||
		{ grep -vE '^(=== |    --- PASS|--- PASS|PASS$)' "$user_log"; exit 1; }
	echo "ok  	integration and library as $TEST_USER"
	cat "$user_log" >>"$log"
fi

# bubblewrap's own tests/test-run.sh (taken from Debian's source package at
# test time) against nsrun as bwrap, as this user and, as root, as
# $TEST_USER; each outcome held to scripts/bwrap-suite.expected.
echo "== bubblewrap's tests/test-run.sh against nsrun as bwrap"
bw="$(mktemp -d /var/tmp/nsrun-bwrap-bin.XXXXXX)"
CGO_ENABLED=0 go build -o "$bw/nsrun" ./cmd/nsrun
NSRUN_TEST_USER="$TEST_USER" scripts/bwrap-suite-check.sh "$bw/nsrun" || { rm -rf "$bw"; exit 1; }
rm -rf "$bw"

passed=$(grep -cE '^ *--- PASS' "$log" || true)
skipped=$(grep -cE '^ *--- SKIP' "$log" || true)
failed=$(grep -cE '^ *--- FAIL' "$log" || true)
grep -E '^ *--- SKIP' -B1 "$log" | grep -v '^--$' | sed 's/^/skipped: /' || true
echo "tests: $passed passed, $failed failed, $skipped skipped"
