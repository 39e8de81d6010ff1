#!/usr/bin/env bash
# The filtered network's cost, side by side: curl downloading SIZE MiB over
# the host's loopback as fast as it goes (CPU-bound: through nsrun the
# bytes cross two TCP connections instead of one) and PACED MiB at 1 Gbit/s
# (a fast internet link), and BURST requests at once (curl --parallel);
# from the host itself (direct), from bubblewrap sharing the host's
# network, and from nsrun --allow-host through its proxy and straight to
# the name (transparent). Each sandboxed run includes its sandbox's start
# (~10 ms). Medians of RUNS.
#   SIZE=1024 PACED=128 BURST=200 RUNS=10 bench/network.sh
source "$(dirname "$0")/lib.sh"
SIZE="${SIZE:-1024}"
PACED="${PACED:-128}"
BURST="${BURST:-200}"
RUNS="${RUNS:-10}"
go build -o "$out/netserve" ./bench/netserve
"$out/netserve" >"$out/port" &
srv=$!
trap 'kill $srv; rm -rf "$out"' EXIT
for _ in $(seq 50); do [ -s "$out/port" ] && break; sleep 0.1; done
port="$(cat "$out/port")"
big="http://big.test:$port/bytes?n=$((SIZE << 20))"
paced="http://big.test:$port/bytes?n=$((PACED << 20))&rate=125000000"
resolve="--resolve big.test:$port:127.0.0.1"
filtered="--add-host big.test=127.0.0.1 --allow-host big.test:$port --allow-private-hosts"
for i in $(seq "$BURST"); do
	echo "url = \"http://big.test:$port/bytes?n=4096&i=$i\""
	echo "output = /dev/null"
done >"$out/burst.conf"
chmod -R a+rX "$out"
# --parallel-immediate: every connection at once, as npm's and pip's
# clients open them (curl otherwise waits to multiplex on one to the proxy).
burst="curl -sS -f -Z --parallel-immediate --parallel-max $BURST -K $out/burst.conf"

measure() { # measure NAME CMD...: hyperfine, the median in ms
	hyperfine -N -w 2 -r "$RUNS" --export-json "$out/$1.json" "${@:2}" >/dev/null
}
measure bulk \
	"curl -sS -f -o /dev/null $resolve $big" \
	"$bwrap_cmd --share-net curl -sS -f -o /dev/null $resolve $big" \
	"$nsrun $filtered -- curl -sS -f -o /dev/null $big" \
	"$nsrun $filtered -- curl -sS -f -o /dev/null --noproxy * $big"
measure paced \
	"curl -sS -f -o /dev/null $resolve $paced" \
	"$bwrap_cmd --share-net curl -sS -f -o /dev/null $resolve $paced" \
	"$nsrun $filtered -- curl -sS -f -o /dev/null $paced" \
	"$nsrun $filtered -- curl -sS -f -o /dev/null --noproxy * $paced"
measure burst \
	"$burst $resolve" \
	"$bwrap_cmd --share-net $burst $resolve" \
	"$nsrun $filtered -- $burst" \
	"$nsrun $filtered -- $burst --noproxy *"
medians() { python3 -c "import json,sys; print(' '.join('%.1f' % (r['median'] * 1000) for r in json.load(open(sys.argv[1]))['results']))" "$1"; }
read -r -a b <<<"$(medians "$out/bulk.json")"
read -r -a pc <<<"$(medians "$out/paced.json")"
read -r -a u <<<"$(medians "$out/burst.json")"
echo "## Network ($SIZE MiB over loopback, $PACED MiB at 1 Gbit/s, $BURST requests at once; medians of $RUNS)"
echo
echo "| | direct | bwrap --share-net | nsrun --allow-host, proxy | nsrun --allow-host, straight to the name |"
echo "|---|---|---|---|---|"
row() { printf '| %s | %s | %s | %s | %s |\n' "$@"; }
row "$SIZE MiB over loopback, ms" "${b[@]}"
row "$SIZE MiB over loopback, MB/s" $(for v in "${b[@]}"; do echo "$SIZE * 1048.576 / $v" | bc; done)
row "$SIZE MiB over loopback, / direct" $(for v in "${b[@]}"; do printf '%.2f ' "$(echo "$v / ${b[0]}" | bc -l)"; done)
row "$PACED MiB at 1 Gbit/s, ms" "${pc[@]}"
row "$PACED MiB at 1 Gbit/s, / direct" $(for v in "${pc[@]}"; do printf '%.2f ' "$(echo "$v / ${pc[0]}" | bc -l)"; done)
row "$BURST requests at once, ms" "${u[@]}"
row "$BURST requests, / direct" $(for v in "${u[@]}"; do printf '%.2f ' "$(echo "$v / ${u[0]}" | bc -l)"; done)
