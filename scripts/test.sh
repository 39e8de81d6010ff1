#!/usr/bin/env bash
# The whole test suite: vet, unit tests, and the integration tests as the
# calling user and, when run as root, again as an unprivileged user (beside
# root's run, with the same binaries); the integration tests run once more
# with the init forked through the fork helper, as for a program with a
# large heap; then bubblewrap's own test suite against nsrun as bwrap
# (scripts/bwrap-suite-check.sh). Each run keeps its own log; a failed one
# shows its failures.
# NSRUN_INTEGRATION=1 turns a host that cannot run sandboxes into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
TEST_USER="${NSRUN_TEST_USER:-nsrun-test}"

scripts/setup.sh

echo "== go vet"
go vet ./...

log="$(mktemp /var/tmp/nsrun-test-log.XXXXXX)"
# nsrun, the integration helper, the static test program and the two test
# binaries the later passes run, built once (nsrun as
# integration/main_test.go builds it); a directory every user can read.
dir="$(mktemp -d /var/tmp/nsrun-it.XXXXXX)"
trap 'rm -rf "$dir" "$log"' EXIT
chmod 755 "$dir"
CGO_ENABLED=0 go build -o "$dir/nsrun" ./cmd/nsrun
CGO_ENABLED=0 go build -o "$dir/helper" ./integration/helper
gcc -O2 -static -o "$dir/sysc" integration/testdata/sysc.c
go test -c -o "$dir/integration.test" ./integration
go test -c -o "$dir/library.test" .
chmod -R a+rX "$dir"
export NSRUN_BIN="$dir/nsrun" NSRUN_HELPER="$dir/helper" NSRUN_SYSC="$dir/sysc"

# report NAME...: for each test binary's run $dir/NAME.log, "ok" or its
# failures (the passing lines left out; NAME.failed marks a failed run);
# adds the logs to $log; fails if one failed.
report() {
	local name bad=0
	for name in "$@"; do
		if [ -e "$dir/$name.failed" ]; then
			echo "FAIL	$name:"
			grep -vE '^(=== |    --- PASS|--- PASS|PASS$)' "$dir/$name.log" || true
			bad=1
		else
			echo "ok  	$name"
		fi
		cat "$dir/$name.log" >>"$log"
	done
	return "$bad"
}

# A large program forks the init through the fork helper; force that path
# for the tests of what the helper changes: how the init is started, placed
# in its cgroup, signalled, reaped and cleaned up, and the terminal it gets.
# What happens inside a started sandbox does not depend on who forked it.
fork_helper_tests='^(TestExitStatuses|TestInitKilledFromOutside|TestForkHelperKilledFromOutside|TestGroupSignalReachesThePayload|TestNothingLeftAfterSIGKILL|TestCgroupOfAKilledNsrunIsRemoved|TestStragglersKilledWhenPayloadExits|TestSigtermIsForwarded|TestOnlyStandardDescriptorsReachThePayload|TestClosedStdinAndBrokenStdout|TestNamespacesAreNew|TestIdsAndHostname|TestCapabilitiesEmptyAndNoNewPrivs|TestCgroupLimits|TestRlimits|TestKillAfter|TestReportRunAndUsage|TestBadInputIsRefused|TestRootIsReadOnly|TestEscapeAttempts|TestSandboxesWhereClone3IsRefused|TestTraceDenialsSameOutcome|TestShellJobControlOnItsPTY|TestCtrlZStopsAndResumesAPlainPayload|TestTerminalIsTheSandboxsOwn|TestTerminalRestoredOnEveryEnd|TestNetworkAllowedName|TestAgentPresetDoesRealWork|TestLibrary.*|Example.*)$'

