package main

import (
	"testing"
)

func TestHostGoModCache(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"GOMODCACHE": "/c", "GOPATH": "/g", "HOME": "/h"}, "/c"},
		{map[string]string{"GOMODCACHE": "rel", "GOPATH": "/g:/g2", "HOME": "/h"}, "/g/pkg/mod"},
		{map[string]string{"GOPATH": "rel", "HOME": "/h"}, "/h/go/pkg/mod"},
		{map[string]string{}, ""},
	} {
		if got := hostGoModCache(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestGoProxyOver(t *testing.T) {
	for _, tc := range []struct{ dir, current, want string }{
		{"/root/go/pkg/mod/cache/download", "", "file:///root/go/pkg/mod/cache/download,https://proxy.golang.org,direct"},
		{"/c/d", "https://goproxy.corp,off", "file:///c/d,https://goproxy.corp,off"},
		{"/a b/%d", "direct", "file:///a%20b/%25d,direct"},
	} {
		if got := goProxyOver(tc.dir, tc.current); got != tc.want {
			t.Errorf("goProxyOver(%q, %q) = %q, want %q", tc.dir, tc.current, got, tc.want)
		}
	}
}
