package rawinit

import (
	"context"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nsrun/nsrun/internal/launch"
	"github.com/nsrun/nsrun/netproxy"
)

// The filtered network, built by both inits: nsrun's side is
// netproxy.Inside over the socket factory, as internal/sandbox drives it.

// netRun is one init's run with a socket factory: parent is nsrun's side
// before the payload (it says ready, or not), started its side once the
// payload runs.
type netRun struct {
	parent  func(in *netproxy.Inside, fd int) // fd: the socket Inside uses
	started func(in *netproxy.Inside, p *pipes)
}

func (n netRun) pipes(t *testing.T) (*pipes, *netproxy.Inside) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := newPipes(t)
	p.net = os.NewFile(uintptr(fds[1]), "factory")
	in := netproxy.NewInside(fds[0])
	if n.parent != nil {
		p.parent = func() { n.parent(in, fds[0]) }
	}
	if n.started != nil {
		p.started = func() { go n.started(in, p) }
	}
	return p, in
}

func netSpec(t *testing.T, ws, script string) *launch.Spec {
	s := baseSpec(t, ws, script)
	s.Net = true
	s.LoopbackAddrs = []string{"127.0.0.2"}
	if _, err := os.Stat("/proc/sys/net/ipv6"); err == nil {
		s.LoopbackAddrs = append(s.LoopbackAddrs, "::2")
	}
	return s
}

// serveLine answers each connection to l with line.
func serveLine(l net.Listener, line string) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		_, _ = c.Write([]byte(line + "\n"))
		c.Close()
	}
}

// The payload's side: perl, whose IO::Socket::IP speaks both families.
const netScript = `ip -o addr show lo | awk '{print $4}' | sort
perl -MIO::Socket::IP -e '
$| = 1;
sub line { my ($h, $p) = @_; my $s = IO::Socket::IP->new(PeerHost => $h, PeerPort => $p) or return "connect $h $p: $!"; my $l = <$s>; chomp $l; $l }
print "tcp4: ", line("127.0.0.2", 4001), "\n";
print "tcp6: ", (-e "/proc/sys/net/ipv6" ? line("::2", 4007) : "six"), "\n";
my $u = IO::Socket::IP->new(PeerHost => "127.0.0.1", PeerPort => 4005, Proto => "udp") or die "udp: $!";
$u->send("ping"); my $r; $u->recv($r, 100); print "udp4: $r\n";
my $srv = IO::Socket::IP->new(LocalHost => "127.0.0.1", LocalPort => 4003, Listen => 5, ReuseAddr => 1) or die "listen: $!";
$srv->timeout(10); my $c = $srv->accept; print "published: ", ($c ? scalar(<$c>) : "none\n");
my $lz; for (1..200) { $lz = IO::Socket::IP->new(PeerHost => "127.0.0.1", PeerPort => 4002) and last; select(undef, undef, undef, 0.05) }
print "lazy: ", ($lz ? scalar(<$lz>) : "none\n");
'
[ -e /proc/self/fd/6 ] && echo fd 6 open || echo no fd 6
(exec 9<>/proc/1/fd/6) 2>/dev/null && echo opened the factory || echo the factory cannot be opened
perl -e 'print "kill 1: ", kill("KILL", 1) + kill("STOP", 1), "\n"'; sleep 0.1
perl -MIO::Socket::IP -e 'my $s = IO::Socket::IP->new(PeerHost => "127.0.0.1", PeerPort => 4002) or die "after kill: $!"; print "after kill: ", scalar(<$s>)'
exit 5`

