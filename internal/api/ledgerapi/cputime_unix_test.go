//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package ledgerapi_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, user and system: the
// benchmarks report it per command, a figure that other work on a shared
// machine changes far less than a rate.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
