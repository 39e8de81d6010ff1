#!/usr/bin/env bash
# Throughput and launches from a Go program: LAUNCHES runs of /bin/true,
# 2 × CPUs at a time, from the CLI (xargs) and from bench/launch (the nsrun
# package, or os/exec starting bwrap); and one launch at a time from that
# program. Medians of ROUNDS interleaved rounds.
#   LAUNCHES=500 ROUNDS=3 bench/throughput.sh
source "$(dirname "$0")/lib.sh"
LAUNCHES="${LAUNCHES:-500}"
ROUNDS="${ROUNDS:-3}"
par=$((2 * $(nproc)))
go build -o "$out/launch" ./bench/launch

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# cli_rate CMD...: launches per second of LAUNCHES runs of CMD, par at a time.
cli_rate() {
	local t0 t1
	t0=$(date +%s.%N)
	seq "$LAUNCHES" | xargs -P "$par" -I{} "$@" >/dev/null
	t1=$(date +%s.%N)
	echo "$LAUNCHES / ($t1 - $t0)" | bc -l
}
field() { sed -E "s/.*\"$1\":([0-9.]+).*/\1/"; }

for r in $(seq "$ROUNDS"); do
	cli_rate bwrap "${bwrap_args[@]}" /bin/true >>"$out/cli.bwrap"
	cli_rate "$nsrun" --rw "$ws" -- /bin/true >>"$out/cli.nsrun"
	for who in bwrap nsrun; do
		flag=""
		[ "$who" = nsrun ] || flag=-bwrap
		"$out/launch" -ws "$ws" -n "$LAUNCHES" -p "$par" $flag >>"$out/par.$who"
		[ "$par" -eq 4 ] || "$out/launch" -ws "$ws" -n "$LAUNCHES" -p 4 $flag >>"$out/par4.$who"
		"$out/launch" -ws "$ws" -n 200 -p 1 $flag >>"$out/seq.$who"
		"$out/launch" -ws "$ws" -n 50 -p 1 -heap 512 $flag >>"$out/heap.$who"
	done
done
row() { # row LABEL FILE-SUFFIX FIELD
	local b n
	b=$(field "$3" <"$out/$2.bwrap" | median)
	n=$(field "$3" <"$out/$2.nsrun" | median)
	printf '| %s | %.2f | %.2f | %.2f |\n' "$1" "$b" "$n" "$(echo "$n / $b" | bc -l)"
}
echo "## Throughput and the library ($LAUNCHES launches, $par at a time; medians of $ROUNDS rounds)"
echo
echo "| measure | bwrap | nsrun | nsrun / bwrap |"
echo "|---|---|---|---|"
printf '| CLI launches/s (xargs -P %d) | %.1f | %.1f | %.2f |\n' "$par" "$(median <"$out/cli.bwrap")" "$(median <"$out/cli.nsrun")" \
	"$(echo "$(median <"$out/cli.nsrun") / $(median <"$out/cli.bwrap")" | bc -l)"
row "library launches/s, $par at a time" par launches_per_s
[ "$par" -eq 4 ] || row "library launches/s, 4 at a time" par4 launches_per_s
row "library wall ms, one at a time (median of 200)" seq median_ms
row "the same from a program holding 512 MiB of heap (median of 50)" heap median_ms
echo
echo "Library: \`bench/launch\`, a Go program that calls \`nsrun.Command(...).Run()\` and reads the report's usage (CPU, peak memory, wall: always counted), or starts bwrap with os/exec. CPU per launch: see the cgroup-accounted table (rusage misses bwrap's sandbox). With a large heap, nsrun's fork copies the program's page tables (Go forks without vfork when the child gets a new user namespace); os/exec starting bwrap vforks."
