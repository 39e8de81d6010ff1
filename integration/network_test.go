//go:build linux

package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// hostServer is an HTTP server on the host's 127.0.0.1 that answers
// "hello NAME" (the request's Host) and records the request lines it saw.
type hostServer struct {
	port  int
	mu    sync.Mutex
	lines []string
}

func newHostServer(t *testing.T) *hostServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &hostServer{port: ln.Addr().(*net.TCPAddr).Port}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.lines = append(s.lines, r.Method+" "+r.RequestURI)
		s.mu.Unlock()
		host, _, _ := net.SplitHostPort(r.Host)
		fmt.Fprintf(w, "hello %s", host)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

func (s *hostServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lines...)
}

// rawServer records the first line of each connection and answers
// "raw: LINE".
func rawServer(t *testing.T) (int, func() []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var lines []string
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				l, _ := bufio.NewReader(c).ReadString('\n')
				mu.Lock()
				lines = append(lines, strings.TrimSpace(l))
				mu.Unlock()
				fmt.Fprintf(c, "raw: %s", l)
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), lines...)
	}
}

// netReport is the report's network section.
type netReport struct {
	NotEnforced []string `json:"-"`
	Mode        string   `json:"mode"`
	Allowed     []string `json:"allowed"`
	Proxy       string   `json:"proxy"`
	DNS         string   `json:"dns"`
	Connections []count  `json:"connections"`
	Denied      []count  `json:"denied"`
}

type count struct {
	Host  string `json:"host"`
	Port  int    `json:"port"`
	Count int    `json:"count"`
}

// lastNet is the last result of runNet, logged when a test fails.
var lastNet result

// runNet runs a shell script in a sandbox with args and returns the
// result and the report's network section.
func runNet(t *testing.T, args []string, script string) (result, netReport) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("nsrun %q:\n%v", args, lastNet)
		}
	})
	rep := filepath.Join(workspace(t), "report.json")
	argv := append(append([]string{"--report", rep}, args...), "--", "/bin/sh", "-c", script)
	r := run(t, "/", argv...)
	lastNet = r
	var doc struct {
		Network     netReport `json:"network"`
		NotEnforced []string  `json:"not_enforced"`
	}
	if b, err := os.ReadFile(rep); err == nil {
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("report: %v\n%s", err, b)
		}
	}
	doc.Network.NotEnforced = doc.NotEnforced
	return r, doc.Network
}

// curl runs curl quietly with a ten-second ceiling, failing on an HTTP
// error: its exit status is 6 for a name it could not resolve, 7 for a
// connection refused or unreachable, 22 for an HTTP error (the proxy's
// 403, also to a CONNECT), 97 for a SOCKS refusal, 28 for the ceiling
// (a hang).
const curl = "curl -sS -f --max-time 10"