# As root, the integration and library tests run again as $TEST_USER, with
# the binaries built above, beside root's run: the suite's tests mostly wait
# for sandboxes to start and end, and keep apart what they share (names
# with the test process's pid, ports the kernel picks, temporary
# directories, each user's HOME). The test binaries read no source files;
# they run from a directory the user can enter, integration and library
# side by side as go test runs packages, then the fork helper's tests.
user_pass() {
	# /dev/fuse is root's alone here (Debian makes it 0666): a copy of the
	# node that the test user may open, removed with $dir.
	local fuse=""
	if [ -c /dev/fuse ]; then
		mknod "$dir/fuse" c "$((0x$(stat -c %t /dev/fuse)))" "$((0x$(stat -c %T /dev/fuse)))" &&
			chmod 666 "$dir/fuse" && fuse="$dir/fuse"
	fi
	as_user() {
		(cd "$dir" && runuser -u "$TEST_USER" -- env \
			NSRUN_BIN="$dir/nsrun" NSRUN_HELPER="$dir/helper" NSRUN_SYSC="$dir/sysc" NSRUN_FUSE="$fuse" \
			NSRUN_INTEGRATION="${NSRUN_INTEGRATION:-}" NSRUN_FORK_HELPER="${NSRUN_FORK_HELPER:-}" HOME="/home/$TEST_USER" PATH="$PATH" "$@")
	}
	as_user ./integration.test -test.count=1 -test.timeout=30m -test.v >"$dir/user-integration.log" 2>&1 &
	local pid=$!
	as_user ./library.test -test.count=1 -test.timeout=30m -test.v >"$dir/user-library.log" 2>&1 || touch "$dir/user-library.failed"
	wait "$pid" || touch "$dir/user-integration.failed"
	NSRUN_FORK_HELPER=1 as_user ./integration.test -test.count=1 -test.timeout=30m -test.v -test.run "$fork_helper_tests" \
		>"$dir/user-fork-helper-integration.log" 2>&1 || touch "$dir/user-fork-helper-integration.failed"
}
user_pid=""
if [ "$(id -u)" -eq 0 ]; then
	user_pass &
	user_pid=$!
fi

echo "== unit and integration tests as $(id -un)"
if go test -count=1 -timeout 30m -v ./... >"$log" 2>&1; then
	grep -E '^(ok|\?) ' "$log"
else
	grep -vE '^(=== |    --- PASS|--- PASS|PASS$)' "$log"
	if [ -n "$user_pid" ]; then
		wait "$user_pid"
		echo "== integration and library tests as $TEST_USER (beside root's)"
		report user-integration user-library user-fork-helper-integration || true
	fi
	exit 1
fi

echo "== integration and library tests as $(id -un), through the fork helper"
# Each from its package's directory, as go test runs it.
(cd integration && NSRUN_FORK_HELPER=1 "$dir/integration.test" -test.count=1 -test.timeout=30m -test.v -test.run "$fork_helper_tests") \
	>"$dir/fork-helper-integration.log" 2>&1 || touch "$dir/fork-helper-integration.failed" &
pid=$!
NSRUN_FORK_HELPER=1 "$dir/library.test" -test.count=1 -test.timeout=30m -test.v -test.run "$fork_helper_tests" \
	>"$dir/fork-helper-library.log" 2>&1 || touch "$dir/fork-helper-library.failed"
wait "$pid"
status=0
report fork-helper-integration fork-helper-library || status=1

if [ -n "$user_pid" ]; then
	wait "$user_pid"
	echo "== integration and library tests as $TEST_USER (beside root's)"
	report user-integration user-library user-fork-helper-integration || status=1
fi
[ "$status" -eq 0 ] || exit 1

# bubblewrap's own tests/test-run.sh (taken from Debian's source package at
# test time) against nsrun as bwrap, as this user and, as root, as
# $TEST_USER; each outcome held to scripts/bwrap-suite.expected.
echo "== bubblewrap's tests/test-run.sh against nsrun as bwrap"
NSRUN_TEST_USER="$TEST_USER" scripts/bwrap-suite-check.sh "$dir/nsrun"

passed=$(grep -cE '^ *--- PASS' "$log" || true)
skipped=$(grep -cE '^ *--- SKIP' "$log" || true)
failed=$(grep -cE '^ *--- FAIL' "$log" || true)
grep -E '^ *--- SKIP' -B1 "$log" | grep -v '^--$' | sed 's/^/skipped: /' || true
echo "tests: $passed passed, $failed failed, $skipped skipped"
