#!/usr/bin/env bash
# A sandbox that shows what it allows and what it refuses. Run by make demo
# after make build.
set -uo pipefail
cd "$(dirname "$0")/.."
NSRUN="${NSRUN:-bin/nsrun}"
ws="$(mktemp -d /var/tmp/nsrun-demo.XXXXXX)"
trap 'rm -rf "$ws"' EXIT
mkdir -p "$ws/.git" "$ws/secrets"
echo "token=hunter2" >"$ws/secrets/api"
echo "[core]" >"$ws/.git/config"
if [ "$(id -u)" -eq 0 ] && id nsrun-test >/dev/null 2>&1; then
	chown -R nsrun-test "$ws"
	as_user=(runuser -u nsrun-test --)
else
	as_user=()
fi

echo "# nsrun probe"
"$NSRUN" probe
echo
echo "# nsrun --rw $ws --ro $ws/.git --deny $ws/secrets -- bash (as ${as_user[2]:-$(id -un)})"
"${as_user[@]}" "$NSRUN" --rw "$ws" --ro "$ws/.git" --deny "$ws/secrets" --chdir "$ws" --env HOST_PID=$$ \
	--report "$ws/report.json" -- /bin/bash -c '
try() {
	local what=$1; shift
	if out=$("$@" 2>&1); then echo "  allowed  $what"; else out=$(printf "%s" "$out" | head -n1); echo "  refused  $what: ${out##*: }"; fi
}
echo "inside: uid $(id -u), pid $$, hostname $(hostname)"
try "write the workspace"            sh -c "echo hi > ./hello.txt"
try "write /etc"                     sh -c "echo x > /etc/nsrun-demo"
try "write the home directory"       sh -c "echo x > ~/nsrun-demo"
try "write ws/.git (--ro)"           sh -c "echo x >> .git/config"
try "write /tmp (private tmpfs)"     sh -c "echo x > /tmp/scratch"
try "read ws/secrets (--deny)"       sh -c "cat secrets/api | grep -q token"
echo "  processes visible: $(cd /proc && echo [0-9]*) (1 is nsrun'"'"'s init)"
try "signal the demo script on the host (pid $HOST_PID)" kill -0 "$HOST_PID"
try "mount a tmpfs"                  mount -t tmpfs none /mnt
try "reach the network"              bash -c "exec 3<>/dev/tcp/1.1.1.1/53"
echo "  capabilities: $(grep -E "^Cap(Eff|Bnd)" /proc/self/status | tr "\t\n" "  ")"
echo "  $(grep NoNewPrivs /proc/self/status | tr "\t" " ")"
'
echo "exit status: $?"
echo
echo "# on the host afterwards"
echo "  ws/hello.txt: $(cat "$ws/hello.txt" 2>/dev/null || echo missing)"
echo "  /etc/nsrun-demo: $([ -e /etc/nsrun-demo ] && echo CREATED || echo absent)"
echo "  ws/.git/config: $(cat "$ws/.git/config")"
echo
echo "# the report (--report)"
cat "$ws/report.json"
