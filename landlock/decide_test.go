package landlock

import (
	"reflect"
	"testing"
)

const allErrata = ErratumTCP | ErratumSignalScope | ErratumDisconnected

// The request nsrun makes by default: every filesystem right up to
// IOCTL_DEV and both scopes; TCP when ports are restricted.
var (
	defaultRequest = Request{FS: Execute | WriteFile | ReadFile | ReadDir | RemoveDir | RemoveFile | MakeChar | MakeDir |
		MakeReg | MakeSock | MakeFifo | MakeBlock | MakeSym | Refer | Truncate | IoctlDev, Scope: AbstractUnixSocket | Signal}
	tcpRequest = Request{FS: defaultRequest.FS, Net: BindTCP | ConnectTCP, Scope: defaultRequest.Scope}
	udpRequest = Request{FS: defaultRequest.FS, Net: BindTCP | ConnectTCP | BindUDP | ConnectSendUDP, Scope: defaultRequest.Scope}
)

func TestDecideEveryABI(t *testing.T) {
	for _, tc := range []struct {
		req     Request
		abi     int
		status  string
		dropped []string
		minABI  int
	}{
		{defaultRequest, 0, "none", []string{"execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file", "make_char", "make_dir", "make_reg", "make_sock", "make_fifo", "make_block", "make_sym", "refer", "truncate", "ioctl_dev", "abstract_unix_socket", "signal"}, 6},
		{defaultRequest, 1, "partial", []string{"refer", "truncate", "ioctl_dev", "abstract_unix_socket", "signal"}, 6},
		{defaultRequest, 2, "partial", []string{"truncate", "ioctl_dev", "abstract_unix_socket", "signal"}, 6},
		{defaultRequest, 3, "partial", []string{"ioctl_dev", "abstract_unix_socket", "signal"}, 6},
		{defaultRequest, 4, "partial", []string{"ioctl_dev", "abstract_unix_socket", "signal"}, 6},
		{defaultRequest, 5, "partial", []string{"abstract_unix_socket", "signal"}, 6},
		{defaultRequest, 6, "full", nil, 6},
		{defaultRequest, 7, "full", nil, 6},
		{defaultRequest, 8, "full", nil, 6},
		{defaultRequest, 9, "full", nil, 6},
		{defaultRequest, 10, "full", nil, 6},
		{tcpRequest, 3, "partial", []string{"ioctl_dev", "bind_tcp", "connect_tcp", "abstract_unix_socket", "signal"}, 6},
		{tcpRequest, 4, "partial", []string{"ioctl_dev", "abstract_unix_socket", "signal"}, 6},
		{tcpRequest, 7, "full", nil, 6},
		{udpRequest, 7, "partial", []string{"bind_udp", "connect_send_udp"}, 10},
		{udpRequest, 9, "partial", []string{"bind_udp", "connect_send_udp"}, 10},
		{udpRequest, 10, "full", nil, 10},
		{Request{FS: ReadFile | ResolveUnix}, 7, "partial", []string{"resolve_unix"}, 9},
		{Request{FS: ReadFile | ResolveUnix}, 9, "full", nil, 9},
		{Request{}, 0, "full", nil, 0},
		{Request{Scope: Signal}, 5, "none", []string{"signal"}, 6},
	} {
		d := Decide(tc.req, tc.abi, allErrata)
		if d.Status != tc.status || !reflect.DeepEqual(d.Dropped, tc.dropped) || d.RequestedABI != tc.minABI || d.ABI != tc.abi {
			t.Errorf("ABI %d, %+v:\n got %s %v requested_abi %d\nwant %s %v requested_abi %d", tc.abi, tc.req, d.Status, d.Dropped, d.RequestedABI, tc.status, tc.dropped, tc.minABI)
		}
		if (d.Status == "full") != (d.Reason == "") {
			t.Errorf("ABI %d: status %s with reason %q", tc.abi, d.Status, d.Reason)
		}
		f, n, s := supported(tc.abi)
		if d.Handled.FS&^f != 0 || d.Handled.Net&^n != 0 || d.Handled.Scope&^s != 0 {
			t.Errorf("ABI %d: handles %+v beyond what the kernel offers", tc.abi, d.Handled)
		}
	}
}

// On ABI 1, a request with REFER must come out as enforced without REFER,
// never as full and never as nothing.
func TestDecideReferOnABI1(t *testing.T) {
	d := Decide(Request{FS: ReadFile | WriteFile | Refer}, 1, allErrata)
	if d.Handled.FS != ReadFile|WriteFile || d.Status != "partial" || !reflect.DeepEqual(d.Dropped, []string{"refer"}) {
		t.Errorf("%+v", d)
	}
}

func TestDecideErrata(t *testing.T) {
	d := Decide(tcpRequest, 7, ErratumSignalScope|ErratumDisconnected)
	if d.Status != "partial" || !reflect.DeepEqual(d.Dropped, []string{"tcp (erratum 1 not fixed)"}) || d.Handled != tcpRequest {
		t.Errorf("%+v", d)
	}
	d = Decide(defaultRequest, 7, 0)
	if d.Status != "partial" || len(d.Dropped) != 2 {
		t.Errorf("%+v", d)
	}
}

func TestRightNames(t *testing.T) {
	if got := (ReadExec).String(); got != "execute|read_file|read_dir" {
		t.Error(got)
	}
	if got := (BindTCP | ConnectSendUDP).String(); got != "bind_tcp|connect_send_udp" {
		t.Error(got)
	}
	if minABI(AllFS, 0, 0) != 9 || minABI(0, 0, 0) != 0 || minABI(0, 1<<9, 0) != NewestABI+1 {
		t.Error("minABI")
	}
}
