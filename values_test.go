package nsrun

import (
	"strings"
	"testing"
	"time"
)

func TestParseValues(t *testing.T) {
	for in, want := range map[string]Rlimit{
		"nofile=1024":        {Name: "nofile", Soft: 1024, Hard: 1024},
		"core=0":             {Name: "core"},
		"as=100:200":         {Name: "as", Soft: 100, Hard: 200},
		"cpu=10:unlimited":   {Name: "cpu", Soft: 10, Hard: RlimitInfinity},
		"stack=unlimited":    {Name: "stack", Soft: RlimitInfinity, Hard: RlimitInfinity},
		"memlock=0:infinity": {Name: "memlock", Soft: 0, Hard: RlimitInfinity},
	} {
		if got, err := ParseRlimit(in); err != nil || got != want {
			t.Errorf("ParseRlimit(%s) = %+v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"nofile", "files=1", "nofile=x", "nofile=10:5", "nofile=-1", "=1"} {
		if _, err := ParseRlimit(bad); err == nil {
			t.Errorf("ParseRlimit(%s) accepted", bad)
		}
	}
	for in, want := range map[string]uint64{"1": 1, "64M": 64 << 20, "2g": 2 << 30, "512K": 512 << 10} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%s) = %d, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "M", "0", "-1M", "1X", "99999999999T"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
	if d, err := ParseTimeout("90"); err != nil || d != 90*time.Second {
		t.Errorf("ParseTimeout(90) = %v, %v", d, err)
	}
	if r, err := ParsePortRange("udp:53-54"); err != nil || r != (PortRange{Proto: "udp", First: 53, Last: 54}) {
		t.Errorf("ParsePortRange = %+v, %v", r, err)
	}
	if _, err := ParseRlimit("x=1"); err == nil || !strings.Contains(err.Error(), "nofile") {
		t.Errorf("the error must list the names: %v", err)
	}
}
