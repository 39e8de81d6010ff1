package nsrun

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/nsrun/nsrun/internal/values"
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

// TestValueBounds: a value out of range is refused with the reason (the
// bound), a syntax error with the syntax; the bounds themselves are taken.
func TestValueBounds(t *testing.T) {
	for _, c := range []struct {
		name  string
		parse func(string) error
		in    string
		want  string // "" accepts
	}{
		{"size", sizeOf, "9223372036854775807", ""},
		{"size", sizeOf, "8388607T", ""},
		{"size", sizeOf, "9223372036854775808", "above 9223372036854775807 bytes"},
		{"size", sizeOf, "9223372036854775809", "above 9223372036854775807 bytes"},
		{"size", sizeOf, "18446744073709551616", "above 9223372036854775807 bytes"},
		{"size", sizeOf, "8388608T", "above 9223372036854775807 bytes"},
		{"size", sizeOf, "99999999999T", "above 9223372036854775807 bytes"},
		{"size", sizeOf, "0", "above zero"},
		{"size", sizeOf, "0M", "above zero"},
		{"size", sizeOf, "12Q", "want a size such as 64M"},
		{"size", sizeOf, "-1", "want a size such as 64M"},
		{"pids", pidsOf, "4194304", ""},
		{"pids", pidsOf, "4194305", "from 1 to 4194304"},
		{"pids", pidsOf, "99999999999999999999", "from 1 to 4194304"},
		{"pids", pidsOf, "0", "from 1 to 4194304"},
		{"pids", pidsOf, "x", "want a number of processes"},
		{"cpu", cpuOf, "0.01", ""},
		{"cpu", cpuOf, "4096", ""},
		{"cpu", cpuOf, "0.5", ""},
		{"cpu", cpuOf, "NaN", "want a number of CPUs"},
		{"cpu", cpuOf, "Inf", "from 0.01 to 4096"},
		{"cpu", cpuOf, "0.009", "from 0.01 to 4096"},
		{"cpu", cpuOf, "4096.5", "from 0.01 to 4096"},
		{"cpu", cpuOf, "1e-300", "from 0.01 to 4096"},
		{"rlimit", rlimitOf, "nofile=18446744073709551615", ""},
		{"rlimit", rlimitOf, "nofile=18446744073709551616", "above 18446744073709551615"},
		{"rlimit", rlimitOf, "nofile=1:99999999999999999999", "above 18446744073709551615"},
		{"timeout", timeoutOf, "9223372036", ""},
		{"timeout", timeoutOf, "9223372037", "above 9223372036 seconds"},
		{"timeout", timeoutOf, "99999999999999999999", "above 9223372036 seconds"},
	} {
		err := c.parse(c.in)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %q refused: %v", c.name, c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %q: got %v, want an error saying %q", c.name, c.in, err, c.want)
		}
	}
}

func sizeOf(v string) error    { _, err := ParseSize(v); return err }
func pidsOf(v string) error    { _, err := ParsePids(v); return err }
func cpuOf(v string) error     { _, err := ParseCPU(v); return err }
func rlimitOf(v string) error  { _, err := ParseRlimit(v); return err }
func timeoutOf(v string) error { _, err := ParseTimeout(v); return err }

// TestPolicyValueBounds: the library refuses the values the parsers do,
// however they were set.
func TestPolicyValueBounds(t *testing.T) {
	for _, c := range []struct {
		p    Policy
		want string
	}{
		{Policy{TmpfsSize: MaxSize, Memory: MaxSize, Pids: MaxPids, CPU: MaxCPU}, ""},
		{Policy{TmpfsSize: MaxSize + 2}, "Policy.TmpfsSize"},
		{Policy{Memory: 1 << 63}, "Policy.Memory"},
		{Policy{Pids: MaxPids + 1}, "Policy.Pids"},
		{Policy{CPU: math.NaN()}, "Policy.CPU"},
		{Policy{CPU: 0.001}, "Policy.CPU"},
		{Policy{CPU: -1}, "Policy.CPU"},
	} {
		err := c.p.checkValues()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v refused: %v", c.p, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%+v: got %v, want an error about %s", c.p, err, c.want)
		}
	}
}

// TestValueBoundsAgree holds internal/values' bounds, which its readers and
// their error texts use, to the ones the root documents.
func TestValueBoundsAgree(t *testing.T) {
	if values.MaxSize != MaxSize || values.MaxPids != MaxPids || values.MinCPU != MinCPU || values.MaxCPU != MaxCPU || values.RlimitInfinity != RlimitInfinity {
		t.Error("internal/values' bounds differ from the root's")
	}
}
