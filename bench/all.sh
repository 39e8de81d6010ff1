#!/usr/bin/env bash
# Every benchmark, printed and written to docs/BENCHMARKS.md above its
# "kept by bench/all.sh" line, below which the page is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
doc=docs/BENCHMARKS.md
mkdir -p docs
tables="$(mktemp)"
trap 'rm -f "$tables"' EXIT
{
	echo "# Benchmarks"
	echo
	echo "nsrun $(git describe --always --dirty 2>/dev/null || echo '?') on $(uname -sr), $(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), $(date -u +%Y-%m-%d), by \`make bench\`. Medians; the machine is shared, so figures move by ±20% between runs."
	echo
	for b in startup issue27 cpu memory scale throughput syscalls tty network files session; do
		bench/$b.sh
		echo
	done
} | tee "$tables"
marker="<!-- kept by bench/all.sh: everything below -->"
{
	cat "$tables"
	echo "$marker"
	[ ! -f "$doc" ] || awk -v m="$marker" 'kept {print} $0 == m {kept = 1}' "$doc"
} >"$doc.new"
mv "$doc.new" "$doc"
echo "written to $doc"
