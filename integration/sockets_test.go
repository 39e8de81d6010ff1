//go:build linux

package integration

import (
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// recorder is a host-side listener on 127.0.0.1 that keeps every byte any
// client sends it. Clients are served one at a time, in the order they
// connected, so once the test's own end marker has arrived, whatever the
// sandbox sent before it has too.
type recorder struct {
	Port  int
	mu    sync.Mutex
	got   strings.Builder
	ended chan struct{}
	send  func() // sends the end marker
}

const endMarker = "<end>"

// recordTCP listens for TCP (what it records excludes the end marker).
func recordTCP(t *testing.T) *recorder {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	r := &recorder{Port: ln.Addr().(*net.TCPAddr).Port, ended: make(chan struct{})}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			b, _ := io.ReadAll(c)
			c.Close()
			if string(b) == endMarker {
				close(r.ended)
				return
			}
			r.mu.Lock()
			r.got.WriteString("[" + string(b) + "]")
			r.mu.Unlock()
		}
	}()
	r.send = func() {
		c, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(r.Port))
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(endMarker))
		c.Close()
	}
	return r
}

// recordUDP receives datagrams of protocol proto (0 for UDP).
func recordUDP(t *testing.T, proto int) *recorder {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{Port: sa.(*unix.SockaddrInet4).Port, ended: make(chan struct{})}
	go func() {
		defer unix.Close(fd)
		b := make([]byte, 64)
		for {
			n, _, err := unix.Recvfrom(fd, b, 0)
			if err != nil {
				return
			}
			if string(b[:n]) == endMarker {
				close(r.ended)
				return
			}
			r.mu.Lock()
			r.got.WriteString("[" + string(b[:n]) + "]")
			r.mu.Unlock()
		}
	}()
	r.send = func() {
		s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, proto)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(s)
		if err := unix.Sendto(s, []byte(endMarker), 0, &unix.SockaddrInet4{Port: r.Port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// received ends the recording and returns what arrived.
func (r *recorder) received(t *testing.T) string {
	t.Helper()
	r.send()
	select {
	case <-r.ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the end marker never arrived")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got.String()
}

// With port rules on the host's network, every way to send a byte without
// connect(), or to accept one without bind(), is closed; a connect() to an
// allowed port and a server on an allowed port still work. The host-side
// listeners prove nothing arrived.
func TestPortRulesLeaveNoOtherWay(t *testing.T) {
	if hostABI(t) < 4 {
		t.Skip("Landlock ABI < 4 has no TCP rules")
	}
	allowed := recordTCP(t)
	for _, mode := range []string{"full", "landlock"} {
		closed := recordTCP(t)
		lite := recordUDP(t, unix.IPPROTO_UDPLITE)
		bindPort := freePort(t)
		opts := []string{"-q", "--isolation", mode, "--ro", filepath.Dir(helperBin), "--net", "host",
			"--allow-connect", strconv.Itoa(allowed.Port), "--allow-bind", strconv.Itoa(bindPort)}
		cp := strconv.Itoa(closed.Port)
		for _, tc := range []struct {
			op   []string
			want string
		}{
			{[]string{"connect", strconv.Itoa(allowed.Port)}, "ok"},
			{[]string{"connect", cp}, "EACCES"},
			{[]string{"tfo", cp}, "EOPNOTSUPP"},
			{[]string{"tfo-sendmsg", cp}, "EOPNOTSUPP"},
			{[]string{"tfo-connect", cp}, "EACCES"},
			{[]string{"connect", cp, "mptcp"}, "EPROTONOSUPPORT"},
			{[]string{"udplite", strconv.Itoa(lite.Port)}, "EPROTONOSUPPORT"},
			{[]string{"ping"}, "EPROTONOSUPPORT"},
			{[]string{"socket", "2", "1", "132"}, "EPROTONOSUPPORT"}, // SCTP
			{[]string{"socket", "10", "5", "132"}, "EPROTONOSUPPORT"},
			{[]string{"socket", "2", "1", "256"}, "EPROTONOSUPPORT"}, // SMC
			{[]string{"socket", "2", "2", "115"}, "EPROTONOSUPPORT"}, // L2TP
			{[]string{"socket", "2", "3", "6"}, "EPROTONOSUPPORT"},   // raw
			{[]string{"socket", "10", "10", "0"}, "EPROTONOSUPPORT"}, // SOCK_PACKET
			{[]string{"socket", "40", "1", "0"}, "EAFNOSUPPORT"},     // vsock: the profile's errno stands
			{[]string{"listen"}, "EACCES"},                           // never bound: the kernel would pick a port
			{[]string{"bind", cp}, "EACCES"},
		} {
			got := helper(t, opts, tc.op[0], tc.op[1:]...)
			if got == "ENOTSUP" {
				got = "EOPNOTSUPP" // the same errno, named twice
			}
			expect(t, mode+": "+strings.Join(tc.op, " "), got, tc.want)
		}
		expect(t, mode+": what reached the closed port", closed.received(t), "")
		expect(t, mode+": what reached the UDP-Lite port", lite.received(t), "")

		// A server on the allowed port works: listen() after bind() passes
		// the supervisor, and the host reaches it.
		r := startReady(t, append(opts, "--", helperBin, "serve-ready", strconv.Itoa(bindPort))...)
		c, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(bindPort))
		if err != nil {
			r.Process.Kill()
			r.Wait()
			t.Fatalf("%s: dial the sandbox's server: %v", mode, err)
		}
		c.Write([]byte("hello"))
		c.Close()
		rest, _ := io.ReadAll(r.Out)
		r.Wait()
		expect(t, mode+": the sandbox's server got", strings.TrimSpace(string(rest)), "hello")
	}
	expect(t, "what reached the allowed port", allowed.received(t), strings.Repeat("[]", 2))
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// With only TCP rules, UDP goes unrestricted below Landlock ABI 10 (DNS
// keeps working): the report lists it as dropped and --strict refuses. A
// UDP rule this kernel cannot enforce is refused.
func TestUDPWithTCPRules(t *testing.T) {
	abi := hostABI(t)
	if abi < 4 || abi >= 10 {
		t.Skip("needs TCP rules and no UDP rules")
	}
	ws := workspace(t)
	udp := recordUDP(t, 0)
	rep := filepath.Join(ws, "r.json")
	opts := []string{"--ro", filepath.Dir(helperBin), "--net", "host", "--allow-connect", "443"}
	r := run(t, "/", append(opts, "--report", rep, "--", helperBin, "udp", strconv.Itoa(udp.Port))...)
	if r.code != 0 || r.stdout != "ok" || !strings.Contains(r.stderr, "connect_send_udp") {
		t.Errorf("UDP with TCP rules: %v", r)
	}
	got := readReport(t, rep)
	if got.Landlock.Status != "partial" || !strings.Contains(strings.Join(got.Landlock.Dropped, ","), "connect_send_udp") {
		t.Errorf("report: %+v", got.Landlock)
	}
	expect(t, "datagrams", udp.received(t), "[x]")
	marker := filepath.Join(ws, "ran")
	r = run(t, ws, append(opts, "--strict", "--rw", ws, "--", "/bin/touch", marker)...)
	if r.code != 125 || !strings.Contains(r.stderr, "--strict") || !strings.Contains(r.stderr, "connect_send_udp") {
		t.Errorf("--strict: %v", r)
	}
	for _, rule := range [][]string{{"--allow-connect", "udp:53"}, {"--allow-bind", "udp:5353-5354"}} {
		r = run(t, ws, "--net", "host", rule[0], rule[1], "--rw", ws, "--", "/bin/touch", marker)
		if r.code != 125 || !strings.Contains(r.stderr, rule[0]+" "+rule[1]) || !strings.Contains(r.stderr, "ABI 10") {
			t.Errorf("%v: %v", rule, r)
		}
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Error("the command ran")
	}
}

// --isolation landlock with --net none has no network namespace: seccomp
// refuses every inet socket, so nothing of UDP, TCP Fast Open, listen() or
// ping reaches the host, whatever the Landlock ABI, and no warning about
// UDP is left.
func TestLandlockNetNoneHasNoInetSocket(t *testing.T) {
	hostABI(t)
	ws := workspace(t)
	tcp := recordTCP(t)
	udp := recordUDP(t, 0)
	opts := []string{"--isolation", "landlock", "--ro", filepath.Dir(helperBin)}
	for _, op := range [][]string{
		{"udp", strconv.Itoa(udp.Port)},
		{"tfo", strconv.Itoa(tcp.Port)},
		{"connect", strconv.Itoa(tcp.Port)},
		{"tfo-connect", strconv.Itoa(tcp.Port)},
		{"listen"},
		{"ping"},
		{"socket", "10", "2", "0"},
		{"socket", "40", "1", "0"}, // AF_VSOCK
	} {
		expect(t, strings.Join(op, " "), helper(t, opts, op[0], op[1:]...), "EAFNOSUPPORT")
	}
	expect(t, "unix sockets", helper(t, opts, "socket", "1", "1", "0"), "ok")
	expect(t, "TCP", tcp.received(t), "")
	expect(t, "UDP", udp.received(t), "")
	rep := filepath.Join(ws, "r.json")
	r := run(t, "/", append(opts, "--report", rep, "--", "/bin/true")...)
	if r.code != 0 || strings.Contains(r.stderr, "udp") {
		t.Errorf("no UDP warning any more: %v", r)
	}
	var got struct {
		Landlock struct{ Dropped []string }
		Seccomp  struct{ Rules []string }
	}
	decodeReport(t, rep, &got)
	if !strings.Contains(strings.Join(got.Seccomp.Rules, ","), "no-network") || strings.Contains(strings.Join(got.Landlock.Dropped, ","), "udp") {
		t.Errorf("report: %+v", got)
	}
	r = run(t, "/", "--isolation", "landlock", "--seccomp", "off", "--", "/bin/true")
	if r.code != 125 || !strings.Contains(r.stderr, "seccomp is off") {
		t.Errorf("--net none without seccomp: %v", r)
	}
	// With the host network, inet sockets are the host's to use.
	expect(t, "udp with --net host", helper(t, append(opts, "-q", "--net", "host"), "udp", strconv.Itoa(udp.Port)), "ok")
}

// Raw and packet sockets need CAP_NET_RAW, which the payload never has,
// even with nsrun's filters off (the Landlock-only mode refuses --seccomp
// off: a profile that allows everything there, beside nsrun's own rules,
// which allow these sockets under --net host) and nsrun run by root.
func TestRawSocketsNeedACapabilityThePayloadLacks(t *testing.T) {
	allowAll := filepath.Join(t.TempDir(), "allow.json")
	writeFile(t, allowAll, `{"defaultAction": "SCMP_ACT_ALLOW"}`)
	for _, mode := range []string{"full", "landlock"} {
		opts := []string{"-q", "--isolation", mode, "--ro", filepath.Dir(helperBin), "--net", "host", "--seccomp", "off"}
		if mode == "landlock" {
			opts[len(opts)-1] = allowAll
		}
		for _, s := range [][]string{{"2", "3", "1"}, {"10", "3", "58"}, {"17", "3", "0"}, {"2", "10", "0"}} {
			expect(t, mode+": socket "+strings.Join(s, " "), helper(t, opts, "socket", s...), "EPERM")
		}
	}
}

func decodeReport(t *testing.T, path string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(readFile(t, path)), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// With a profile that allows every socket family, port rules still leave
// none but unix, inet, inet6 and netlink: AF_SMC and its kind carry inet
// traffic on sockets the kernel makes for itself.
func TestPortRulesWhateverTheProfile(t *testing.T) {
	if hostABI(t) < 4 {
		t.Skip("Landlock ABI < 4 has no TCP rules")
	}
	ws := workspace(t)
	prof := filepath.Join(ws, "allow.json")
	writeFile(t, prof, `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": []}`)
	opts := []string{"-q", "--seccomp", prof, "--net", "host", "--allow-connect", "443"}
	for _, s := range [][]string{{"43", "1", "0"}, {"21", "5", "0"}, {"30", "4", "0"}, {"40", "1", "0"}, {"2", "1", "262"}} {
		expect(t, "socket "+strings.Join(s, " "), helper(t, opts, "socket", s...), "EPROTONOSUPPORT")
	}
	expect(t, "tcp", helper(t, opts, "socket", "2", "1", "0"), "ok")
}
