#!/usr/bin/env bash
# The terminal relay: cat of a SIZE_MB file to a terminal (a pty read as
# fast as a terminal emulator could, by bench/ptycat) directly, through
# nsrun's relay (the sandbox's own pty, relayed to the terminal), and with
# --tty never (the payload writes to the terminal itself); then the cost of
# the pty at start, nsrun -- /bin/true on a terminal with and without it.
# Medians of ROUNDS interleaved rounds.
#   SIZE_MB=100 ROUNDS=5 bench/tty.sh
source "$(dirname "$0")/lib.sh"
SIZE_MB="${SIZE_MB:-100}"
ROUNDS="${ROUNDS:-5}"
go build -o "$out/ptycat" ./bench/ptycat
file="$out/text"
# Lines of 99 characters: text, as a terminal shows it.
head -c "$((SIZE_MB * 3 << 18))" /dev/urandom | base64 -w 99 >"$file"
mib=$(echo "$(stat -c %s "$file") / 1048576" | bc -l)

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
field() { sed -E "s/.*\"$1\":([0-9.]+).*/\1/"; }
for r in $(seq "$ROUNDS"); do
	"$out/ptycat" cat "$file" | field ms >>"$out/direct"
	"$out/ptycat" "$nsrun" -q -- cat "$file" | field ms >>"$out/relay"
	"$out/ptycat" "$nsrun" -q --tty never -- cat "$file" | field ms >>"$out/never"
	for i in $(seq 20); do
		"$out/ptycat" "$nsrun" -q -- /bin/true | field ms >>"$out/true.pty"
		"$out/ptycat" "$nsrun" -q --tty never -- /bin/true | field ms >>"$out/true.never"
	done
done
d=$(median <"$out/direct")
row() { printf '| %s | %.0f | %.0f | %.2f |\n' "$1" "$(median <"$out/$2")" "$(echo "$mib * 1000 / $(median <"$out/$2")" | bc -l)" "$(echo "$(median <"$out/$2") / $d" | bc -l)"; }
printf '## The terminal relay (cat of %.0f MiB of text to a terminal; medians of %d rounds)\n' "$mib" "$ROUNDS"
echo
echo "| run | ms | MiB/s | / direct |"
echo "|---|---|---|---|"
row "\`cat FILE\` on the terminal, no sandbox" direct
row "\`nsrun -- cat FILE\`: the sandbox's pty, relayed" relay
row "\`nsrun --tty never -- cat FILE\`: the terminal itself inside" never
echo
printf '| startup on a terminal, median of %d | ms |\n|---|---|\n' "$((ROUNDS * 20))"
printf '| `nsrun -- /bin/true` (a pty, relayed) | %.2f |\n' "$(median <"$out/true.pty")"
printf '| `nsrun --tty never -- /bin/true` | %.2f |\n' "$(median <"$out/true.never")"
echo
echo "The terminal is a pty read by \`bench/ptycat\` as fast as it can (a terminal emulator draws slower). Without a terminal on any standard stream nsrun makes no pty and starts no relay: the other tables are that case."
