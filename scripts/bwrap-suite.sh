#!/usr/bin/env bash
# Runs bubblewrap's own tests/test-run.sh against a given bwrap binary and
# prints one TAP line per test with the totals.
#
# The suite is not part of this repository: it is taken at run time from
# Debian's source package of bubblewrap in the trixie suite (a deb-src entry
# of its own under /etc/apt/sources.list.d/, added if no such entry exists),
# and kept in a cache directory for later runs. Every file is checked
# against the hashes of the signed index; where the archive serves no .dsc
# (seen here), the checked tarballs are unpacked and Debian's patches applied
# by hand.
#
# Output, per run (as the caller, and with --user as the test user): a header
# naming the suite and the binary, upstream's TAP lines ("ok N NAME",
# "ok N # SKIP WHY", "not ok N NAME" followed by "#   " and the first failed
# command or assertion), the plan "1..N", then "# USER: N ok, N not ok,
# N skipped, N in all". Upstream's test numbers do not depend on the binary.
#
# Upstream's script stops at the first failed command (set -e). To list every
# test, a copy of it is run in which a failed command marks the test that is
# running as failed and the script goes on to the next test; the tests
# themselves are unchanged, but for a bound on one wait that would otherwise
# hang for an hour when --die-with-parent is not honoured.
#
# Exit status: 0 when the suite ran to its end (failed tests included), 1 for
# a usage error, 2 when the harness could not fetch, prepare or finish a run.
# shellcheck disable=SC2016 # single-quoted $(...) are apt's formats and text
set -eu
set -o pipefail

cache="${NSRUN_BWRAP_SUITE_CACHE:-/var/cache/nsrun-bwrap-suite}"
test_user="${NSRUN_TEST_USER:-nsrun-test}"
run_timeout="${NSRUN_BWRAP_SUITE_TIMEOUT:-900}"
suite=trixie
sources_file=/etc/apt/sources.list.d/nsrun-bwrap-suite.sources
# Used by test-run.sh (capsh, getpcaps, findmnt, unshare, mount, python3,
# strace for its fault-injection test) and to unpack the source package.
run_packages=(libcap2-bin python3 strace util-linux mount)
fetch_packages=(dpkg-dev xz-utils patch)
build_packages=(gcc meson ninja-build pkgconf libcap-dev)

usage() {
	cat <<EOF
usage: $0 [--user | --user-only] [--refresh] [--logs DIR] BWRAP
       $0 --build [--user | --user-only] [--refresh] [--logs DIR] [BWRAP]
       $0 --fetch-only [--refresh]

Runs bubblewrap's tests/test-run.sh (Debian $suite source package) against
BWRAP, as the caller; --user runs it again as $test_user (NSRUN_TEST_USER),
--user-only only as that user. --build builds bwrap from the fetched source
(into the cache) and runs the suite against it unless BWRAP is given.
--refresh fetches the source again. --logs DIR keeps each run's output.
Environment: NSRUN_BWRAP_SUITE_CACHE (default $cache),
NSRUN_BWRAP_SUITE_TIMEOUT (seconds per run, default $run_timeout); BWRAP_MUST_WORK
and NSRUN_* variables are passed on to the suite.
EOF
}

die() {
	echo "bwrap-suite: $*" >&2
	exit 2
}

as_root=1 as_user=0 fetch_only=0 refresh=0 build=0 logs="" bwrap=""
while [ $# -gt 0 ]; do
	case "$1" in
	--user) as_user=1 ;;
	--user-only) as_root=0 as_user=1 ;;
	--fetch-only) fetch_only=1 ;;
	--refresh) refresh=1 ;;
	--build) build=1 ;;
	--logs)
		[ $# -ge 2 ] || { usage >&2; exit 1; }
		logs="$2"
		shift
		;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; exit 1 ;;
	*)
		[ -z "$bwrap" ] || { usage >&2; exit 1; }
		bwrap="$1"
		;;
	esac
	shift
done
if [ "$fetch_only" = 0 ] && [ "$build" = 0 ] && [ -z "$bwrap" ]; then
	usage >&2
	exit 1
fi

is_root() { [ "$(id -u)" -eq 0 ]; }

