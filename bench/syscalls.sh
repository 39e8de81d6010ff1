#!/usr/bin/env bash
# The cost of the sandbox to a running payload: N getppid calls and a small
# build, unsandboxed, in bwrap, in nsrun with every layer and with layers
# off (the build also with --trace-denials), interleaved; medians and ratios
# to the unsandboxed run; then M of the calls a Landlock-only sandbox's
# supervisor answers.
#   N=5000000 M=10000 RUNS=15 bench/syscalls.sh
source "$(dirname "$0")/lib.sh"
N="${N:-5000000}"
RUNS="${RUNS:-15}"
gcc -O2 -static -o "$out/getppid" bench/getppid.c
gcc -O2 -static -o "$out/supervised" bench/supervised.c

echo "## Runtime overhead: $N getppid calls ($RUNS runs each)"
echo
hyperfine -N --warmup 2 --runs "$RUNS" --style none --export-json "$out/syscalls.json" \
	-n bare "$out/getppid $N" \
	-n bwrap "$bwrap_cmd $out/getppid $N" \
	-n "nsrun (all layers)" "$nsrun --ro $out -- $out/getppid $N" \
	-n "nsrun --seccomp off" "$nsrun --seccomp off --ro $out -- $out/getppid $N" \
	-n "nsrun --seccomp off --landlock off" "$nsrun --seccomp off --landlock off --ro $out -- $out/getppid $N" >/dev/null
go run ./bench/report -baseline bare "$out/syscalls.json"

# A build: 20 compilations of a small C file into the workspace.
build="for i in \$(seq 20); do gcc -O2 -c $PWD/bench/getppid.c -o $ws/o.o || exit 1; done"
echo
echo "## Runtime overhead: a build (20 gcc -O2 -c, $RUNS runs each)"
echo
hyperfine -N --warmup 1 --runs "$RUNS" --style none --export-json "$out/build.json" \
	-n bare "/bin/sh -c '$build'" \
	-n bwrap "$bwrap_cmd /bin/sh -c '$build'" \
	-n nsrun "$nsrun --rw $ws -- /bin/sh -c '$build'" \
	-n "nsrun --trace-denials" "$nsrun --trace-denials --rw $ws -- /bin/sh -c '$build'" \
	-n "nsrun --isolation landlock --trace-denials" "$nsrun --isolation landlock --trace-denials --rw $ws -- /bin/sh -c '$build'" >/dev/null
go run ./bench/report -baseline bare "$out/build.json"

# The calls a Landlock-only sandbox's supervisor answers (chmod,
# utimensat, connect to a unix socket); with namespaces they go straight to
# the kernel.
M="${M:-10000}"
echo
echo "## Runtime overhead: $M chmod, $M utimensat and $M unix socket connects ($RUNS runs each)"
echo
hyperfine -N --warmup 1 --runs "$RUNS" --style none --export-json "$out/supervised.json" \
	-n bare "$out/supervised $M $ws" \
	-n "nsrun (all layers)" "$nsrun --ro $out --rw $ws -- $out/supervised $M $ws" \
	-n "nsrun --isolation landlock" "$nsrun --isolation landlock --ro $out --rw $ws -- $out/supervised $M $ws" >/dev/null
go run ./bench/report -baseline bare "$out/supervised.json"
