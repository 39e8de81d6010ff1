//go:build !linux

package main

import (
	"errors"
	"os"

	"github.com/nsrun/nsrun/internal/bwrap"
)

var errBwrapLinux = errors.New("nsrun's bubblewrap mode needs Linux")

func readArgsFD(int) ([]byte, error) { return nil, errBwrapLinux }

func hostIDs() bwrap.Host { return bwrap.Host{UID: os.Getuid(), GID: os.Getgid()} }

func newBwrapHost() (bwrapHost, func(), error) { return bwrapHost{}, nil, errBwrapLinux }

func dieWithParent() error { return errBwrapLinux }

func blockOn(int) {}

func inheritedFiles([]int) ([]*os.File, error) { return nil, errBwrapLinux }

func lockFile(string, string) error { return errBwrapLinux }

func namespaceIDs(int, []string) []nsID { return nil }
