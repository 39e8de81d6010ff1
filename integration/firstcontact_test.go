//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNetworkRefusedAddressSaid: an allowed name that resolves to a
// private address is refused, and nsrun says so on stderr without -v,
// once for the host however often and however it is asked, with the
// reason in the report.
func TestNetworkRefusedAddressSaid(t *testing.T) {
	quiet := curl + " -o /dev/null"
	// A report of its own (the last --report counts), to read the reasons.
	report := filepath.Join(workspace(t), "r.json")
	r, _ := runNet(t, []string{"--report", report, "--add-host", "priv.test=10.1.2.3", "--allow-host", "priv.test"},
		quiet+` http://priv.test/ 2>/dev/null; echo "proxy $?"
		`+quiet+` https://priv.test/ 2>/dev/null; echo "tunnel $?"
		`+quiet+` --noproxy '*' http://priv.test/ 2>/dev/null; echo "direct $?"`)
	expect(t, "outcomes (curl: 22 the proxy's 403, 6 no such name)", r.stdout, "proxy 22\ntunnel 22\ndirect 6")
	expect(t, "stderr", r.stderr, "nsrun: warning: network: refused priv.test:80: it resolves to 10.1.2.3, a private address, "+
		"which an allowed name may not lead to; --allow-host 10.1.2.3:80 (that address) or --allow-private-hosts lets it")
	var doc struct {
		Network struct {
			Denied []struct {
				Host   string `json:"host"`
				Port   int    `json:"port"`
				Reason string `json:"reason"`
			} `json:"denied"`
		} `json:"network"`
	}
	if b, err := os.ReadFile(report); err != nil || json.Unmarshal(b, &doc) != nil {
		t.Fatalf("report: %v %s", err, b)
	}
	found := false
	for _, d := range doc.Network.Denied {
		if d.Host == "priv.test" && d.Port == 80 {
			found = true
			expect(t, "the report's reason", d.Reason, "it resolves to 10.1.2.3, a private address (a rule naming the address, or private hosts allowed, lets it)")
		}
	}
	if !found {
		t.Errorf("no refusal of priv.test:80 in the report: %+v", doc.Network.Denied)
	}
	// -q keeps it quiet.
	r, _ = runNet(t, []string{"-q", "--add-host", "priv.test=10.1.2.3", "--allow-host", "priv.test"}, quiet+` http://priv.test/ 2>/dev/null; echo $?`)
	expect(t, "-q stderr", r.stderr, "")
}

// TestNetworkOffExplained: with no network (the agent preset's default),
// curl and npm ci fail at once, and nsrun says why, naming what would let the
// host through; nothing is reachable for all that.
func TestNetworkOffExplained(t *testing.T) {
	const why = "the sandbox has no network (--net none); --allow-host example.com lets it through nsrun's filter, --net host gives the sandbox the host's network"
	ws := workspace(t)
	agent := []string{"--preset", "agent", "--rw", ws, "--home", "private"}
	r, rep := runNet(t, agent, curl+` https://example.com/ 2>&1; echo "exit $?"
		`+curl+` --noproxy '*' https://example.com/ 2>&1; echo "exit $?"
		getent hosts example.com; echo "getent $?"`)
	expect(t, "curl through the proxy, then straight (curl: 22 the proxy's 403, 6 no such name, 28 a hang)", r.stdout,
		"curl: (22) The requested URL returned error: 403\nexit 22\ncurl: (6) Could not resolve host: example.com\nexit 6\ngetent 2")
	expect(t, "stderr", r.stderr, "nsrun: warning: network: refused example.com:443: "+why)
	if rep.Mode != "none" || len(rep.Connections) != 0 || len(rep.Denied) == 0 {
		t.Errorf("report %+v", rep)
	}

	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("no npm")
	}
	writeFile(t, filepath.Join(ws, "package.json"), `{"name":"p","version":"1.0.0","dependencies":{"left-pad":"1.3.0"}}`)
	writeFile(t, filepath.Join(ws, "package-lock.json"), `{"name":"p","version":"1.0.0","lockfileVersion":3,"requires":true,"packages":{
		"":{"name":"p","version":"1.0.0","dependencies":{"left-pad":"1.3.0"}},
		"node_modules/left-pad":{"version":"1.3.0","resolved":"https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",
		"integrity":"sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQEkpI5GN2EvHBNw5IbrAo7A1T0LAgD1xEmqO1ZHn2RyhjIw=="}}}`)
	// Before, npm retried an unresolvable registry for over a minute: a
	// loose bound tells a retry loop from an answer.
	r = runFor(t, 30*time.Second, ws, os.Environ(), nil, "--preset", "agent", "--rw", ws, "--home", "private", "--", "npm", "ci", "--no-audit", "--no-fund")
	if r.code <= 0 || !strings.Contains(r.stderr, "npm error code E403") ||
		!strings.Contains(r.stderr, "nsrun: warning: network: refused registry.npmjs.org:443: the sandbox has no network (--net none)") {
		t.Errorf("npm ci: want a failure at once, with nsrun's reason: %v", r)
	}
}

// TestAgentKeepsCertificatePaths: the agent preset removes variables by
// their names, except one that names a file of certificates (a CA
// bundle is no secret), and says on stderr which it removed.
func TestAgentKeepsCertificatePaths(t *testing.T) {
	a := newAgentEnv(t)
	ws := workspace(t)
	bundle := filepath.Join(ws, "ca.pem")
	writeFile(t, bundle, "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUfake\n-----END CERTIFICATE-----\n")
	token := filepath.Join(ws, "token")
	writeFile(t, token, "hunter2\n")
	env := append(a.env, "AWS_CA_BUNDLE="+bundle, "AWS_WEB_IDENTITY_TOKEN_FILE="+token, "GITHUB_TOKEN=hunter2")
	r := runClean(t, ws, env, "--preset", "agent", "--", "/bin/sh", "-c", `echo "${AWS_CA_BUNDLE-gone} ${AWS_WEB_IDENTITY_TOKEN_FILE-gone} ${GITHUB_TOKEN-gone}"`)
	expect(t, "the payload's variables", r.stdout, bundle+" gone gone")
	if !strings.Contains(r.stderr, "nsrun: warning: environment: removed AWS_WEB_IDENTITY_TOKEN_FILE, GITHUB_TOKEN (names of secrets; --keep-env NAME lets one through)") {
		t.Errorf("stderr: %v", r)
	}
}
