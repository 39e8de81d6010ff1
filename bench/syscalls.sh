#!/usr/bin/env bash
# The cost of the seccomp filter and Landlock on a syscall-heavy workload:
# N getppid calls unsandboxed, in nsrun with every layer, and with the
# layers off, interleaved; medians and ratios.
#   N=5000000 RUNS=15 bench/syscalls.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
N="${N:-5000000}"
RUNS="${RUNS:-15}"
command -v hyperfine >/dev/null || { echo "bench: install hyperfine first (make bench does)" >&2; exit 1; }
make -s build
out="$(mktemp -d /var/tmp/nsrun-bench.XXXXXX)"
trap 'rm -rf "$out"' EXIT
gcc -O2 -static -o "$out/getppid" bench/getppid.c
nsrun="$PWD/bin/nsrun"

echo "# $N getppid calls, $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%d), $RUNS runs each"
echo
hyperfine -N --warmup 2 --runs "$RUNS" --style none --export-json "$out/syscalls.json" \
	-n bare "$out/getppid $N" \
	-n "nsrun (all layers)" "$nsrun --ro $out -- $out/getppid $N" \
	-n "nsrun --seccomp off" "$nsrun --seccomp off --ro $out -- $out/getppid $N" \
	-n "nsrun --seccomp off --landlock off" "$nsrun --seccomp off --landlock off --ro $out -- $out/getppid $N" >/dev/null
go run ./bench/report -baseline "nsrun --seccomp off --landlock off" "$out/syscalls.json"
