#!/bin/sh
# Runs in Dockerfile.test's image: the tests of the container shape
# NSRUN_SHAPE, as root and as the unprivileged nsrun-test. Where full
# sandboxes cannot be built, only the tests that need none run.
set -eu
cd /opt/nsrun
shape="${NSRUN_SHAPE:?set NSRUN_SHAPE to default, docker or unmasked}"
case "$shape" in
unmasked) tests='.' ;;
default) tests='^(TestContainerShape|TestProbeIsTrue|TestLandlockOnlyMode|TestNetworkLandlockProxy|TestPodmanProfileAgreesWithTheRuntime)$' ;;
*) tests='^(TestContainerShape|TestProbeIsTrue|TestLandlockOnlyMode|TestNetworkLandlockProxy)$' ;;
esac
export NSRUN_BIN=/opt/nsrun/nsrun NSRUN_HELPER=/opt/nsrun/helper NSRUN_SYSC=/opt/nsrun/sysc
[ "$shape" = unmasked ] && export NSRUN_INTEGRATION=1
echo "== shape $shape: nsrun probe"
./nsrun probe || true
status=0
for user in root nsrun-test; do
	echo "== shape $shape: tests as $user"
	log="/tmp/suite-$user.log"
	if [ "$user" = root ]; then
		./integration.test -test.count=1 -test.timeout=30m -test.v -test.run "$tests" >"$log" 2>&1 || status=1
	else
		# The unprivileged user cannot enter root's /tmp test directories.
		runuser -u nsrun-test -- env HOME=/home/nsrun-test PATH="$PATH" NSRUN_SHAPE="$shape" \
			NSRUN_BIN="$NSRUN_BIN" NSRUN_HELPER="$NSRUN_HELPER" NSRUN_SYSC="$NSRUN_SYSC" NSRUN_INTEGRATION="${NSRUN_INTEGRATION:-}" \
			./integration.test -test.count=1 -test.timeout=30m -test.v -test.run "$tests" >"$log" 2>&1 || status=1
	fi
	grep -E '^ *--- (FAIL|SKIP)|^(ok|FAIL|PASS)' "$log" | sed 's/^/  /' || true
	[ $status -eq 0 ] || { grep -vE '^(=== |    --- PASS|--- PASS|PASS$)' "$log" | tail -60; exit 1; }
	passed=$(grep -cE '^ *--- PASS' "$log" || true)
	echo "  $passed passed"
done
