//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly || windows)

package sqlitestore

// fileLock does nothing on platforms without flock or LockFileEx: there the
// user must make sure one sandnet at a time uses a data directory.
type fileLock struct{}

func lockFile(string) (*fileLock, error) { return &fileLock{}, nil }

func (*fileLock) release() error { return nil }
