#!/usr/bin/env bash
# Issue 27's two tables from one interleaved run (bench/sidebyside): the
# CLI (bubblewrap, nsrun with each init, the floor, no-op C and Go) and the
# library (a Go program starting sandboxes through nsrun.Command, one at a
# time and 4 at a time, against the same program exec'ing bwrap), every row
# measured in the same rounds, so that a busy machine slows them alike.
#   RUNS=20 bench/issue27.sh
source "$(dirname "$0")/lib.sh"
RUNS="${RUNS:-20}"
WARMUP="${WARMUP:-2}"
N="${N:-10}" # launches per library run, one at a time (2N at 4 at a time)

CGO_ENABLED=0 go build -o "$out/floor" ./bench/floor
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out/noop-go" ./bench/noop
CGO_ENABLED=0 go build -o "$out/launch" ./bench/launch
go build -o "$out/sidebyside" ./bench/sidebyside
rows=()
if gcc -O2 -static -o "$out/noop-c" bench/noop.c 2>/dev/null; then
	rows+=("no-op C (static)=$out/noop-c")
fi
# The raw init builds no overlay, and a version manager's shims in HOME get
# one: every nsrun row runs without, so that each init builds its plans.
mkdir "$out/home"
noshims="HOME=$out/home PYENV_ROOT= RBENV_ROOT= NODENV_ROOT="
go="$noshims NSRUN_INIT=go"
raw="$noshims NSRUN_INIT=raw"
vm="$raw NSRUN_SHARE_MEMORY=1"
lib="$out/launch -ws $ws"
n4=$((2 * N))
# The library as a user without privileges (the test user scripts/setup.sh
# makes), where there is one: setpriv's start is shared by a run's launches.
user=()
if [ "$(id -u)" -eq 0 ] && id nsrun-test >/dev/null 2>&1; then
	chmod 0755 "$out"
	mkdir "$out/userws"
	chown nsrun-test: "$out/userws"
	as="setpriv --reuid=nsrun-test --regid=nsrun-test --init-groups"
	ulib="$out/launch -ws $out/userws"
	user=(
		"library, per launch, as nsrun-test::bwrap @$N=$as $ulib -bwrap -n $N"
		"library, per launch, as nsrun-test::nsrun, raw init @$N=$raw $as $ulib -n $N"
		"library, per launch, as nsrun-test::nsrun, raw init, shared memory @$N=$raw $as $ulib -share-memory -n $N"
	)
fi

echo "## Issue 27: the CLI and the library ($RUNS interleaved runs each, as $(id -un); load before: $(cut -d' ' -f1-3 /proc/loadavg))"
echo
"$out/sidebyside" -runs "$RUNS" -warmup "$WARMUP" -baseline bwrap -json "$out/issue27.json" \
	"${rows[@]}" \
	"no-op Go=$out/noop-go" \
	"bwrap=$bwrap_cmd /bin/true" \
	"nsrun, Go init=$go $nsrun --rw $ws -- /bin/true" \
	"nsrun, raw init=$raw $nsrun --rw $ws -- /bin/true" \
	"nsrun, raw init, shared memory=$vm $nsrun --rw $ws -- /bin/true" \
	"nsrun --isolation landlock=$noshims $nsrun --isolation landlock --rw $ws -- /bin/true" \
	"nsrun --isolation landlock, Go child=$go $nsrun --isolation landlock --rw $ws -- /bin/true" \
	"floor: a bare Go re-exec=$out/floor /bin/true" \
	"library, per launch::bwrap @$N=$lib -bwrap -n $N" \
	"library, per launch::nsrun, Go init @$N=$go $lib -n $N" \
	"library, per launch::nsrun, raw init @$N=$raw $lib -n $N" \
	"library, per launch::nsrun, raw init, shared memory @$N=$raw $lib -share-memory -n $N" \
	"library, 4 at a time, per launch::bwrap @$n4=$lib -bwrap -p 4 -n $n4" \
	"library, 4 at a time, per launch::nsrun, Go init @$n4=$go $lib -p 4 -n $n4" \
	"library, 4 at a time, per launch::nsrun, raw init @$n4=$raw $lib -p 4 -n $n4" \
	"library, 4 at a time, per launch::nsrun, raw init, shared memory @$n4=$raw $lib -share-memory -p 4 -n $n4" \
	"${user[@]}"
echo
echo "Load after: $(cut -d' ' -f1-3 /proc/loadavg). Each round runs every command once, in an order that rotates between rounds; CPU is every process of the run (cgroup accounting as root). bwrap: \`bwrap ${bwrap_args[*]} /bin/true\`; nsrun: \`nsrun --rw WS -- /bin/true\`, with an empty HOME and no version manager's root (no overlay in the plan), the init chosen with NSRUN_INIT (go: the reference, re-executed as nsrun-init; raw: internal/rawinit) and NSRUN_SHARE_MEMORY=1 (the raw init cloned with CLONE_VM, sharing nsrun's memory; the library's Cmd.ShareMemory, \`-share-memory\`). The library rows: \`bench/launch\` (a Go program starting /bin/true through nsrun.Command with the workspace writable, or exec'ing the bwrap command above), each run $N launches one at a time or $n4 four at a time, divided per launch (the program's own start included); at 4 at a time the wall per launch is the run's wall over its launches (the inverse of the throughput); \`as nsrun-test\`: the same program started through \`setpriv\` as a user without privileges, with a workspace of its own."
