//go:build linux

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// netOp runs the network operations; ok is false for an op it does not
// know.
func netOp(op string, args []string) (out string, ok bool, err error) {
	switch op {
	case "serve": // serve PORT: answer "hello from inside" on 127.0.0.1:PORT, after printing ready
		ln, err := net.Listen("tcp", "127.0.0.1:"+args[0])
		if err != nil {
			return "", true, err
		}
		fmt.Println("ready")
		for {
			c, err := ln.Accept()
			if err != nil {
				return "", true, err
			}
			go func() {
				defer c.Close()
				fmt.Fprintln(c, "hello from inside")
			}()
		}
	case "raw": // raw HOST:PORT QUOTED-DATA: connect, send, print the first line back
		data, err := strconv.Unquote(`"` + args[1] + `"`)
		if err != nil {
			return "", true, err
		}
		c, err := net.DialTimeout("tcp", args[0], 10*time.Second)
		if err != nil {
			return "", true, err
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, data); err != nil {
			return "", true, err
		}
		l, err := bufio.NewReader(c).ReadString('\n')
		if err != nil && l == "" {
			return "", true, err
		}
		return strings.TrimSpace(l), true, nil
	case "burst": // burst N URL: N GETs at once, through the proxy variables; "ok N" when all answer 200
		// A request reset, or answered 502 by the proxy, is tried once more
		// and counted: under a machine's full load about one in a hundred
		// is (see TestNetworkBurst); the test bounds how many may be.
		n, _ := strconv.Atoi(args[0])
		client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{
			Proxy: http.ProxyFromEnvironment, MaxConnsPerHost: n, MaxIdleConnsPerHost: n, DisableKeepAlives: true}}
		get := func() error {
			resp, err := client.Get(args[1])
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				return err
			}
			if resp.StatusCode == http.StatusBadGateway {
				return fmt.Errorf("%w: %s", errBadGateway, strings.TrimSpace(string(body)))
			}
			if resp.StatusCode != 200 {
				return fmt.Errorf("status %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
			}
			return nil
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var first, firstReset error
		good, retried := 0, 0
		start := make(chan struct{})
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				err := get()
				var reset error
				if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, errBadGateway) {
					reset, err = err, get()
				}
				mu.Lock()
				defer mu.Unlock()
				if reset != nil {
					retried++
					if firstReset == nil {
						firstReset = reset
					}
				}
				if err == nil {
					good++
				} else if first == nil {
					first = err
				}
			}()
		}
		close(start)
		wg.Wait()
		if first != nil {
			return "", true, fmt.Errorf("%d of %d failed, the first: %w", n-good, n, first)
		}
		if retried > 0 {
			return fmt.Sprintf("ok %d, %d retried after a reset or a 502 (the first: %v)", good, retried, firstReset), true, nil
		}
		return fmt.Sprintf("ok %d", good), true, nil
	case "connect-udp": // connect-udp HOST:PORT: a UDP socket connected there
		c, err := net.Dial("udp", args[0])
		if err == nil {
			c.Close()
		}
		return "ok", true, errnoOnly(err)
	case "inet-socket": // inet-socket TYPE PROTO: an AF_INET socket of that type and protocol
		typ, _ := strconv.Atoi(args[0])
		proto, _ := strconv.Atoi(args[1])
		fd, err := syscall.Socket(syscall.AF_INET, typ, proto)
		if err == nil {
			syscall.Close(fd)
		}
		return "ok", true, err
	case "fastopen": // fastopen PORT: data to 127.0.0.1:PORT with MSG_FASTOPEN, no connect()
		port, _ := strconv.Atoi(args[0])
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		if err != nil {
			return "", true, err
		}
		defer syscall.Close(fd)
		return "ok", true, syscall.Sendto(fd, []byte("x"), 0x20000000, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
	case "fds": // the number of descriptors this process has open
		ents, err := os.ReadDir("/proc/self/fd")
		return strconv.Itoa(len(ents)), true, err
	}
	return "", false, nil
}

// errnoOnly unwraps a net error down to its errno, for errnoName.
func errnoOnly(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return err
}

var errBadGateway = errors.New("status 502")
