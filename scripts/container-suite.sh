#!/bin/sh
# Runs in Dockerfile.test's image: the tests of the container shape
# NSRUN_SHAPE, as root and as the unprivileged nsrun-test. Where full
# sandboxes cannot be built, only the tests that need none run.
set -eu
cd /opt/nsrun
shape="${NSRUN_SHAPE:?set NSRUN_SHAPE to default, docker or unmasked}"
# The tests whose outcome a container can change: the unmasked shape runs
# them, as root and as nsrun-test. make test runs every test on the host;
# what a container changes is the ground nsrun stands on (its mount table
# and root file system, /proc, cgroups, the runtime's seccomp profile and
# capabilities, the network namespace, /dev, no terminal), so these are the
# tests of what stands on it. Names or patterns, a group per line, why after
# the #. integration/containerlist_test.go (part of make test) fails when a
# test that reaches a helper answering from the container (NSRUN_SHAPE,
# probeHost, runAnywhere, shimsFileSystem, refusedOutside, sessionLimits,
# cgroupsNamed) is not listed here, and when a word here names no test.
# Left out, the host's runs holding them: git's own behaviour against the
# agent preset's protections (gitred, gitrepos, agent and toolchain tests:
# they stand on the mounts and Landlock rules the tests below check here),
# policies, report forging, the CLI, environment and working directory,
# pins, symlinked rules, the process tests of exit statuses, signals and
# descriptors, tmux and full-screen programs (not in the image), and the
# trace flood: nsrun's own logic, the same wherever it runs.
unmasked_list() {
	cat <<'TESTS'
TestContainerShape TestProbeIsTrue TestPodmanProfile.*              # container detection, what the probe says
TestLandlockReportedFullHere TestStrict.* TestFailedReport.*        # the report and --strict say what the container allows
TestRootIsReadOnly TestReadOnlyInsideWritableHolds TestDenyHidesFilesAndDirectories TestTmpIsPrivate TestRunIsPrivate TestTmpfsOption
TestDevIsMinimal TestProcIsPrivateAndGuarded TestEveryMountNosuidNodevAndRootReadOnly TestSymlinkMountPointRefused TestSysIsTheSandboxsOwn
TestBindShowsSourceAtDest TestRootImageLackingMountPoints TestDirSymlinkAndFile TestOldRootIsDetached TestLaterHostMountsStayOutside
                                                                    # the mount tree is made from the container's: an overlayfs root, the
                                                                    # runtime's /dev, /run, read-only /sys, its locked mounts, propagation
TestDevicesByRule TestBlockDevice TestFUSE                          # the runtime's /dev: few devices, no /dev/fuse, no loop devices
TestNamespacesAreNew TestIdsAndHostname TestEscapeAttempts TestNestedSandbox # nested in the container's namespaces (pids 1 and 2 are its)
TestOverlayLeavesTheHostUnchanged TestKeepChanges.* TestApplyRefusesWhatTheHostChanged TestQuietShellStart.*
                                                                    # overlays and the shims layer over an overlayfs (shimsFileSystem)
TestHostProc.* TestMaskedOrReadOnlyProcIsAClearError                # /proc masks, --proc host
TestCgroup.* TestSandboxesWhereClone3IsRefused TestReportRunAndUsage TestKillAfter TestRlimits TestTmpfsSize
                                                                    # cgroups (read-only here), usage, the runtime's rlimits
TestNothingLeftAfterSIGKILL TestStragglersKilledWhenPayloadExits TestInitKilledFromOutside TestForkHelperKilledFromOutside
                                                                    # cleanup without a cgroup of the sandbox's own
TestSession.*                                                       # a session's cgroup where root may make one (sessionLimits)
TestTraceDenials(Layers|Nothing|SameOutcome|TracerOutOfReach|PolicyFile|KeepsSignals|PayloadFilters|SupervisorBehindRefusals)
TestDefaultFilterDeniesEachCall TestOtherABIsAreKilled TestSeccompStatusAndRealPrograms TestDockerDefaultProfileRunsRealPrograms
TestNoSetID.* TestSetuidGivesNothing TestPortRulesWhateverTheProfile TestRawSocketsNeedACapabilityThePayloadLacks TestCapabilitiesEmptyAndNoNewPrivs
                                                                    # nsrun's filter stacked on the runtime's (refusedOutside), and
                                                                    # root's capabilities in a container
TestLandlockOnly.* TestRuleThroughSymlinkRefusedInLandlockMode TestLandlockNetNoneHasNoInetSocket
                                                                    # the Landlock-only mode containers use: its supervisor needs what
                                                                    # the runtime's profile allows (user notification, pidfd_getfd)
TestNet.* TestNetwork.* TestHostUnixSocketsUnreachable TestPortRulesLeaveNoOtherWay TestUDPWithTCPRules TestAllowConnectRestrictsTCPAndMPTCP
TestHostAbstractSocketsAndSignalsAreScoped TestNamedSocketByRule    # the container's network namespace, loopback, resolver and /run
TestTIOCSTIReachesOnlyTheSandboxsPTY TestLateTerminalAnswersAreNotTyped TestKeyTypedWhileAnswersAreAwaited TestTerminalIsTheSandboxsOwn
                                                                    # no terminal; TIOCSTI without CAP_SYS_ADMIN
TestRawInit.* TestGoInitRunsTheSuite TestSharedMemory.*           # both inits run for root: here a root without the host's capabilities
TestAgentAbsent.*                                                   # absent paths are held with inotify, here on an overlayfs
TestBwrap.*                                                         # bwrap's callers (sandbox-runtime, codex) run in containers
TESTS
}
unmasked_tests="^($(unmasked_list | sed 's/#.*//' | tr -s ' \t' '\n' | sed '/^$/d' | paste -sd '|' -))\$"
case "$shape" in
unmasked) tests="$unmasked_tests" ;;
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
	t0=$(date +%s)
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
	echo "  $passed passed in $(($(date +%s) - t0)) s"
done
