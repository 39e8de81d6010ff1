#!/usr/bin/env bash
# What the filesystem forms cost at start: each next to a plain run and
# bubblewrap, interleaved in one hyperfine run. A DEST the root lacks is
# made in a mirror of / (or of /usr/share, 100-odd entries); an overlay
# takes a tmpfs and an overlayfs mount; --uid writes /etc/passwd and
# /etc/group; a --root image lacking /dev, /proc, /sys and /tmp mirrors
# its root.
#   RUNS=300 bench/files.sh
source "$(dirname "$0")/lib.sh"
RUNS="${RUNS:-300}"

src="$out/src" img="$out/img"
mkdir -p "$src" "$img/usr/bin" "$img/etc"
# A static true: the image has no libraries.
echo 'int main(void) { return 0; }' | gcc -O2 -static -x c -o "$img/usr/bin/true" -
ln -s usr/bin "$img/bin"

echo "## Filesystem forms ($RUNS runs each, as $(id -un))"
echo
hyperfine -N --warmup 30 --runs "$RUNS" --style none --export-json "$out/files.json" \
	-n bwrap "$bwrap_cmd /bin/true" \
	-n nsrun "$nsrun --rw $ws -- /bin/true" \
	-n "bind to a new place (a mirror of /)" "$nsrun --rw $ws --bind $src /nsrun-bench/dest -- /bin/true" \
	-n "bind to a new place in /usr/share (its mirror)" "$nsrun --rw $ws --bind $src /usr/share/nsrun-bench -- /bin/true" \
	-n "overlay" "$nsrun --rw $ws --overlay $src -- /bin/true" \
	-n "uid 1234 (passwd, group)" "$nsrun --rw $ws --uid 1234 -- /bin/true" \
	-n "sys host" "$nsrun --rw $ws --sys host -- /bin/true" \
	-n "root IMG lacking /dev /proc /sys /tmp" "$nsrun --rw $ws --root $img -- /bin/true" \
	-n "root IMG, overlay /" "$nsrun --rw $ws --root $img --overlay / -- /bin/true" >/dev/null
go run ./bench/report -baseline nsrun "$out/files.json"
echo
echo "Ratios are to \`nsrun --rw WS -- /bin/true\`; bwrap: \`bwrap ${bwrap_args[*]} /bin/true\`."
