module github.com/nsrun/nsrun

go 1.26.8

require (
	github.com/moby/sys/userns v0.2.1
	golang.org/x/sys v0.50.0
)
