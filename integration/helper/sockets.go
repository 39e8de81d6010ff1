//go:build linux

package main

import (
	"fmt"
	"net"
	"strconv"

	"golang.org/x/sys/unix"
)

// loopback4 is 127.0.0.1 at port.
func loopback4(port string) *unix.SockaddrInet4 {
	p, _ := strconv.Atoi(port)
	return &unix.SockaddrInet4{Port: p, Addr: [4]byte{127, 0, 0, 1}}
}

// runSocket runs the operations that try to send or accept a byte on an
// inet socket without the calls Landlock checks. ok is false for an op
// this file does not know.
func runSocket(op string, args []string) (out string, ok bool, err error) {
	switch op {
	case "tfo": // tfo PORT: TCP Fast Open, "x" sent with sendto(MSG_FASTOPEN), no connect()
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return "", true, err
		}
		defer unix.Close(fd)
		return "ok", true, unix.Sendto(fd, []byte("x"), unix.MSG_FASTOPEN, loopback4(args[0]))
	case "tfo-sendmsg": // tfo-sendmsg PORT: the same through sendmsg
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return "", true, err
		}
		defer unix.Close(fd)
		_, err = unix.SendmsgN(fd, []byte("x"), nil, loopback4(args[0]), unix.MSG_FASTOPEN)
		return "ok", true, err
	case "tfo-connect": // tfo-connect PORT: TCP_FASTOPEN_CONNECT, connect, write "x"
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return "", true, err
		}
		defer unix.Close(fd)
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_FASTOPEN_CONNECT, 1); err != nil {
			return "", true, err
		}
		if err := unix.Connect(fd, loopback4(args[0])); err != nil {
			return "", true, err
		}
		_, err = unix.Write(fd, []byte("x"))
		return "ok", true, err
	case "listen": // listen: on a socket never bound (the kernel picks the port); prints the port
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return "", true, err
		}
		defer unix.Close(fd)
		if err := unix.Listen(fd, 1); err != nil {
			return "", true, err
		}
		sa, err := unix.Getsockname(fd)
		if err != nil {
			return "", true, err
		}
		return fmt.Sprintf("ok %d", sa.(*unix.SockaddrInet4).Port), true, nil
	case "serve-ready": // serve-ready PORT: listen on 127.0.0.1:PORT, print "ready", then what one client sends
		ln, err := net.Listen("tcp4", "127.0.0.1:"+args[0])
		if err != nil {
			return "", true, err
		}
		defer ln.Close()
		fmt.Println("ready")
		c, err := ln.Accept()
		if err != nil {
			return "", true, err
		}
		defer c.Close()
		b := make([]byte, 16)
		n, err := c.Read(b)
		return string(b[:n]), true, err
	case "udp", "udplite": // udp PORT: one datagram "x" to 127.0.0.1:PORT
		proto := 0
		if op == "udplite" {
			proto = unix.IPPROTO_UDPLITE
		}
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, proto)
		if err != nil {
			return "", true, err
		}
		defer unix.Close(fd)
		return "ok", true, unix.Sendto(fd, []byte("x"), 0, loopback4(args[0]))
	case "ping": // ping: an ICMP echo request to 127.0.0.1 through a ping socket
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.IPPROTO_ICMP)
		if err != nil {
			return "", true, err
		}
		defer unix.Close(fd)
		echo := []byte{8, 0, 0, 0, 0, 0, 0, 1, 'x'}
		return "ok", true, unix.Sendto(fd, echo, 0, loopback4("0"))
	case "socket": // socket DOMAIN TYPE PROTOCOL: create it only
		var n [3]int
		for i := range n {
			n[i], _ = strconv.Atoi(args[i])
		}
		fd, err := unix.Socket(n[0], n[1], n[2])
		if err == nil {
			unix.Close(fd)
		}
		return "ok", true, err
	}
	return "", false, nil
}
