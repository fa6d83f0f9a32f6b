package auth

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestLoadOrCreateSecretCreatesThenRereads(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "data", "auth-secret")
	first, err := LoadOrCreateSecret(path)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if len(first) != MinSecretLen {
		t.Errorf("new secret is %d bytes; want %d", len(first), MinSecretLen)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("secret file mode = %v; want 0600", fi.Mode().Perm())
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(raw)); got != hex.EncodeToString(first) {
		t.Errorf("file holds %q; want the hex of the secret", got)
	}
	again, err := LoadOrCreateSecret(path)
	if err != nil {
		t.Fatalf("re-read: %v", err)
	}
	if !bytes.Equal(first, again) {
		t.Error("re-read secret differs from the created one")
	}
	if _, err := NewHMAC(again, ""); err != nil {
		t.Errorf("NewHMAC(created secret): %v", err)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries; want only the secret (no temp files left)", len(entries))
	}
}

func TestLoadOrCreateSecretConcurrentCreatorsAgree(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "secret")
	secrets := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range secrets {
		wg.Go(func() {
			s, err := LoadOrCreateSecret(path)
			if err != nil {
				t.Errorf("LoadOrCreateSecret: %v", err)
			}
			secrets[i] = s
		})
	}
	wg.Wait()
	for i, s := range secrets {
		if !bytes.Equal(s, secrets[0]) {
			t.Fatalf("creator %d got a different secret", i)
		}
	}
}

func TestLoadOrCreateSecretTightensMode(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	path := filepath.Join(t.TempDir(), "secret")
	want := bytes.Repeat([]byte{0xab}, 40)
	if err := os.WriteFile(path, []byte(hex.EncodeToString(want)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil { // beat the umask
		t.Fatal(err)
	}
	got, err := LoadOrCreateSecret(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("existing secret not returned as written")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after load = %v; want 0600", fi.Mode().Perm())
	}
}

func TestLoadOrCreateSecretRejectsBadFiles(t *testing.T) {
	t.Parallel()
	const private = "super-secret-passphrase-do-not-print-me"
	for _, tc := range []struct {
		name    string
		content string
	}{
		{"not hex", private},
		{"too short", hex.EncodeToString([]byte("short"))},
		{"empty", ""},
		{"too large", strings.Repeat("ab", maxSecretFile)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "secret")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadOrCreateSecret(path)
			if err == nil {
				t.Fatal("LoadOrCreateSecret succeeded; want error")
			}
			if strings.Contains(err.Error(), private) || (tc.content != "" && strings.Contains(err.Error(), tc.content)) {
				t.Errorf("error %q leaks the file's contents", err)
			}
		})
	}
	t.Run("directory", func(t *testing.T) {
		t.Parallel()
		if _, err := LoadOrCreateSecret(t.TempDir()); err == nil {
			t.Error("LoadOrCreateSecret(directory) succeeded")
		}
	})
}
