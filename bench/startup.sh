#!/usr/bin/env bash
# Startup of nsrun next to bubblewrap and /bin/true, interleaved in one
# hyperfine run, medians and ratios printed as a markdown table.
#   RUNS=300 bench/startup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
RUNS="${RUNS:-300}"
need=()
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v bwrap >/dev/null || need+=(bubblewrap)
if [ "${#need[@]}" -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || { echo "bench: install ${need[*]} first" >&2; exit 1; }
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
make -s build
out="$(mktemp -d /var/tmp/nsrun-bench.XXXXXX)"
trap 'rm -rf "$out"' EXIT
ws="$out/ws"
mkdir "$ws"
nsrun="$PWD/bin/nsrun"
bwrap_cmd="bwrap --unshare-all --die-with-parent --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind $ws $ws /bin/true"

echo "# startup, $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%d), as $(id -un), $RUNS runs each"
echo
hyperfine -N --warmup 30 --runs "$RUNS" --style none --export-json "$out/startup.json" \
	-n true "/bin/true" \
	-n bwrap "$bwrap_cmd" \
	-n nsrun "$nsrun --rw $ws -- /bin/true" \
	-n "nsrun --landlock off" "$nsrun --landlock off --rw $ws -- /bin/true" \
	-n "nsrun --net host" "$nsrun --net host --rw $ws -- /bin/true" \
	-n "nsrun --isolation landlock" "$nsrun --isolation landlock --rw $ws -- /bin/true" >/dev/null
go run ./bench/report -baseline bwrap "$out/startup.json"
echo
echo "bwrap: $bwrap_cmd"
echo "nsrun: $nsrun --rw $ws -- /bin/true"
