package netproxy

import (
	"bufio"
	"bytes"
	"errors"
	"testing"
)

func TestSocksRequest(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       []byte
		host     string
		port     uint16
		code     int // the socksError code, -1 for none
		greeting []byte
	}{
		{"name", []byte{5, 1, 0, 5, 1, 0, 3, 10, 'g', 'i', 't', 'h', 'u', 'b', '.', 'c', 'o', 'm', 1, 187}, "github.com", 443, -1, []byte{5, 0}},
		{"ipv4", []byte{5, 2, 2, 0, 5, 1, 0, 1, 10, 0, 0, 1, 0, 80}, "10.0.0.1", 80, -1, []byte{5, 0}},
		{"ipv6", append(append([]byte{5, 1, 0, 5, 1, 0, 4}, make([]byte, 15)...), 1, 0, 22), "::1", 22, -1, []byte{5, 0}},
		{"bind", []byte{5, 1, 0, 5, 2, 0, 1, 0, 0, 0, 0, 0, 80}, "", 0, socksBadCommand, []byte{5, 0}},
		{"udp associate", []byte{5, 1, 0, 5, 3, 0, 1, 0, 0, 0, 0, 0, 80}, "", 0, socksBadCommand, []byte{5, 0}},
		{"address type", []byte{5, 1, 0, 5, 1, 0, 9, 0, 80}, "", 0, socksBadAddrType, []byte{5, 0}},
		{"port 0", []byte{5, 1, 0, 5, 1, 0, 1, 1, 2, 3, 4, 0, 0}, "1.2.3.4", 0, socksNotAllowed, []byte{5, 0}},
		{"auth only", []byte{5, 1, 2}, "", 0, -1, []byte{5, 0xff}},
	} {
		var w bytes.Buffer
		host, port, err := socksRequest(bufio.NewReader(bytes.NewReader(tc.in)), &w)
		var se *socksError
		switch {
		case tc.code >= 0:
			if !errors.As(err, &se) || int(se.code) != tc.code {
				t.Errorf("%s: %v, want code %d", tc.name, err, tc.code)
			}
		case tc.host == "":
			if err == nil {
				t.Errorf("%s: accepted", tc.name)
			}
		case err != nil || host != tc.host || port != tc.port:
			t.Errorf("%s: %s %d %v", tc.name, host, port, err)
		}
		if !bytes.Equal(w.Bytes(), tc.greeting) {
			t.Errorf("%s: greeting reply % x", tc.name, w.Bytes())
		}
	}
}
