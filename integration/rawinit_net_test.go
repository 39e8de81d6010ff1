//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRawInitAgreesOnTheNetwork: a filtered network is the raw init's
// (its socket factory and lo's addresses), and under both inits the same
// requests give the same answers: through the proxy to an allowed name on
// the host's loopback, straight to it (a listener made once the name is
// looked up), a refused one with its explanation, DNS, and the run's
// network report.
func TestRawInitAgreesOnTheNetwork(t *testing.T) {
	need(t)
	srv := newHostServer(t)
	p := itoa(srv.port)
	script := curl + ` http://reg.test:` + p + `/via-proxy; echo " $?"
		` + curl + ` --noproxy '*' http://reg.test:` + p + `/direct; echo " $?"
		` + curl + ` http://denied.test/; echo " $?"
		getent hosts reg.test | cut -d' ' -f1
		getent hosts denied.test; echo "getent: $?"`
	type outcome struct {
		r       result
		denials string
		report  string
	}
	runOne := func(init string) outcome {
		home := workspace(t)
		rep := filepath.Join(home, "report.json")
		r := runBase(t, "/", noShims(home), []string{"NSRUN_INIT=" + init}, "-v", "--report", rep,
			"--add-host", "reg.test=127.0.0.1", "--allow-host", "reg.test:"+p, "--allow-host", "127.0.0.1:"+p, "--", "/bin/sh", "-c", script)
		var o outcome
		for _, l := range strings.Split(r.stderr, "\n") {
			if strings.HasPrefix(l, "nsrun: network: denied") || strings.HasPrefix(l, "nsrun: warning: network") {
				o.denials += l + "\n"
			}
		}
		if init == "raw" {
			for _, l := range strings.Split(r.stderr, "\n") {
				if strings.HasPrefix(l, "nsrun: the Go init: ") {
					if strings.Contains(l, "network") || strings.Contains(l, "loopback") || strings.Contains(l, "socket factory") {
						t.Errorf("the network sent the launch to the Go init: %s", l)
					}
					t.Logf("the Go init ran: %s", l)
				}
			}
		}
		r.stderr = withoutLog(r.stderr)
		o.r = r
		var doc struct {
			Network netReport `json:"network"`
		}
		b, err := os.ReadFile(rep)
		if err != nil {
			t.Fatalf("%s init: report: %v\n%v", init, err, r)
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s init: report: %v", init, err)
		}
		o.report = fmt.Sprintf("%+v", doc.Network)
		return o
	}
	goRun, rawRun := runOne("go"), runOne("raw")
	if goRun.r.String() != rawRun.r.String() {
		t.Errorf("go init:\n%v\n\nraw init:\n%v\n\n%s", goRun.r, rawRun.r, firstDiff(goRun.r.String(), rawRun.r.String()))
	}
	if goRun.denials != rawRun.denials {
		t.Errorf("refusals:\n go: %s\nraw: %s", goRun.denials, rawRun.denials)
	}
	if goRun.report != rawRun.report {
		t.Errorf("network report:\n go: %s\nraw: %s", goRun.report, rawRun.report)
	}
	for _, w := range []string{"hello reg.test 0\nhello reg.test 0\n", "\n127.1.", "getent: 2"} {
		if !strings.Contains(rawRun.r.stdout, w) {
			t.Errorf("the output should hold %q:\n%v", w, rawRun.r)
		}
	}
	if !strings.Contains(rawRun.denials, "denied.test") {
		t.Errorf("no refusal of denied.test said: %q", rawRun.denials)
	}
	if got := srv.seen(); len(got) != 4 {
		t.Errorf("the server saw %q, want two requests of each run", got)
	}
	t.Logf("raw init:\n%v\n%s%s", rawRun.r, rawRun.denials, rawRun.report)
}