func TestNetworkAllowedName(t *testing.T) {
	srv := newHostServer(t)
	p := itoa(srv.port)
	r, rep := runNet(t, []string{"--add-host", "reg.test=127.0.0.1", "--allow-host", "reg.test:" + p, "--allow-host", "127.0.0.1:" + p},
		`echo "$HTTP_PROXY $https_proxy $ALL_PROXY $NO_PROXY"
		`+curl+` http://reg.test:`+p+`/via-proxy; echo " $?"
		`+curl+` --noproxy '*' http://reg.test:`+p+`/direct; echo " $?"
		getent hosts reg.test | cut -d' ' -f1
		cat /etc/resolv.conf | grep nameserver`)
	if r.code != 0 {
		t.Fatal(r)
	}
	lines := strings.Split(r.stdout, "\n")
	want := []string{
		"http://127.0.0.1:3128 http://127.0.0.1:3128 socks5h://127.0.0.1:3128 localhost,127.0.0.1,::1",
		"hello reg.test 0",
		"hello reg.test 0",
	}
	if len(lines) != 5 || strings.Join(lines[:3], "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s\n...", r.stdout, strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(lines[3], "127.1.") {
		t.Errorf("reg.test resolves to %q inside, want an address of 127.1.0.0/16", lines[3])
	}
	expect(t, "resolver", lines[4], "nameserver 127.0.0.1")
	// The plain request reached the server in origin form.
	if got := srv.seen(); len(got) != 2 || got[0] != "GET /via-proxy" || got[1] != "GET /direct" {
		t.Errorf("the server saw %q", got)
	}
	if rep.Mode != "filtered" || rep.Proxy != "127.0.0.1:3128" || rep.DNS != "127.0.0.1:53" ||
		fmt.Sprint(rep.Allowed) != fmt.Sprintf("[reg.test:%s 127.0.0.1:%s]", p, p) {
		t.Errorf("report %+v", rep)
	}
	if fmt.Sprint(rep.Connections) != fmt.Sprintf("[{reg.test %s 2}]", p) || len(rep.Denied) != 0 {
		t.Errorf("report counts %+v %+v", rep.Connections, rep.Denied)
	}
}

func TestNetworkDeniedAtOnce(t *testing.T) {
	srv := newHostServer(t)
	other := newHostServer(t)
	p, q := itoa(srv.port), itoa(other.port)
	quiet := curl + " -o /dev/null"
	r, rep := runNet(t, []string{"--add-host", "reg.test=127.0.0.1", "--add-host", "evil.test=127.0.0.1", "--add-host", "priv.test=10.1.2.3",
		"--add-host", "meta.test=169.254.169.254", "--allow-host", "reg.test:" + p, "--allow-host", "priv.test", "--allow-host", "meta.test",
		"--allow-host", "127.0.0.1:" + p},
		strings.Join([]string{
			// A name no rule allows: 403 from the proxy, over CONNECT
			// too; no such name inside; SOCKS "not allowed".
			quiet + ` http://evil.test:` + p + `/ 2>/dev/null; echo "name $?"`,
			quiet + ` https://evil.test:` + p + `/ 2>/dev/null; echo "name tunnel $?"`,
			quiet + ` --noproxy '*' http://evil.test:` + p + `/ 2>/dev/null; echo "name direct $?"`,
			quiet + ` --socks5-hostname 127.0.0.1:3128 http://evil.test:` + p + `/ 2>/dev/null; echo "name socks $?"`,
			// An address no rule allows (here the host's loopback, on
			// another port): 403; straight there, the sandbox's own
			// 127.0.0.1, where nothing listens.
			quiet + ` -x http://127.0.0.1:3128 --noproxy '' http://127.0.0.1:` + q + `/ 2>/dev/null; echo "address $?"`,
			quiet + ` --noproxy '*' http://127.0.0.1:` + q + `/ 2>/dev/null; echo "address direct $?"`,
			// Allowed names that lead to a private address and to the
			// cloud metadata service's.
			quiet + ` http://priv.test/ 2>/dev/null; echo "private $?"`,
			quiet + ` --noproxy '*' http://priv.test/ 2>/dev/null; echo "private direct $?"`,
			quiet + ` http://meta.test/latest/meta-data/ 2>/dev/null; echo "metadata $?"`,
			quiet + ` --noproxy '*' http://meta.test/latest/meta-data/ 2>/dev/null; echo "metadata direct $?"`,
			// No route to any address but loopback's.
			quiet + ` --noproxy '*' http://10.1.2.3/ 2>/dev/null; echo "no route $?"`,
			`getent hosts evil.test priv.test meta.test; echo "getent $?"`,
		}, "\n"))
	if r.code != 0 {
		t.Fatal(r)
	}
	want := strings.Join([]string{
		"name 22", "name tunnel 22", "name direct 6", "name socks 97",
		"address 22", "address direct 7",
		"private 22", "private direct 6", "metadata 22", "metadata direct 6",
		"no route 7", "getent 2",
	}, "\n")
	expect(t, "outcomes (curl: 6 no such name, 7 refused or unreachable, 22 HTTP 403, 97 SOCKS refused, 28 a hang)", r.stdout, want)
	if len(srv.seen())+len(other.seen()) != 0 {
		t.Errorf("a refused request reached a server: %q %q", srv.seen(), other.seen())
	}
	if len(rep.Connections) != 0 {
		t.Errorf("connections %+v", rep.Connections)
	}
	denied := map[string]int{}
	for _, d := range rep.Denied {
		denied[fmt.Sprintf("%s:%d", d.Host, d.Port)] = d.Count
	}
	for k, n := range map[string]int{"evil.test:" + p: 3, "127.0.0.1:" + q: 1, "priv.test:80": 1, "meta.test:80": 1} {
		if denied[k] != n {
			t.Errorf("denied %s: %d, want %d (all: %+v)", k, denied[k], n, rep.Denied)
		}
	}
	// Names looked up through the sandbox's DNS count on port 0.
	for _, k := range []string{"evil.test:0", "priv.test:0", "meta.test:0"} {
		if denied[k] == 0 {
			t.Errorf("denied %s: none counted (all: %+v)", k, rep.Denied)
		}
	}
}

func TestNetworkPrivateHostsAllowed(t *testing.T) {
	srv := newHostServer(t)
	p := itoa(srv.port)
	r, _ := runNet(t, []string{"--add-host", "db.test=127.0.0.1", "--allow-host", "db.test:" + p, "--allow-private-hosts"},
		curl+` http://db.test:`+p+`/; echo " $?"; `+curl+` --noproxy '*' http://db.test:`+p+`/; echo " $?"`)
	expect(t, "with --allow-private-hosts", r.stdout, "hello db.test 0\nhello db.test 0")
	// Without it, the loopback address is refused even for an allowed name.
	r, _ = runNet(t, []string{"--add-host", "db.test=127.0.0.1", "--allow-host", "db.test:" + p},
		curl+` -o /dev/null http://db.test:`+p+`/ 2>/dev/null; echo $?`)
	expect(t, "without", r.stdout, "22")
}

func TestNetworkWildcards(t *testing.T) {
	srv := newHostServer(t)
	p := itoa(srv.port)
	args := []string{"--allow-host", "*.wild.test:" + p, "--allow-private-hosts"}
	for _, n := range []string{"a.wild.test", "b.c.wild.test", "wild.test", "awild.test", "wild.test.evil.test"} {
		args = append(args, "--add-host", n+"=127.0.0.1")
	}
	r, _ := runNet(t, args, `for n in a.wild.test b.c.wild.test wild.test awild.test wild.test.evil.test; do
		`+curl+` http://$n:`+p+`/ 2>/dev/null; echo " $?"
		`+curl+` --noproxy '*' http://$n:`+p+`/ 2>/dev/null; echo " $?"
	done`)
	want := "hello a.wild.test 0\nhello a.wild.test 0\nhello b.c.wild.test 0\nhello b.c.wild.test 0\n 22\n 6\n 22\n 6\n 22\n 6"
	expect(t, "wildcard", r.stdout, want)
}

func TestNetworkSmuggling(t *testing.T) {
	srv := newHostServer(t)
	raw, seen := rawServer(t)
	p, rp := itoa(srv.port), itoa(raw)
	args := []string{"--add-host", "reg.test=127.0.0.1", "--add-host", "raw.test=127.0.0.1", "--add-host", "evil.test=127.0.0.1",
		"--allow-host", "reg.test:" + p, "--allow-host", "raw.test:" + rp, "--allow-private-hosts"}
	connect := func(target, host string) string {
		return fmt.Sprintf(`CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n`, target, host)
	}
	r, _ := runNet(t, args, strings.Join([]string{
		// The Host header must name the host of the CONNECT.
		helperBin + ` raw 127.0.0.1:3128 '` + connect("reg.test:"+p, "evil.test") + `'`,
		// An address (here the host's loopback) through an allowed name's header.
		helperBin + ` raw 127.0.0.1:3128 '` + connect("127.0.0.1:"+p, "reg.test") + `'`,
		// An allowed name on another port.
		helperBin + ` raw 127.0.0.1:3128 '` + connect("reg.test:22", "reg.test") + `'`,
		// A userinfo trick in an absolute URI.
		helperBin + ` raw 127.0.0.1:3128 'GET http://evil.test@reg.test:` + p + `/ HTTP/1.1\r\n\r\n'`,
		// Straight to raw.test's address, speaking proxy: the bytes go to
		// raw.test, whatever they ask for.
		helperBin + ` raw raw.test:` + rp + ` '` + connect("evil.test:"+p, "evil.test") + `'`,
	}, "\n"))
	if r.code != 0 {
		t.Fatal(r)
	}
	want := strings.Join([]string{
		"HTTP/1.1 403 Forbidden",
		"HTTP/1.1 403 Forbidden",
		"HTTP/1.1 403 Forbidden",
		"HTTP/1.1 400 Bad Request",
		"raw: CONNECT evil.test:" + p + " HTTP/1.1",
	}, "\n")
	expect(t, "smuggling", r.stdout, want)
	if got := srv.seen(); len(got) != 0 {
		t.Errorf("a smuggled request reached the server: %q", got)
	}
	if got := seen(); len(got) != 1 {
		t.Errorf("raw.test saw %q", got)
	}
}

func TestNetworkPublish(t *testing.T) {
	hp := freePort(t)
	r := startReady(t, "--publish", fmt.Sprintf("%d:8080", hp), "--", helperBin, "serve", "8080")
	defer r.Process.Kill()
	for i := 0; i < 3; i++ {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", hp), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		l, err := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if l != "hello from inside\n" {
			t.Fatalf("from the host: %q %v", l, err)
		}
	}
	r.Process.Kill()
	r.Wait()
	// Nothing is left listening once nsrun is gone.
	if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", hp)); err == nil {
		c.Close()
		t.Error("the published port still answers after nsrun exited")
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", hp))
	if err != nil {
		t.Errorf("the published port is still taken: %v", err)
	} else {
		ln.Close()
	}
	// A port the host already uses is a clean error before anything runs.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	v := fmt.Sprintf("%d:8080", busy.Addr().(*net.TCPAddr).Port)
	res := run(t, "/", "--publish", v, "--", "/bin/echo", "ran")
	if res.code != 125 || res.stdout != "" || !strings.HasPrefix(res.stderr, `nsrun: --publish "127.0.0.1:`+v+`": listen tcp`) || strings.Count(res.stderr, "\n") != 0 {
		t.Errorf("a busy host port: %v", res)
	}
}

