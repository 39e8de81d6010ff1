#!/usr/bin/env bash
# Installs what building and testing nsrun needs on a Debian machine, and
# the unprivileged user the integration tests run as. Safe to run again.
set -euo pipefail

TEST_USER="${NSRUN_TEST_USER:-nsrun-test}"
need=()
command -v gcc >/dev/null || need+=(gcc)
command -v git >/dev/null || need+=(git)
command -v tmux >/dev/null || need+=(tmux)
# Full-screen programs and multiplexers for the terminal tests.
[ -x /usr/bin/vim ] || need+=(vim)
[ -x /usr/bin/less ] || need+=(less)
[ -x /usr/bin/screen ] || need+=(screen)
[ -x /usr/bin/python3 ] || need+=(python3)
[ -x /usr/bin/curl ] || need+=(curl)
# The filesystem tests: an ssh agent and client, a FUSE filesystem.
command -v ssh-agent >/dev/null || need+=(openssh-client)
command -v fuse-overlayfs >/dev/null || need+=(fuse-overlayfs)
command -v runuser >/dev/null || need+=(util-linux)
# libseccomp is the seccomp tests' reference; nsrun itself links no C.
[ -e /usr/include/seccomp.h ] || need+=(libseccomp-dev)
command -v go >/dev/null || [ -x /usr/local/go/bin/go ] || need+=(golang-go)

if [ "${#need[@]}" -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing ${need[*]}; run as root (or install them) first" >&2
		exit 1
	fi
	echo "setup: installing ${need[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ "$(id -u)" -eq 0 ] && ! id "$TEST_USER" >/dev/null 2>&1; then
	echo "setup: creating the unprivileged test user $TEST_USER"
	useradd --create-home --shell /bin/bash "$TEST_USER"
fi
