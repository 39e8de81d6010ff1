package main

import (
	"net/url"
	"os"
	"path/filepath"
)

// defaultGoProxy is the go command's GOPROXY when none is set.
const defaultGoProxy = "https://proxy.golang.org,direct"

// hostGoModCache is where the host's go command keeps modules, as the
// environment says (GOMODCACHE, else the first GOPATH's pkg/mod, else
// HOME/go/pkg/mod); "" if it names no absolute path. The go command's
// own env file is not read: that would mean running it at every launch.
func hostGoModCache(getenv func(string) string) string {
	if c := getenv("GOMODCACHE"); filepath.IsAbs(c) {
		return c
	}
	if list := filepath.SplitList(getenv("GOPATH")); len(list) > 0 && filepath.IsAbs(list[0]) {
		return filepath.Join(list[0], "pkg", "mod")
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, "go", "pkg", "mod")
	}
	return ""
}

// goProxyOver is a GOPROXY that reads the modules the host has
// downloaded (the cache's download directory, a valid module proxy)
// before the proxies of current: the go command falls through to the
// next on a module the host lacks, and extracts what it finds into its
// own GOMODCACHE, nsrun's home, never into the host's.
func goProxyOver(download, current string) string {
	if current == "" {
		current = defaultGoProxy
	}
	return (&url.URL{Scheme: "file", Path: download}).String() + "," + current
}

// hostGoProxy is the envOp that offers a preset's payload the host's Go
// module cache, read-only under its own, or nil when the host has none.
func hostGoProxy(getenv func(string) string) *envOp {
	cache := hostGoModCache(getenv)
	if cache == "" {
		return nil
	}
	download := filepath.Join(cache, "cache", "download")
	if fi, err := os.Stat(download); err != nil || !fi.IsDir() {
		return nil
	}
	return &envOp{kind: envSet, key: "GOPROXY", value: goProxyOver(download, getenv("GOPROXY"))}
}
