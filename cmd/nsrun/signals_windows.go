package main

import "os"

// forwardedSignals are passed on to the sandbox's payload.
var forwardedSignals = []os.Signal{os.Interrupt}