# Installs those of the named Debian packages that are missing.
need_packages() {
	local missing="" p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
			missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	is_root || die "missing packages:$missing (install them as root)"
	echo "# installing:$missing" >&2
	# shellcheck disable=SC2086 # a list of package names
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >&2 ||
		{ apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >&2; } ||
		die "cannot install:$missing"
}

# Prints the field FORMAT of the deb-src index of $suite's main component.
sources_target() {
	apt-get indextargets --no-release-info --format "$1" \
		'Identifier: Sources' "Release: $suite" 'Component: main' | head -n 1
}

# Adds a deb-src entry for $suite unless apt already has one, naming the
# archive that the machine's own Debian entries use.
ensure_source_entry() {
	[ -z "$(sources_target '$(SOURCESENTRY)')" ] || return 0
	local uri
	uri="$(apt-get indextargets --format '$(REPO_URI)' \
		'Identifier: Packages' 'Origin: Debian' 'Label: Debian' 'Component: main' | head -n 1)"
	[ -n "$uri" ] || die "apt has no Debian archive to take the $suite source package from"
	echo "# adding $sources_file (deb-src $suite main)" >&2
	printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"${uri%/}" "$suite" >"$sources_file"
}

# Updates the $suite source index, from its own sources file alone, when it
# is missing or when asked to ($1 = force: the index named files that are
# gone).
ensure_source_index() {
	local entry file base
	entry="$(sources_target '$(SOURCESENTRY)')"
	file="${entry%:*}"
	base="$(sources_target '$(FILENAME)')"
	if [ -z "$file" ] || [ -z "$base" ]; then
		die "no deb-src entry for $suite"
	fi
	if [ "${1:-}" != force ] && [ -n "$(find "$(dirname "$base")" -maxdepth 1 \
		-name "$(basename "$base")*" -print -quit)" ]; then
		return 0
	fi
	echo "# apt-get update for $file" >&2
	apt-get update -q -o Dir::Etc::SourceList="$file" -o Dir::Etc::SourceParts=/nonexistent \
		-o APT::Get::List-Cleanup=0 >&2 || die "apt-get update for $file failed"
}

# Downloads bubblewrap's $suite source package into $1 and checks every file
# against the hashes of the (signed) index; the .dsc may be absent.
download_source() {
	local dir="$1" uris name hash
	uris="$(apt-get source -q --print-uris "bubblewrap/$suite" 2>/dev/null | grep "^'")" || return 1
	(cd "$dir" && apt-get source -q --download-only "bubblewrap/$suite" >&2) ||
		echo "# apt-get source did not fetch every file; checking what it fetched" >&2
	while read -r _ name _ hash; do
		case "$hash" in SHA256:*) ;; *) die "no SHA256 for $name" ;; esac
		if [ ! -f "$dir/$name" ]; then
			case "$name" in *.dsc) continue ;; esac
			echo "# missing $name" >&2
			return 1
		fi
		echo "${hash#SHA256:}  $dir/$name" | sha256sum -c --quiet >&2 || die "checksum mismatch: $name"
	done <<<"$uris"
}

# Unpacks the downloaded package in $1 into the tree $2, with Debian's
# patches applied: through dpkg-source when the .dsc came, else by hand
# from the checked tarballs.
unpack_source() {
	local dl="$1" tree="$2" dsc orig deb p
	dsc="$(find "$dl" -maxdepth 1 -name 'bubblewrap_*.dsc' | head -n 1)"
	if [ -n "$dsc" ]; then
		dpkg-source -q -x "$dsc" "$tree" >&2 && return 0
		rm -rf "$tree"
	fi
	orig="$(find "$dl" -maxdepth 1 -name 'bubblewrap_*.orig.tar.*' | head -n 1)"
	deb="$(find "$dl" -maxdepth 1 -name 'bubblewrap_*.debian.tar.*' | head -n 1)"
	if [ -z "$orig" ] || [ -z "$deb" ]; then
		die "source tarballs missing in $dl"
	fi
	mkdir -p "$tree"
	tar -xf "$orig" -C "$tree" --strip-components=1 --no-same-owner
	tar -xf "$deb" -C "$tree" --no-same-owner
	[ -f "$tree/debian/patches/series" ] || return 0
	while read -r p _; do
		case "$p" in '' | '#'*) continue ;; esac
		patch -s -p1 -d "$tree" --no-backup-if-mismatch <"$tree/debian/patches/$p" || die "patch $p failed"
	done <"$tree/debian/patches/series"
}

