//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly)

package ledgerapi_test

import "time"

// processCPU is not measured here.
func processCPU() (time.Duration, bool) { return 0, false }
