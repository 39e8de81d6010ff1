package nsrun

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// FuzzReportRoundTrip: a report survives encoding and decoding unchanged.
func FuzzReportRoundTrip(f *testing.F) {
	f.Add("partial", "/", "/w", "full", 7, "default", 62, 3, 9, true, 1.5)
	f.Add("", "", "", "", 0, "", 0, 0, 0, false, 0.0)
	f.Fuzz(func(t *testing.T, enf, root, rw, ll string, abi int, prof string, blocked, code, sig int, timedOut bool, ms float64) {
		for _, s := range []string{enf, root, rw, ll, prof} {
			if !utf8.ValidString(s) {
				return // JSON carries text; nsrun's strings are paths and names in UTF-8
			}
		}
		r := Report{Version: 1, Backend: "linux", Enforcement: enf,
			Filesystem: FilesystemReport{Root: root, RW: []string{rw}, RO: []string{}, Deny: []string{}, Tmpfs: []string{}},
			Landlock:   LandlockReport{Status: ll, ABI: abi, Dropped: []string{}},
			Seccomp:    SeccompReport{Status: "full", Profile: prof, SyscallsBlocked: blocked},
			Exit:       ExitReport{Code: code, TimedOut: timedOut},
			TimingsMS:  TimingsReport{Setup: float64(int64(ms*1000)) / 1000}}
		if sig != 0 {
			r.Exit.Signal = &sig
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back Report
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r, back) {
			t.Fatalf("round trip:\n%+v\n%+v", r, back)
		}
	})
}

// FuzzParsePolicyFile: any file is a policy or an error, never a panic;
// every rule of a parsed file has a path and a known access and source.
func FuzzParsePolicyFile(f *testing.F) {
	f.Add([]byte(`{"version": 1, "rules": [{"path": "ws", "access": "rw"}], "net": "host", "timeout": "1m"}`))
	f.Add([]byte(`{"version": 1, "preset": "agent", "allow_connect": ["443"], "env": ["A=1"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := ParsePolicyFile(data, "/d")
		if err != nil {
			return
		}
		for _, r := range pf.Policy.Rules {
			if r.Path == "" || r.Access < ReadOnly || r.Access > BlockDevice || r.Source.rank() == 0 {
				t.Fatalf("bad rule %+v", r)
			}
		}
	})
}