func TestNetworkHostPort(t *testing.T) {
	srv := newHostServer(t)
	other := newHostServer(t)
	p, q := itoa(srv.port), itoa(other.port)
	r, rep := runNet(t, []string{"--host-port", p},
		curl+` --noproxy '*' http://127.0.0.1:`+p+`/db; echo " $?"
		`+curl+` --noproxy '*' http://localhost:`+p+`/db; echo " $?"
		`+curl+` --noproxy '*' -o /dev/null http://127.0.0.1:`+q+`/ 2>/dev/null; echo "other $?"
		`+curl+` -o /dev/null -x http://127.0.0.1:3128 --noproxy '' http://127.0.0.1:`+q+`/ 2>/dev/null; echo "other via proxy $?"`)
	expect(t, "host port", r.stdout, "hello 127.0.0.1 0\nhello localhost 0\nother 7\nother via proxy 22")
	if len(other.seen()) != 0 {
		t.Errorf("another host port was reached: %q", other.seen())
	}
	if fmt.Sprint(rep.Connections) != fmt.Sprintf("[{127.0.0.1 %s 2}]", p) {
		t.Errorf("connections %+v", rep.Connections)
	}
}

// TestNetworkBurst sends 200 requests at once through the proxy and 200
// straight to the name. A request reset (its write then EPIPE, or answered
// 502 by the proxy) is
// retried once by the helper, and up to ten in each 200 are allowed: under
// a machine's full load (the race pass beside the container suite, or ten
// busy loops on two CPUs) one to five in a hundred are, with the sandbox's
// network namespace counting TCPAbortOnClose and EstabResets; a quiet
// machine has none. More, or a request failing twice, fails the test.
func TestNetworkBurst(t *testing.T) {
	srv := newHostServer(t)
	p := itoa(srv.port)
	args := []string{"--add-host", "reg.test=127.0.0.1", "--allow-host", "reg.test:" + p, "--allow-private-hosts"}
	retried := 0
	for _, leg := range []struct {
		what string
		args []string
	}{
		{"200 through the proxy", args},
		{"200 straight to the name", append(append([]string{}, args...), "--env", "NO_PROXY=*")},
	} {
		// nsrun's messages say why a connection was reset.
		r := run(t, "/", append(append([]string{}, leg.args...), "--", helperBin, "burst", "200", "http://reg.test:"+p+"/pkg")...)
		got := strings.TrimSpace(r.stdout)
		var n int
		if _, err := fmt.Sscanf(got, "ok 200, %d retried", &n); err == nil && n <= 10 {
			t.Logf("%s: %s\n%s", leg.what, got, r.stderr)
			retried += n
		} else if got != "ok 200" {
			t.Errorf("%s: want ok 200:\n%v", leg.what, r)
		}
	}
	if n := len(srv.seen()); n < 400 || n > 400+retried {
		t.Errorf("the server saw %d requests", n)
	}
}

