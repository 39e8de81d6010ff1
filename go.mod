module github.com/nsrun/nsrun

go 1.26.8

require (
	github.com/landlock-lsm/go-landlock v0.11.2
	github.com/moby/profiles/seccomp v0.3.0
	github.com/moby/sys/userns v0.2.1
	github.com/opencontainers/runtime-spec v1.3.0
	github.com/seccomp/libseccomp-golang v0.11.1
	golang.org/x/sys v0.50.0
)

require kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
