#!/usr/bin/env bash
# A command in a running session (`nsrun exec`) next to a one-shot launch
# and bubblewrap, interleaved run by run (bench/sidebyside): wall and CPU
# medians. An exec's command runs in the session's process tree, which the
# runner's cgroup accounting does not see: the exec row's CPU is the
# client's and the holder's share is left out; its wall is the whole round
# trip (client start, control socket, the init's fork and exec, exit).
#   RUNS=60 bench/session.sh
source "$(dirname "$0")/lib.sh"
RUNS="${RUNS:-60}"
WARMUP="${WARMUP:-3}"

CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out/noop-go" ./bench/noop
go build -o "$out/sidebyside" ./bench/sidebyside
export XDG_RUNTIME_DIR="$out/run"
mkdir -m 700 "$XDG_RUNTIME_DIR"
"$nsrun" session start --rw "$ws" bench >/dev/null
trap '"$nsrun" session stop bench; rm -rf "$out"' EXIT

echo "## A command in a session ($RUNS runs each, interleaved, as $(id -un))"
echo
"$out/sidebyside" -runs "$RUNS" -warmup "$WARMUP" -baseline bwrap -json "$out/session.json" \
	"no-op Go=$out/noop-go" \
	"bwrap=$bwrap_cmd /bin/true" \
	"nsrun, one-shot=$nsrun --rw $ws -- /bin/true" \
	"nsrun exec, into a running session=$nsrun exec bench -- /bin/true"
echo
echo "bwrap: \`bwrap ${bwrap_args[*]} /bin/true\`; one-shot: \`nsrun --rw WS -- /bin/true\`; exec: \`nsrun exec bench -- /bin/true\` into \`nsrun session start --rw WS bench\`. The no-op Go row is the start of a Go program, which the exec client is."
