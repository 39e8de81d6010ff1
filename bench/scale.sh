#!/usr/bin/env bash
# Scale in rules: 10, 100 and 1,000 read-only directories inside a writable
# workspace (so each is a real bind for both tools), wall medians.
#   RUNS=10 bench/scale.sh
source "$(dirname "$0")/lib.sh"
RUNS="${RUNS:-10}"

args=()
for n in 10 100 1000; do
	ro=() robind=()
	for i in $(seq "$n"); do
		mkdir -p "$ws/r$n/d$i"
		ro+=(--ro "$ws/r$n/d$i")
		robind+=(--ro-bind "$ws/r$n/d$i" "$ws/r$n/d$i")
	done
	args+=(-n "bwrap, $n" "$bwrap_cmd ${robind[*]} /bin/true")
	args+=(-n "nsrun, $n" "$nsrun --rw $ws ${ro[*]} -- /bin/true")
done
# The worst case for pinning: each rule in a directory of its own, which
# nsrun pins (binds onto itself) so the payload cannot rename it away.
ro=() robind=()
for i in $(seq 1000); do
	mkdir -p "$ws/p/r$i/.git"
	ro+=(--ro "$ws/p/r$i/.git")
	robind+=(--ro-bind "$ws/p/r$i/.git" "$ws/p/r$i/.git")
done
args+=(-n "bwrap, 1000 two levels down" "$bwrap_cmd ${robind[*]} /bin/true")
args+=(-n "nsrun, 1000 two levels down (1,001 pins)" "$nsrun --rw $ws ${ro[*]} -- /bin/true")
# The same 1,000 rules on the reference init (env's own start included).
ro=()
for i in $(seq 1000); do ro+=(--ro "$ws/r1000/d$i"); done
args+=(-n "nsrun, 1000, the Go init" "env NSRUN_INIT=go $nsrun --rw $ws ${ro[*]} -- /bin/true")
echo "## Scale in rules ($RUNS runs each)"
echo
# An empty HOME and no version manager's root: no overlay in the plan, so
# nsrun builds it with its default init (the raw one), as for most users.
mkdir "$out/home"
HOME="$out/home" PYENV_ROOT='' RBENV_ROOT='' NODENV_ROOT='' \
	hyperfine -N --warmup 3 --runs "$RUNS" --style none --export-json "$out/scale.json" "${args[@]}" >/dev/null
go run ./bench/report -baseline "nsrun, 10" "$out/scale.json"
echo
echo "Each row: N \`--ro WS/rN/dI\` under \`--rw WS\` (bwrap: N \`--ro-bind\` under \`--bind WS WS\`); ratios to nsrun with 10. nsrun runs with an empty HOME (no overlay in the plan: its default init, the raw one); \"the Go init\": \`NSRUN_INIT=go\`, started through env. \"Two levels down\": \`--ro WS/p/rI/.git\`, so nsrun also pins WS/p and each WS/p/rI (a rule one level down needs no pin)."
