#!/usr/bin/env bash
# Startup of nsrun next to bubblewrap, a bare Go re-exec into the same
# namespaces (the floor) and no-op C and Go programs, interleaved run by run
# (bench/sidebyside): wall and CPU medians, the CPU of every process counted
# by the kernel (cgroup accounting, as root) and as rusage sees it.
#   RUNS=60 bench/startup.sh
source "$(dirname "$0")/lib.sh"
RUNS="${RUNS:-60}"
WARMUP="${WARMUP:-3}"

CGO_ENABLED=0 go build -o "$out/floor" ./bench/floor
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out/noop-go" ./bench/noop
go build -o "$out/sidebyside" ./bench/sidebyside
rows=()
if gcc -O2 -static -o "$out/noop-c" bench/noop.c 2>/dev/null; then
	rows+=("no-op C (static)=$out/noop-c")
fi
rows+=("no-op Go=$out/noop-go")
# The raw init (internal/rawinit, the default) builds no overlay, and a
# version manager's shims in HOME get one (and so the Go init): the rows
# of each init run without.
mkdir "$out/home"
noshims="HOME=$out/home PYENV_ROOT= RBENV_ROOT= NODENV_ROOT="

# The agent preset runs in a git repository of its own, its HOME in $out.
mkdir "$out/repo" && git -C "$out/repo" init -q && cd "$out/repo"
export XDG_STATE_HOME="$out/state"

echo "## Startup ($RUNS runs each, interleaved, as $(id -un))"
echo
"$out/sidebyside" -runs "$RUNS" -warmup "$WARMUP" -baseline bwrap -json "$out/startup.json" \
	"${rows[@]}" \
	"bwrap=$bwrap_cmd /bin/true" \
	"nsrun=$nsrun --rw $ws -- /bin/true" \
	"nsrun, HOME without shims=$noshims $nsrun --rw $ws -- /bin/true" \
	"nsrun, HOME without shims, the Go init=$noshims NSRUN_INIT=go $nsrun --rw $ws -- /bin/true" \
	"nsrun, HOME without shims, shared memory=$noshims NSRUN_SHARE_MEMORY=1 $nsrun --rw $ws -- /bin/true" \
	"nsrun --isolation landlock=$nsrun --isolation landlock --rw $ws -- /bin/true" \
	"nsrun --preset agent, in a repository=$nsrun --preset agent -- /bin/true" \
	"nsrun --preset agent, in a repository, HOME without shims=$noshims $nsrun --preset agent -- /bin/true" \
	"nsrun --preset agent, the same, the Go init=$noshims NSRUN_INIT=go $nsrun --preset agent -- /bin/true" \
	"floor: a bare Go re-exec=$out/floor /bin/true"
cd - >/dev/null
echo
echo "Each round runs every command once, in an order that rotates between rounds. CPU: every process of the run, counted by cgroup accounting where the bench runs as root (rusage, which hyperfine reports, leaves out bwrap's sandbox); the runner's own share of a run (starting and waiting for the command) is in every row, as the no-op rows show. bwrap: \`bwrap ${bwrap_args[*]} /bin/true\`; nsrun: \`nsrun --rw WS -- /bin/true\` (WS a directory under /var/tmp). HOME without shims: the same with an empty HOME and no version manager's root, so that the plan has no overlay and gets the raw init (\`internal/rawinit\`, the default where it supports the plan, \`--preset agent\` included; the rows with shims get the Go init, \`--isolation landlock\` the Landlock-only stage, which starts its payload through the raw child); the Go init: that with \`NSRUN_INIT=go\` (the init re-executed as nsrun-init); shared memory: \`NSRUN_SHARE_MEMORY=1\` (the raw init cloned with CLONE_VM, sharing nsrun's memory). floor: \`bench/floor\`, the least a launcher of nsrun's design does (a Go program re-executing itself into the same seven namespaces, mounting /proc and a /tmp, executing the command; no rules, Landlock, seccomp or capability drop)."