# Makes $cache/src the unpacked source tree, fetching it unless it is there.
fetch_suite() {
	if [ "$refresh" = 0 ] && [ -f "$cache/src/.nsrun-complete" ]; then
		return 0
	fi
	is_root || die "$cache/src is missing; run as root to fetch it"
	need_packages "${fetch_packages[@]}"
	ensure_source_entry
	ensure_source_index
	local dl tree
	mkdir -p "$cache"
	rm -rf "$cache"/dl.*
	dl="$(mktemp -d "$cache/dl.XXXXXX")"
	# apt's download user must be able to write there.
	chmod 755 "$dl"
	! id _apt >/dev/null 2>&1 || chown _apt "$dl"
	if ! download_source "$dl"; then
		ensure_source_index force
		rm -f "$dl"/*
		download_source "$dl" || die "cannot download bubblewrap's $suite source package"
	fi
	tree="$cache/src.new"
	rm -rf "$tree"
	unpack_source "$dl" "$tree"
	rm -rf "$dl"
	[ -f "$tree/tests/test-run.sh" ] || die "no tests/test-run.sh in the source package"
	touch "$tree/.nsrun-complete"
	chmod -R a+rX "$tree"
	rm -rf "$cache/src" "$cache/build"
	mv "$tree" "$cache/src"
	chmod 755 "$cache"
	echo "# fetched $(head -n 1 "$cache/src/debian/changelog")" >&2
}

# Builds bwrap from the fetched source into $cache/build (one job: the
# machine is shared).
build_bwrap() {
	[ -x "$cache/build/bwrap" ] && return 0
	is_root || die "$cache/build/bwrap is missing; run as root to build it"
	need_packages "${build_packages[@]}"
	rm -rf "$cache/build"
	meson setup -Dman=disabled -Dselinux=disabled -Dtests=false \
		-Dbash_completion=disabled -Dzsh_completion=disabled \
		"$cache/build" "$cache/src" >&2 || die "meson setup failed"
	ninja -j 1 -C "$cache/build" bwrap >&2 || die "building bwrap failed"
	chmod -R a+rX "$cache/build"
}

# Writes into $1 a copy of the suite that goes on after a failed test.
prepare_runner() {
	local dir="$1" src="$cache/src/tests" at
	cp "$src/libtest.sh" "$src/libtest-core.sh" "$dir/"
	# The line that closes upstream's own test helpers.
	at="$(awk '/^done_testing \(\) \{/ { f = 1 } f && /^}/ { print NR; exit }' "$src/test-run.sh")"
	[ -n "$at" ] || die "test-run.sh has no done_testing () function: the harness needs updating"
	grep -q '^\. \${srcd}/libtest.sh$' "$src/test-run.sh" ||
		die "test-run.sh no longer sources libtest.sh as expected: the harness needs updating"
	[ "$(grep -c '^    \./lockf-n\.py \./lock wait$' "$src/test-run.sh")" = 1 ] ||
		die "test-run.sh's --die-with-parent wait changed: the harness needs updating"
	# The new definitions are sourced on the closing line of upstream's own
	# helpers, so that the line numbers stay upstream's.
	cat >"$dir/nsrun-keep-going.sh" <<'EOF'
# From nsrun's scripts/bwrap-suite.sh: a failed command marks the running
# test as failed (with the first reason) instead of ending the run.
set +e -E
_nsrun_failed=0
_nsrun_why=
trap '_nsrun_failed=1; [ -n "$_nsrun_why" ] || _nsrun_why="${BASH_SOURCE[0]##*/}:$LINENO: ${BASH_COMMAND:0:200}"' ERR
fatal () {
    echo "$@" >&2
    [ -n "$_nsrun_why" ] || _nsrun_why="$*"
    _nsrun_failed=1
    return 1
}
ok () {
    test_count=$((test_count + 1))
    if [ "$_nsrun_failed" = 0 ]; then
        echo "ok $test_count $*"
    else
        echo "not ok $test_count $*"
        echo "#   ${_nsrun_why//$'\n'/ }"
    fi
    _nsrun_failed=0
    _nsrun_why=
}
EOF
	sed -e "${at}s|^}\$|}; . \"\${srcd}/nsrun-keep-going.sh\"|" \
		-e 's|^    \./lockf-n\.py \./lock wait$|    timeout 60 ./lockf-n.py ./lock wait|' \
		"$src/test-run.sh" >"$dir/test-run.sh"
	grep -q '^}; \. "${srcd}/nsrun-keep-going.sh"$' "$dir/test-run.sh" ||
		die "cannot hook into test-run.sh"
	chmod -R a+rX "$dir"
}

