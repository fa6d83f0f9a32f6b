package auth

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// secretFileMode lets only the owner read the secret: anyone who can read
// it can mint tokens for every user.
const secretFileMode = 0o600

// maxSecretFile bounds how much of a secret file is read, so that pointing
// --auth-secret-file at something large fails fast.
const maxSecretFile = 4 << 10

// LoadOrCreateSecret returns the HS256 secret kept at path, creating it on
// first use, so that tokens minted by `sandnet token` keep working across
// restarts without the user managing a secret.
//
// The file holds the secret hex-encoded (surrounding whitespace ignored),
// which keeps it printable for LocalNet-style scripts that need the same
// secret. A new file gets [MinSecretLen] random bytes and mode 0600; it is
// written to a temporary file and linked into place, so a crash never
// leaves a half-written secret and two processes starting at once end up
// with the same one. An existing file readable by group or others is
// chmod-ed to 0600 rather than refused, because a loosened mode is usually
// an accident (a copy, an archive) and refusing would lock users out; its
// contents must decode to at least [MinSecretLen] bytes.
//
// Errors name the path but never include the file's contents.
func LoadOrCreateSecret(path string) ([]byte, error) {
	secret, err := readSecret(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return secret, err
	}
	return createSecret(path)
}

// readSecret reads and decodes an existing secret file, tightening its mode.
func readSecret(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // ErrNotExist is handled by the caller
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("auth: secret file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("auth: secret file %s is not a regular file", path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(secretFileMode); err != nil {
			return nil, fmt.Errorf("auth: secret file %s is readable by others and could not be restricted: %w", path, err)
		}
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return nil, fmt.Errorf("auth: reading secret file: %w", err)
	}
	if len(raw) > maxSecretFile {
		return nil, fmt.Errorf("auth: secret file %s is larger than %d bytes", path, maxSecretFile)
	}
	raw = bytes.TrimSpace(raw)
	secret := make([]byte, hex.DecodedLen(len(raw)))
	if _, err := hex.Decode(secret, raw); err != nil {
		// hex errors quote the offending byte; keep the contents private.
		return nil, fmt.Errorf("auth: secret file %s does not contain a hex-encoded secret", path)
	}
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("auth: secret in %s is %d bytes; it must be at least %d", path, len(secret), MinSecretLen)
	}
	return secret, nil
}

// createSecret writes a fresh random secret to path unless another process
// got there first, in which case it returns that one.
func createSecret(path string) ([]byte, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("auth: creating secret directory: %w", err)
	}
	secret := make([]byte, MinSecretLen)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("auth: generating secret: %w", err)
	}

	// os.CreateTemp creates the file with mode 0600.
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("auth: creating secret file: %w", err)
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName) // no-op once linked and removed, or renamed

	encoded := hex.AppendEncode(nil, secret)
	encoded = append(encoded, '\n')
	_, err = tmp.Write(encoded)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("auth: writing secret file: %w", err)
	}

	// A hard link publishes the complete file and, unlike rename, fails if
	// path already exists, so a concurrent creator's secret is never
	// replaced after it may have been used to mint tokens.
	switch err := os.Link(tmpName, path); {
	case err == nil:
	case errors.Is(err, fs.ErrExist):
		return readSecret(path)
	default:
		// Filesystems without hard links: fall back to rename, which is
		// still atomic but last-writer-wins.
		if err := os.Rename(tmpName, path); err != nil {
			return nil, fmt.Errorf("auth: installing secret file: %w", err)
		}
	}
	syncDir(dir)
	return secret, nil
}

// syncDir makes the new directory entry durable where the OS supports it;
// failure only risks losing a secret nobody has used yet, so it is ignored.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
