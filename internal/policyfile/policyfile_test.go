package policyfile

import (
	"slices"
	"testing"
)

// TestSuggestedReadsBack: what Suggested writes, Parse reads, with the
// rules' paths kept and nothing but what was suggested set.
func TestSuggestedReadsBack(t *testing.T) {
	text, err := Suggested([]string{"--rw /data", "--net host", "--allow-connect 443", "--allow-connect 443", "--allow-host example.org"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse([]byte(text), "/elsewhere")
	if err != nil {
		t.Fatalf("%v in\n%s", err, text)
	}
	if len(f.Rules) != 1 || f.Rules[0] != (Rule{Path: "/data", Access: "rw"}) || f.Net != "host" {
		t.Errorf("read back %+v", f.Schema)
	}
	if len(f.AllowConnect) != 1 || f.AllowConnect[0].First != 443 || !slices.Equal(f.AllowHosts, []string{"example.org"}) {
		t.Errorf("read back %+v", f)
	}
	for _, k := range []string{"version", "rules", "net", "allow-connect", "allow-hosts"} {
		if !f.Set[k] {
			t.Errorf("%s not set", k)
		}
	}
	if len(f.Set) != 5 {
		t.Errorf("set %v", f.Set)
	}
	if _, err := Suggested([]string{"--tmpfs /x"}); err == nil {
		t.Error("an option with no policy-file form was written")
	}
}
