//go:build linux

package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A mount the host makes after the sandbox started does not reach it, not
// even under a shared mount: it would arrive writable, whatever the
// sandbox's rule there says.
func TestLaterHostMountsStayOutside(t *testing.T) {
	need(t)
	if os.Getuid() != 0 || os.Getenv("NSRUN_SHAPE") != "" {
		t.Skip("making a shared mount and mounting on it while the sandbox runs takes the host's root")
	}
	d := workspace(t)
	writeFile(t, filepath.Join(d, "sub", "f"), "host")
	fifo := filepath.Join(d, "fifo")
	// In a mount namespace of its own (nothing of the test's mounts stays
	// on the host), d is a shared mount; the host mounts a tmpfs on d/sub
	// once the payload runs, then tells it to look.
	script := `set -e
mount --bind "$D" "$D" && mount --make-shared "$D"
mkfifo "$FIFO"
"$NSRUN" --ro "$D" -- /bin/sh -c 'echo ready; while [ ! -e "$0/go" ]; do sleep 0.01; done; ls "$0/sub"; grep -c " $0/sub " /proc/self/mountinfo || true' "$D" >"$FIFO" &
exec 3<"$FIFO"
read -r line <&3
[ "$line" = ready ]
mount -t tmpfs later "$D/sub"
touch "$D/go"
cat <&3
wait
umount "$D/sub"`
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "-m", "--propagation", "private", "/bin/sh", "-c", script)
	cmd.Env = append(os.Environ(), "D="+d, "FIFO="+fifo, "NSRUN="+nsrunBin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// The host's file, not the later tmpfs's empty directory; no mount
	// at d/sub inside.
	expect(t, "d/sub inside, after the host mounted on it", strings.TrimSpace(string(out)), "f\n0")
}
