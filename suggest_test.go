package nsrun

import (
	"strings"
	"testing"
)

func TestDenialSummary(t *testing.T) {
	r := &Report{}
	if DenialSummary(r) != nil {
		t.Error("a summary without tracing")
	}
	r.Denials = []Denial{
		{Operation: "open for write", Path: "/usr/x", Errno: "EROFS", Rule: "read-only: host root", Allow: "--rw /usr", Count: 2},
		{Operation: "keyctl", Errno: "EPERM", Rule: "seccomp: keyctl", Count: 1},
	}
	r.DenialsDropped = 7
	r.Network = &NetworkReport{Denied: []NetworkCount{{Host: "example.com", Port: 443, Count: 3}}}
	want := []string{
		"denied 2x: open for write /usr/x: EROFS (read-only: host root); add --rw /usr",
		"denied 1x: keyctl: EPERM (seccomp: keyctl)",
		"denied: 7 more not listed (over 1000 distinct)",
		"denied 3x: connect example.com:443: refused by the filtered network (network.denied); add --allow-host example.com:443",
	}
	if got := DenialSummary(r); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSuggest(t *testing.T) {
	if _, err := Suggest(&Report{}); err == nil {
		t.Error("a report without denials gave suggestions")
	}
	r := &Report{Denials: []Denial{
		{Operation: "open for write", Path: "/usr/x", Errno: "EROFS", Rule: "read-only: host root", Allow: "--rw /usr", Count: 1},
		{Operation: "create", Path: "/usr/y", Errno: "EROFS", Rule: "read-only: host root", Allow: "--rw /usr", Count: 1},
		{Operation: "connect", Address: "192.0.2.1:9", Errno: "ENETUNREACH", Rule: "network: not allowed (--net none)", Allow: "--net host", Count: 1},
		{Operation: "keyctl", Errno: "EPERM", Rule: "seccomp: keyctl", Count: 1},
	}}
	s, err := Suggest(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Options) != 2 || s.Options[0].Option != "--rw /usr" || len(s.Options[0].Allows) != 2 || s.Options[1].Option != "--net host" {
		t.Errorf("options: %+v", s.Options)
	}
	if len(s.Unanswered) != 1 || !strings.HasPrefix(s.Unanswered[0], "keyctl: EPERM") {
		t.Errorf("unanswered: %q", s.Unanswered)
	}
	pf, err := ParsePolicyFile([]byte(s.PolicyFile), "/")
	if err != nil {
		t.Fatalf("the suggested policy file does not parse: %v\n%s", err, s.PolicyFile)
	}
	if pf.Policy.Net != NetHost || len(pf.Policy.Rules) != 1 || pf.Policy.Rules[0].Path != "/usr" || pf.Policy.Rules[0].Access != ReadWrite {
		t.Errorf("policy file: %+v", pf.Policy)
	}
}