func TestNetworkBadRules(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--allow-host", ""}, `nsrun: --allow-host "": empty pattern`},
		{[]string{"--allow-host", "github.com:99999"}, `nsrun: --allow-host "github.com:99999": port "99999": want 1 to 65535`},
		{[]string{"--allow-host", "http://github.com"}, `nsrun: --allow-host "http://github.com": want a host name or address, not a URL`},
		{[]string{"--allow-host", "a.*.com"}, `nsrun: --allow-host "a.*.com": a wildcard is only allowed as a leading "*."`},
		{[]string{"--allow-host", "github.com", "--net", "host"}, "nsrun: --allow-host: filters the sandbox's own network namespace, and --net host has none: every host is reachable there"},
		{[]string{"--publish", "8080:80", "--net", "host"}, "nsrun: --publish: filters the sandbox's own network namespace, and --net host has none: every host is reachable there"},
		{[]string{"--publish", "8080"}, `nsrun: --publish "8080": want [HOSTADDR:]HOSTPORT:PORT`},
		{[]string{"--publish", "1.2.3:80:80"}, `nsrun: --publish "1.2.3:80:80": host address "1.2.3": want an IPv4 address, or IPv6 in brackets`},
		{[]string{"--publish", "8080:3128"}, `nsrun: --publish "127.0.0.1:8080:3128": port 3128 inside is nsrun's proxy`},
		{[]string{"--host-port", "udp:53"}, `nsrun: --host-port "udp:53": want PORT or FIRST-LAST (TCP only)`},
		{[]string{"--host-port", "53"}, `nsrun: --host-port "53": port 53 inside is nsrun's DNS`},
		{[]string{"--host-port", "1-2000"}, `nsrun: --host-port "1-2000": port 53 inside is nsrun's DNS`},
		{[]string{"--host-port", "4000-5100"}, `nsrun: --host-port "4000-5100": more than 1024 ports in all`},
		{[]string{"--publish", "8080:80", "--publish", "8080:81"}, `nsrun: --publish "127.0.0.1:8080:81": the host address and port are published twice`},
		{[]string{"--publish", "8080:5432", "--host-port", "5432"}, `nsrun: --publish "127.0.0.1:8080:5432": port 5432 inside is also a --host-port`},
		{[]string{"--add-host", "x.test"}, `nsrun: --add-host "x.test": want NAME=ADDRESS`},
		{[]string{"--add-host", "x.test=1.2.3"}, `nsrun: --add-host "x.test=1.2.3": "1.2.3" is not an IP address`},
		{[]string{"--allow-private-hosts"}, "nsrun: --allow-private-hosts: means nothing without --allow-host (or a host hook)"},
		{[]string{"--isolation", "landlock", "--publish", "8080:80"}, "nsrun: --publish: needs a network namespace, which --isolation landlock does not create"},
	} {
		r := run(t, "/", append(tc.args, "--", "/bin/echo", "ran")...)
		if r.code != 125 || r.stdout != "" || r.stderr != tc.want {
			t.Errorf("nsrun %q: exit %d, stdout %q, stderr %q; want 125 and %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
}

func TestNetworkLandlockProxy(t *testing.T) {
	srv := newHostServer(t)
	other := newHostServer(t)
	p, q := itoa(srv.port), itoa(other.port)
	r, rep := runNet(t, []string{"--isolation", "landlock", "--ro", filepath.Dir(helperBin), "--add-host", "reg.test=127.0.0.1", "--allow-host", "reg.test:" + p, "--allow-private-hosts"},
		curl+` http://reg.test:`+p+`/; echo " $?"
		`+curl+` -o /dev/null http://evil.test:`+p+`/ 2>/dev/null; echo "evil $?"
		`+curl+` -o /dev/null --noproxy '*' http://127.0.0.1:`+q+`/ 2>/dev/null; echo "direct $?"
		`+helperBin+` connect-udp 127.0.0.1:53
		`+helperBin+` inet-socket 2 17 # UDP
		`+helperBin+` inet-socket 1 132 # SCTP on a stream socket, which Landlock's TCP rules do not see
		`+helperBin+` inet-socket 1 262 # MPTCP
		`+helperBin+` inet-socket 3 1 # raw ICMP
		`+helperBin+` inet-socket 1 0
		`+helperBin+` fastopen `+q+`
		`+helperBin+` listen`)
	if r.code != 0 {
		t.Fatal(r)
	}
	out, listen := r.stdout, ""
	if i := strings.LastIndex(out, "\n"); i >= 0 {
		out, listen = out[:i], out[i+1:]
	}
	expect(t, "landlock", out, "hello reg.test 0\nevil 22\ndirect 7\nEACCES\nEACCES\nEACCES\nEACCES\nEACCES\nok\nEACCES")
	// listen() on a socket never bound would take a port of the host's:
	// the supervisor refuses it, or where it may not take the payload's
	// sockets (pidfd_getfd refused, as in Docker's profile), the report
	// says it is not enforced.
	unchecked := strings.Contains(strings.Join(rep.NotEnforced, "\n"), "listen() on a TCP socket never bound")
	if getfd := pidfdGetfdWorks(); unchecked == getfd || getfd != (listen == "EACCES") {
		t.Errorf("listen() never bound: %q, reported as not enforced: %v (pidfd_getfd allowed here: %v)", listen, unchecked, getfd)
	}
	if len(other.seen()) != 0 {
		t.Error("a direct connection left the Landlock-only sandbox")
	}
	if rep.Mode != "filtered" || rep.DNS != "" || !strings.HasPrefix(rep.Proxy, "127.0.0.1:") || fmt.Sprint(rep.Connections) != fmt.Sprintf("[{reg.test %s 1}]", p) {
		t.Errorf("report %+v", rep)
	}
	port := strings.TrimPrefix(rep.Proxy, "127.0.0.1:")
	if ne := strings.Join(rep.NotEnforced, "\n"); !strings.Contains(ne, "limited to port "+port+", the proxy's, but on any address") || !strings.Contains(ne, "no DNS and no transparent forwarding") {
		t.Errorf("not_enforced %q", rep.NotEnforced)
	}
	// The proxy is gone with nsrun.
	if c, err := net.Dial("tcp", rep.Proxy); err == nil {
		c.Close()
		t.Error("the proxy still listens after nsrun exited")
	}
}

// hostAddress is an IPv4 address of the host's outside its loopback, or
// "" when it has none.
func hostAddress(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	return ""
}

// An address rule is reached straight too, not only through the proxy:
// the sandbox's lo gets the address, and nsrun listens there on the
// rule's ports.
func TestNetworkAddressRuleStraight(t *testing.T) {
	srv := newHostServer(t)
	p := itoa(srv.port)
	script := curl + ` --noproxy '*' http://127.0.0.1:` + p + `/; echo " $?"
		` + curl + ` --noproxy '*' -o /dev/null http://127.0.0.1:` + itoa(freePort(t)) + `/ 2>/dev/null; echo "other port $?"`
	args := []string{"--allow-host", "127.0.0.1:" + p}
	want := "hello 127.0.0.1 0\nother port 7"
	ip := hostAddress(t)
	if ip != "" {
		ln, err := net.Listen("tcp", ip+":0")
		if err != nil {
			t.Fatal(err)
		}
		q := itoa(ln.Addr().(*net.TCPAddr).Port)
		srv2 := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello outside") })}
		go srv2.Serve(ln)
		defer srv2.Close()
		args = append(args, "--allow-host", ip+":"+q)
		script += "\n" + curl + ` --noproxy '*' http://` + ip + `:` + q + `/; echo " $?"
			` + curl + ` --noproxy '*' -o /dev/null http://` + ip + `:` + p + `/ 2>/dev/null; echo "other port $?"`
		want += "\nhello outside 0\nother port 7"
	} else {
		t.Log("the host has no address outside its loopback: only the loopback rule is tried")
	}
	r, rep := runNet(t, args, script)
	expect(t, "straight to allowed addresses", r.stdout, want)
	counted := false
	for _, c := range rep.Connections {
		counted = counted || c.Host == "127.0.0.1" && c.Port == srv.port
	}
	if !counted {
		t.Errorf("connections %+v, want one to 127.0.0.1:%d", rep.Connections, srv.port)
	}
}

// pidfdGetfdWorks says whether this process may take another's descriptors
// (tried on itself), which container profiles refuse without
// CAP_SYS_PTRACE.
func pidfdGetfdWorks() bool {
	pidfd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	defer unix.Close(pidfd)
	fd, err := unix.PidfdGetfd(pidfd, pidfd, 0)
	if err == nil {
		unix.Close(fd)
	}
	return err == nil
}