status=0

# Runs the suite as user $1 and prints its TAP lines and totals.
run_suite() {
	local user="$1" dir="$work/$1" tap err pid rc=0 line
	mkdir -m 755 "$dir"
	prepare_runner "$dir"
	tap="$dir/$user.tap" err="$dir/$user.log"
	local -a envs=(HOME="$(getent passwd "$user" | cut -d: -f6)" USER="$user" LOGNAME="$user"
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin BWRAP="$bwrap")
	while IFS= read -r line; do
		envs+=("$line")
	done < <(env | grep -E '^(NSRUN_[A-Z0-9_]*|BWRAP_MUST_WORK)=' || true)
	local -a cmd=(env -i "${envs[@]}" bash "$dir/test-run.sh")
	[ "$user" = "$(id -un)" ] || cmd=(runuser -u "$user" -- "${cmd[@]}")
	# timeout leads a process group of its own: what a test leaves behind
	# (a sandbox that outlived its parent) is ended with it.
	(cd / && exec timeout -k 10 "$run_timeout" "${cmd[@]}") >"$tap" 2>"$err" &
	pid=$!
	wait "$pid" || rc=$?
	kill -KILL -- "-$pid" 2>/dev/null || true

	echo "# bubblewrap tests/test-run.sh from $(head -n 1 "$cache/src/debian/changelog" | cut -d' ' -f1,2)"
	echo "# BWRAP=$bwrap ($("$bwrap" --version 2>&1 | head -n 1)), as $user"
	grep -E '^(not )?ok [0-9]+|^#   |^1\.\.[0-9]+' "$tap" || true
	local passed failed skipped total plan
	skipped=$(grep -cE '^ok [0-9]+ # SKIP' "$tap" || true)
	passed=$(($(grep -cE '^ok [0-9]+' "$tap" || true) - skipped))
	failed=$(grep -cE '^not ok [0-9]+' "$tap" || true)
	total=$((passed + failed + skipped))
	plan="$(grep -E '^1\.\.[0-9]+' "$tap" | tail -n 1 | sed 's/^1\.\.\([0-9]*\).*/\1/' || true)"
	echo "# $user: $passed ok, $failed not ok, $skipped skipped, $total in all"
	if [ -z "$plan" ] || { [ "$plan" != "$total" ] && [ "$plan" != 0 ]; }; then
		echo "Bail out! the suite stopped before its end (exit status $rc); its last lines:"
		tail -n 15 "$err" | sed 's/^/#   /'
		status=2
	fi
	if [ -n "$logs" ]; then
		mkdir -p "$logs"
		cp "$tap" "$err" "$logs/"
	fi
}

fetch_suite
[ "$fetch_only" = 0 ] || exit 0
if [ "$build" = 1 ]; then
	build_bwrap
	[ -n "$bwrap" ] || bwrap="$cache/build/bwrap"
fi
need_packages "${run_packages[@]}"
# Kept as given, not resolved: a bwrap that is a link to another program
# reads its name from argv[0].
case "$bwrap" in
/*) ;;
*/*) bwrap="$PWD/$bwrap" ;;
*) bwrap="$(command -v "$bwrap")" || die "no such command in PATH" ;;
esac
[ -x "$bwrap" ] || die "$bwrap is not an executable file"
if [ "$as_user" = 1 ]; then
	is_root || die "--user needs root (to run as $test_user)"
	id "$test_user" >/dev/null 2>&1 || die "no user $test_user"
fi
work="$(mktemp -d /var/tmp/nsrun-bwrap-suite.XXXXXX)"
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
if [ "$as_root" = 1 ]; then
	run_suite "$(id -un)"
fi
[ "$as_user" = 0 ] || run_suite "$test_user"
exit "$status"
