#!/usr/bin/env bash
# Runs bubblewrap's own tests/test-run.sh (scripts/bwrap-suite.sh) against
# nsrun as bwrap, as the caller and, when run as root, again as the test
# user, and holds each test's outcome to scripts/bwrap-suite.expected.
#
# It fails on a test expected to pass that did not ("not ok"), on one
# expected to fail that passed (the list is stale: update it), and on a
# test the list lacks. A test the host skips passes the check whatever the
# list says (the skips depend on the host: FUSE, /dev/log), and is named.
# The suite is taken from Debian's source package of bubblewrap at test
# time (scripts/bwrap-suite.sh caches it); when it cannot be fetched the
# check fails and says so. CI=true changes nothing.
#
# usage: scripts/bwrap-suite-check.sh NSRUN
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: $0 NSRUN" >&2; exit 1; }
nsrun="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
[ -x "$nsrun" ] || { echo "bwrap-suite-check: $nsrun is not an executable" >&2; exit 1; }
expected="${NSRUN_BWRAP_EXPECTED:-scripts/bwrap-suite.expected}"

dir="$(mktemp -d /var/tmp/nsrun-bwrap-check.XXXXXX)"
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
# A copy the test user can run, named bwrap (nsrun reads argv[0]).
cp "$nsrun" "$dir/bwrap"
chmod 755 "$dir/bwrap"

user_flag=()
[ "$(id -u)" -ne 0 ] || user_flag=(--user)
rc=0
scripts/bwrap-suite.sh "${user_flag[@]}" "$dir/bwrap" >"$dir/out" 2>"$dir/err" || rc=$?
if [ "$rc" -ne 0 ]; then
	echo "bwrap-suite-check: bubblewrap's suite did not run to its end (exit $rc):" >&2
	tail -n 20 "$dir/err" "$dir/out" >&2
	if grep -qE 'fetch|apt-get|deb-src|source' "$dir/err"; then
		echo "bwrap-suite-check: bubblewrap's source package could not be fetched; the check needs it (apt-get source bubblewrap/trixie)" >&2
	fi
	exit 1
fi

# "N WHO OUTCOME" for each test run, WHO root|user (the caller counts as
# root only when it is), OUTCOME ok|not-ok|skip.
awk '
	/^# BWRAP=.*, as root$/ { who = "root"; next }
	/^# BWRAP=/ { who = "user"; next }
	/^ok [0-9]+ # SKIP/ { print $2, who, "skip"; next }
	/^ok [0-9]+/ { print $2, who, "ok"; next }
	/^not ok [0-9]+/ { print $3, who, "not-ok"; next }
' "$dir/out" >"$dir/got"

fail=0
while read -r n who outcome; do
	want="$(awk -v n="$n" -v w="$who" '$1 == n && $2 == w { print $3 }' "$expected")"
	case "$outcome:$want" in
	*:) echo "bwrap-suite-check: test $n ($who) is not in $expected"; fail=1 ;;
	skip:*) [ "$want" = skip ] || echo "bwrap-suite-check: test $n ($who) skipped on this host (expected $want)" ;;
	ok:ok | not-ok:not-ok) ;;
	not-ok:*) echo "bwrap-suite-check: REGRESSION: test $n ($who) failed, expected $want"; fail=1 ;;
	ok:*) echo "bwrap-suite-check: test $n ($who) passed, expected $want: update $expected"; fail=1 ;;
	esac
done <"$dir/got"
grep -E '^# (root|[a-z-]+): [0-9]+ ok' "$dir/out" || true
if [ "$fail" -ne 0 ]; then
	echo "bwrap-suite-check: the failed tests, with their first failed command:"
	grep -E '^not ok|^#   ' "$dir/out" | sed 's/^/  /'
	exit 1
fi
echo "ok  	bubblewrap's tests/test-run.sh against nsrun as bwrap ($(wc -l <"$dir/got") outcomes as $expected expects)"
