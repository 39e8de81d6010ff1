# Sourced by the bench scripts: installs what they need, builds nsrun, and
# gives them a scratch directory ($out, removed on exit), a workspace ($ws),
# the binary ($nsrun) and bwrap's equivalent of `nsrun --rw $ws`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
need=()
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v bwrap >/dev/null || need+=(bubblewrap)
[ -x /usr/bin/time ] || need+=(time)
command -v bc >/dev/null || need+=(bc)
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
bwrap_args=(--unshare-all --die-with-parent --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind "$ws" "$ws")
bwrap_cmd="bwrap ${bwrap_args[*]}"