// fullNet is nsrun's side of netScript: listeners before ready (TCP on
// an added address, both families, and UDP), a listener made once the
// payload runs (the DNS server's lazy ones, --allow-host NAME:PORT) and a
// connection into the sandbox (a published port).
func fullNet(t *testing.T) netRun {
	return netRun{
		parent: func(in *netproxy.Inside, _ int) {
			// A listener that fails ends the factory, and so the
			// init, which would wait for ready for ever (the race pass
			// hung so for 13 minutes).
			ready := false
			defer func() {
				if !ready {
					in.Close()
				}
			}()
			l4, err := in.Listen(netip.MustParseAddrPort("127.0.0.2:4001"))
			if err != nil {
				t.Errorf("listen 127.0.0.2:4001: %v", err)
				return
			}
			go serveLine(l4, "hello")
			if _, err := os.Stat("/proc/sys/net/ipv6"); err == nil {
				l6, err := in.Listen(netip.MustParseAddrPort("[::2]:4007"))
				if err != nil {
					t.Errorf("listen [::2]:4007: %v", err)
					return
				}
				go serveLine(l6, "six")
			}
			pc, err := in.ListenPacket(netip.MustParseAddrPort("127.0.0.1:4005"))
			if err != nil {
				t.Errorf("listen udp 127.0.0.1:4005: %v", err)
				return
			}
			go func() {
				b := make([]byte, 100)
				for {
					n, from, err := pc.ReadFrom(b)
					if err != nil {
						return
					}
					_, _ = pc.WriteTo([]byte("pong:"+string(b[:n])), from)
				}
			}()
			if err := in.Ready(); err != nil {
				t.Errorf("ready: %v", err)
				return
			}
			ready = true
		},
		started: func(in *netproxy.Inside, _ *pipes) {
			lz, err := in.Listen(netip.MustParseAddrPort("127.0.0.1:4002"))
			if err != nil {
				t.Errorf("lazy listen: %v", err)
				return
			}
			go serveLine(lz, "late")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for ctx.Err() == nil {
				c, err := in.Dial(ctx, netip.MustParseAddrPort("127.0.0.1:4003"))
				if err != nil {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				_, _ = c.Write([]byte("dialed\n"))
				c.Close()
				return
			}
			t.Errorf("dial into the sandbox: %v", ctx.Err())
		},
	}
}

// TestDifferentialNetwork: the filtered network's factory serves both
// inits alike, before the payload and for its whole life, and what ends
// it before ready ends both with the same words.
func TestDifferentialNetwork(t *testing.T) {
	needSandboxes(t)
	ws, err := os.MkdirTemp("/var/tmp", "rawinit-ws-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(ws) })
	if err := os.Mkdir(ws+"/w", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		script   string
		net      func(*testing.T) netRun
		contains []string
		msg      string // both inits' error, word for word
	}{
		{name: "served", script: netScript, net: fullNet, contains: []string{"127.0.0.2/32\n", "tcp4: hello\n", "udp4: pong:ping\n",
			"published: dialed\n", "lazy: late\n", "no fd 6\n", "the factory cannot be opened\n", "after kill: late\n"}},
		{name: "nsrun gone before ready", script: "echo ran", net: func(*testing.T) netRun {
			return netRun{parent: func(in *netproxy.Inside, _ int) { in.Close() }}
		}, msg: "socket factory: fdpass: the other end is closed"},
		{name: "malformed request", script: "echo ran", net: func(t *testing.T) netRun {
			return netRun{parent: func(in *netproxy.Inside, fd int) {
				// A request of a kind unknown is answered EINVAL; one
				// that is no request ends the factory.
				if _, err := in.Listen(netip.MustParseAddrPort("127.0.0.1:1")); err != nil {
					t.Errorf("listen: %v", err)
				}
				for _, b := range []string{"s\x07", "xyz"} {
					if _, err := unix.Write(fd, []byte(b)); err != nil {
						t.Errorf("write: %v", err)
					}
				}
			}}
		}, msg: "socket factory: malformed request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := func() *launch.Spec { return netSpec(t, ws, c.script) }
			if err := Supports(spec()); err != nil {
				t.Fatal(err)
			}
			gp, gin := c.net(t).pipes(t)
			goRun := runGoInitOn(t, spec(), gp)
			gin.Close()
			shares := []bool{false}
			if CanShareMemory {
				shares = append(shares, true) // the init in this process's memory
			}
			for _, share := range shares {
				rp, rin := c.net(t).pipes(t)
				rawRun := runRawInitOn(t, spec(), rp, share)
				rin.Close()
				if goRun.out != rawRun.out {
					t.Errorf("output (shared memory: %v):\n go: %s\nraw: %s", share, goRun.out, rawRun.out)
				}
				if strings.Join(goRun.kinds, " ") != strings.Join(rawRun.kinds, " ") {
					t.Errorf("messages (shared memory: %v): go %v, raw %v", share, goRun.kinds, rawRun.kinds)
				}
				g, r := goRun.last, rawRun.last
				if g.Kind != r.Kind || g.Code != r.Code || g.Signal != r.Signal || g.Errno != r.Errno || goRun.init != rawRun.init {
					t.Errorf("how it ended (shared memory: %v):\n go: %+v, init %s\nraw: %+v, init %s", share, g, goRun.init, r, rawRun.init)
				}
				for _, w := range c.contains {
					if !strings.Contains(rawRun.out, w) {
						t.Errorf("the output should hold %q (shared memory: %v):\n go: %s\nraw: %s", w, share, goRun.out, rawRun.out)
					}
				}
				if c.msg != "" && (g.Msg != c.msg || r.Msg != c.msg) {
					t.Errorf("messages should say %q (shared memory: %v):\n go: %s\nraw: %s", c.msg, share, g.Msg, r.Msg)
				}
				t.Logf("shared memory: %v\ngo: %s %+v\nraw: %s %+v\n%s", share, goRun.init, g, rawRun.init, r, rawRun.out)
			}
		})
	}
}

// TestRawFactoryUnderLoad: many requests at once, from several
// goroutines, are all answered, the init holds no more descriptors after
// them than before, and a payload that ends while requests are pending
// ends the sandbox at once, the requests failing.
func TestRawFactoryUnderLoad(t *testing.T) {
	needSandboxes(t)
	ws, err := os.MkdirTemp("/var/tmp", "rawinit-ws-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(ws) })
	if err := os.Mkdir(ws+"/w", 0o755); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var counts []int
	var served, failed int
	fdCount := func(pid int) {
		ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
		if err == nil {
			mu.Lock()
			counts = append(counts, len(ents))
			mu.Unlock()
		}
	}
	burst := func(in *netproxy.Inside) {
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 50; i++ {
					pc, err := in.ListenPacket(netip.MustParseAddrPort("127.0.0.1:0"))
					mu.Lock()
					if err != nil {
						failed++
					} else {
						served++
						pc.Close()
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	run := netRun{
		parent: func(in *netproxy.Inside, _ int) { _ = in.Ready() },
		started: func(in *netproxy.Inside, p *pipes) {
			fdCount(p.initPid)
			burst(in)
			// The init closes each socket once sent: the last may be
			// on its way.
			time.Sleep(100 * time.Millisecond)
			fdCount(p.initPid)
			// The payload ends once w/go exists: with requests still
			// coming.
			done := make(chan struct{})
			go func() {
				defer close(done)
				for {
					if _, err := in.ListenPacket(netip.MustParseAddrPort("127.0.0.1:0")); err != nil {
						return
					}
				}
			}()
			time.Sleep(50 * time.Millisecond)
			if err := os.WriteFile(ws+"/w/go", nil, 0o644); err != nil {
				t.Error(err)
			}
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Error("requests still answered 10 s after the payload ended")
			}
		},
	}
	p, in := run.pipes(t)
	defer in.Close()
	spec := netSpec(t, ws, "while [ ! -e w/go ]; do sleep 0.02; done")
	begin := time.Now()
	o := runRawInitOn(t, spec, p, false)
	if d := time.Since(begin); d > 20*time.Second {
		t.Errorf("the sandbox took %v to end", d)
	}
	if o.last.Kind != launch.MsgExit || o.last.Code != 0 {
		t.Errorf("ended: %+v", o.last)
	}
	mu.Lock()
	defer mu.Unlock()
	if served != 400 || failed != 0 {
		t.Errorf("%d served, %d failed of 400", served, failed)
	}
	if len(counts) == 2 && counts[0] != counts[1] {
		t.Errorf("the init held %d descriptors before the requests, %d after", counts[0], counts[1])
	}
	t.Logf("descriptors of the init: %v", counts)
}

// TestLoopbackAddrNotAdded: an address lo cannot be given is logged in
// the Go init's words, and the sandbox is built all the same.
func TestLoopbackAddrNotAdded(t *testing.T) {
	needSandboxes(t)
	ws, err := os.MkdirTemp("/var/tmp", "rawinit-ws-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(ws) })
	spec := func() *launch.Spec {
		s := baseSpec(t, ws, "ip -o addr show lo | awk '{print $4}' | sort")
		s.LoopbackAddrs, s.Verbose = []string{"127.0.0.2", "127.0.0.2", "not-an-address"}, true
		return s
	}
	if err := Supports(spec()); err != nil {
		t.Fatal(err)
	}
	said := func(o outcome) string {
		var out []string
		for _, l := range o.logs {
			if strings.HasPrefix(l, "lo address") {
				// The Go init's steps end with their time.
				if i := strings.LastIndex(l, " ("); i > 0 && strings.HasSuffix(l, " ms)") {
					l = l[:i]
				}
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	goRun, rawRun := runGoInit(t, spec()), runRawInit(t, spec(), false)
	if goRun.out != rawRun.out || !strings.Contains(rawRun.out, "127.0.0.2/32\n") {
		t.Errorf("output:\n go: %s\nraw: %s", goRun.out, rawRun.out)
	}
	want := "lo address 127.0.0.2 not added: netlink RTM_NEWADDR 127.0.0.2: file exists\n" +
		`lo address not-an-address not added: ParseAddr("not-an-address"): unable to parse IP`
	if g, r := said(goRun), said(rawRun); g != want || r != want {
		t.Errorf("logged:\n go: %s\nraw: %s\nwant: %s", g, r, want)
	}
	if g, r := goRun.last, rawRun.last; g.Kind != launch.MsgExit || r.Kind != g.Kind || r.Code != g.Code {
		t.Errorf("ended: go %+v, raw %+v", g, r)
	}
}
