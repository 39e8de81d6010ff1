#!/usr/bin/env bash
# Memory: the peak RSS of the launcher's process tree for a /bin/true run
# (GNU time's maximum, over RUNS runs), and the resident cost of a sandbox
# that sleeps: the proportional set size (PSS) of every process of the
# launcher and its init, the payload left out.
#   RUNS=20 bench/memory.sh
source "$(dirname "$0")/lib.sh"
RUNS="${RUNS:-20}"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

peak_kib() {
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f %M -o "$out/rss" "$@" >/dev/null
		cat "$out/rss"
	done | median
}

# pss_kib PID: the PSS of PID and its descendants other than the payload
# (a process running /bin/sleep), in KiB.
pss_kib() {
	local total=0 p kids
	for p in "$@"; do
		if [ "$(readlink "/proc/$p/exe")" != "$(readlink -f /bin/sleep)" ]; then
			total=$((total + $(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup")))
		fi
		kids=$(cat /proc/"$p"/task/*/children 2>/dev/null || true)
		[ -z "$kids" ] || total=$((total + $(pss_kib $kids)))
	done
	echo "$total"
}

idle_kib() {
	for _ in $(seq 5); do
		"$@" /bin/sleep 30 &
		local pid=$!
		sleep 0.5
		pss_kib "$pid"
		kill "$pid"
		wait "$pid" 2>/dev/null || true
	done | median
}

echo "## Memory (as $(id -un))"
echo
echo "| launcher | peak RSS of a /bin/true run, KiB (median of $RUNS) | PSS of launcher + init around a sleeping payload, KiB (median of 5) |"
echo "|---|---|---|"
echo "| bwrap | $(peak_kib bwrap "${bwrap_args[@]}" /bin/true) | $(idle_kib bwrap "${bwrap_args[@]}") |"
echo "| nsrun | $(peak_kib "$nsrun" --rw "$ws" -- /bin/true) | $(idle_kib "$nsrun" --rw "$ws" --) |"
echo
echo "GNU time reports the largest RSS of any process in the tree (for nsrun, the parent or its init)."
