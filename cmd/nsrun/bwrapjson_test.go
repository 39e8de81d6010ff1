package main

import (
	"strings"
	"testing"
)

// TestWriteBwrapJSON holds both status layouts to bubblewrap's bytes.
func TestWriteBwrapJSON(t *testing.T) {
	started := []jsonMember{{"child-pid", 42}, {"mnt-namespace", 4026531841}, {"pid-namespace", 7}}
	for _, c := range []struct {
		name    string
		layout  jsonLayout
		members []jsonMember
		want    string
	}{
		{"info", infoLayout, started, "{\n    \"child-pid\": 42,\n    \"mnt-namespace\": 4026531841,\n    \"pid-namespace\": 7\n}\n"},
		{"status", statusLayout, started, "{ \"child-pid\": 42, \"mnt-namespace\": 4026531841, \"pid-namespace\": 7 }\n"},
		{"exit code", statusLayout, []jsonMember{{"exit-code", 3}}, "{ \"exit-code\": 3 }\n"},
		{"info, pid alone", infoLayout, started[:1], "{\n    \"child-pid\": 42\n}\n"},
	} {
		var b strings.Builder
		if err := writeBwrapJSON(&b, c.layout, c.members); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s: got %q, want %q", c.name, b.String(), c.want)
		}
	}
}
