#!/usr/bin/env bash
# Makes the podman image nsrun-base, which Dockerfile.test builds on: from a
# registry's debian:12 when one answers, else from a debootstrap tree of
# Debian bookworm (minbase plus what the suite runs), whose tarball is kept
# under /var/cache/nsrun so later runs need no network. Safe to run again.
set -euo pipefail

IMAGE=localhost/nsrun-base:bookworm
CACHE=/var/cache/nsrun
TARBALL="$CACHE/bookworm-base.tar"
# What the integration suite runs inside the image, and gcc to build its
# static test program.
PACKAGES=bash,coreutils,python3,git,tmux,curl,ca-certificates,gcc,libc6-dev,procps,passwd,util-linux

if podman image exists "$IMAGE"; then
	exit 0
fi
if [ ! -s "$TARBALL" ] && [ -z "${NSRUN_BASE_DEBOOTSTRAP:-}" ] &&
	timeout 60 podman pull -q docker.io/library/debian:12 >/dev/null 2>&1; then
	echo "container-base: $IMAGE from debian:12"
	podman tag docker.io/library/debian:12 "$IMAGE"
	exit 0
fi
if [ ! -s "$TARBALL" ]; then
	command -v debootstrap >/dev/null || {
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
	}
	# The mirror this host's apt uses.
	mirror="$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)"
	[ -n "$mirror" ] || mirror="$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null)"
	[ -n "$mirror" ] || { echo "container-base: no Debian mirror in this host's apt sources" >&2; exit 1; }
	tree="$(mktemp -d /var/tmp/nsrun-base.XXXXXX)"
	trap 'rm -rf "$tree"' EXIT
	echo "container-base: debootstrap bookworm from $mirror (once; cached in $TARBALL)"
	debootstrap --variant=minbase --include="$PACKAGES" bookworm "$tree" "$mirror" >"$tree.log" 2>&1 ||
		{ tail -20 "$tree.log" >&2; rm -f "$tree.log"; exit 1; }
	rm -f "$tree.log"
	rm -rf "$tree"/var/cache/apt/archives/*.deb "$tree"/var/lib/apt/lists/*
	mkdir -p "$CACHE"
	tar -C "$tree" -cf "$TARBALL.tmp" .
	mv "$TARBALL.tmp" "$TARBALL"
fi
echo "container-base: importing $TARBALL"
podman import -q "$TARBALL" "$IMAGE" >/dev/null
