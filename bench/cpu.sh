#!/usr/bin/env bash
# CPU per launch of /bin/true, from the CLI and from a Go program, counted
# by the kernel for every process of the run (a cpuacct or cgroup v2 cpu.stat total): hyperfine's CPU column
# only sees processes its child waits for, which leaves out bwrap's
# sandbox. Needs root (a cgroup to run in); prints nothing otherwise.
#   N=200 bench/cpu.sh
source "$(dirname "$0")/lib.sh"
N="${N:-200}"
[ "$(id -u)" -eq 0 ] || { echo "(cpu.sh: needs root for a cgroup; skipped)"; exit 0; }
# usage DIR: the nanoseconds of CPU the cgroup DIR has used.
if [ -f /sys/fs/cgroup/cpuacct/cpuacct.usage ]; then
	base=/sys/fs/cgroup/cpuacct
	usage() { cat "$1/cpuacct.usage"; }
else
	base="$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)"
	usage() { awk '$1 == "usage_usec" {print $2 * 1000}' "$1/cpu.stat"; }
fi
# cpu_ms NAME RUNS PER CMD...: CPU ms per launch of RUNS runs of CMD, each
# making PER launches.
cpu_ms() {
	local cg="$base/nsrun-bench-$1-$$" runs=$2 per=$3
	shift 3
	mkdir "$cg"
	sh -c 'echo $$ >"$1/cgroup.procs"; shift; n=$1; shift; i=0; while [ $i -lt $n ]; do "$@" >/dev/null || exit 1; i=$((i+1)); done' sh "$cg" "$runs" "$@"
	echo "$(usage "$cg") / $runs / $per / 1000000" | bc -l
	rmdir "$cg"
}
go build -o "$out/launch" ./bench/launch
t=$(cpu_ms true "$N" 1 /bin/true)
b=$(cpu_ms bwrap "$N" 1 bwrap "${bwrap_args[@]}" /bin/true)
n=$(cpu_ms nsrun "$N" 1 "$nsrun" --rw "$ws" -- /bin/true)
lb=$(cpu_ms lib-bwrap 1 "$N" "$out/launch" -ws "$ws" -n "$N" -bwrap)
ln=$(cpu_ms lib-nsrun 1 "$N" "$out/launch" -ws "$ws" -n "$N")
echo "## CPU per launch, every process counted ($N launches each, cgroup accounting)"
echo
echo "| command | CPU ms per launch | / bwrap |"
echo "|---|---|---|"
printf '| /bin/true | %.2f | %.2f |\n' "$t" "$(echo "$t / $b" | bc -l)"
printf '| bwrap | %.2f | 1.00 |\n' "$b"
printf '| nsrun --rw WS | %.2f | %.2f |\n' "$n" "$(echo "$n / $b" | bc -l)"
printf '| library: bwrap from a Go program | %.2f | 1.00 |\n' "$lb"
printf '| library: nsrun.Command(...).Run() | %.2f | %.2f |\n' "$ln" "$(echo "$ln / $lb" | bc -l)"
echo
echo "CLI rows: the sh loop that launches them is counted too (the /bin/true row shows its share). Library rows: bench/launch, one launch at a time, the program's own start spread over $N launches; ratio to the bwrap library row."
