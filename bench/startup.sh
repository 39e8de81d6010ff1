#!/usr/bin/env bash
# Startup of nsrun next to bubblewrap and /bin/true, interleaved in one
# hyperfine run, medians and ratios printed as a markdown table.
#   RUNS=300 bench/startup.sh
source "$(dirname "$0")/lib.sh"
RUNS="${RUNS:-300}"

CGO_ENABLED=0 go build -o "$out/floor" ./bench/floor

# The agent preset runs in a git repository of its own, its HOME in $out.
mkdir "$out/repo" && git -C "$out/repo" init -q && cd "$out/repo"
export XDG_STATE_HOME="$out/state"

echo "## Startup ($RUNS runs each, as $(id -un))"
echo
hyperfine -N --warmup 30 --runs "$RUNS" --style none --export-json "$out/startup.json" \
	-n true "/bin/true" \
	-n bwrap "$bwrap_cmd /bin/true" \
	-n nsrun "$nsrun --rw $ws -- /bin/true" \
	-n "nsrun --landlock off --seccomp off" "$nsrun --landlock off --seccomp off --rw $ws -- /bin/true" \
	-n "nsrun --net host" "$nsrun --net host --rw $ws -- /bin/true" \
	-n "nsrun --isolation landlock" "$nsrun --isolation landlock --rw $ws -- /bin/true" \
	-n "nsrun --preset agent, in a repository" "$nsrun --preset agent -- /bin/true" \
	-n "floor: a bare Go re-exec" "$out/floor /bin/true" >/dev/null
cd - >/dev/null
go run ./bench/report -baseline bwrap "$out/startup.json"
echo
echo "bwrap: \`bwrap ${bwrap_args[*]} /bin/true\`; nsrun: \`nsrun --rw WS -- /bin/true\` (WS a directory under /var/tmp). floor: \`bench/floor\`, the least a launcher of nsrun's design does (a Go program re-executing itself into the same seven namespaces, mounting /proc and a /tmp, executing the command; no rules, Landlock, seccomp or capability drop)."
