package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// parseStart parses a start command line as main does.
func parseStart(t *testing.T, args ...string) (StartCmd, error) {
	t.Helper()
	var cli CLI
	parser, err := newParser(&cli)
	if err != nil {
		t.Fatal(err)
	}
	_, err = parser.Parse(append([]string{"start"}, args...))
	return cli.Start, err
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sandnet.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfigPrecedence: a flag beats its environment variable, which
// beats the network file, which beats the default. Not parallel: it sets
// environment variables.
func TestConfigPrecedence(t *testing.T) {
	file := writeFile(t, `
listen: 127.0.0.1:1111
dataDir: /tmp/from-file
corsOrigins: [http://a.example, http://b.example]
scan: {snapshotPeriod: 1h}
log: {level: debug}
auth: {mode: none, audience: file-aud}
network:
  seed: file-seed
  svs: 2
  preapprovals: true
`)
	for _, tc := range []struct {
		name  string
		env   map[string]string
		args  []string
		check func(t *testing.T, c StartCmd)
	}{
		{"file over defaults", nil, nil, func(t *testing.T, c StartCmd) {
			if c.Listen != "127.0.0.1:1111" || c.DataDir != "/tmp/from-file" || c.SnapshotPeriod != time.Hour || c.LogLevel != "debug" ||
				c.Auth != "none" || c.AuthAud != "file-aud" || c.NetworkSeed != "file-seed" || c.SVs != 2 || !c.SeedPreapprovals ||
				!slices.Equal(c.CORSOrigins, []string{"http://a.example", "http://b.example"}) {
				t.Errorf("%+v", c)
			}
			if c.LogFormat != "text" || c.ListLimit != 200 || c.DBSchema != "sandnet" {
				t.Errorf("defaults the file leaves alone: %+v", c)
			}
		}},
		{"env over file", map[string]string{"SANDNET_LISTEN": "127.0.0.1:2222", "SANDNET_SVS": "3", "SANDNET_LOG_LEVEL": "warn"}, nil, func(t *testing.T, c StartCmd) {
			if c.Listen != "127.0.0.1:2222" || c.SVs != 3 || c.LogLevel != "warn" || c.NetworkSeed != "file-seed" {
				t.Errorf("%+v", c)
			}
		}},
		{"flag over env and file", map[string]string{"SANDNET_LISTEN": "127.0.0.1:2222"}, []string{"--listen", "127.0.0.1:3333", "--svs", "5", "--network-seed", "flag-seed"}, func(t *testing.T, c StartCmd) {
			if c.Listen != "127.0.0.1:3333" || c.SVs != 5 || c.NetworkSeed != "flag-seed" || c.AuthAud != "file-aud" {
				t.Errorf("%+v", c)
			}
		}},
		{"config from the environment", map[string]string{"SANDNET_CONFIG": file}, []string{}, func(t *testing.T, c StartCmd) {
			if c.Listen != "127.0.0.1:1111" || string(c.Config) != file {
				t.Errorf("%+v", c)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			args := tc.args
			if _, ok := tc.env["SANDNET_CONFIG"]; !ok {
				args = append([]string{"--config", file}, args...)
			}
			c, err := parseStart(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

// TestConfigErrors: a bad file fails the command line with the file, the
// line and the field.
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, content, want string
	}{
		{"unknown key", "listen: x\nlisen: y\n", ":2: lisen: unknown key"},
		{"bad balance", "network:\n  validators:\n    - name: validator\n      users:\n        - name: alice\n          balance: abc\n", `:6: network.validators[0].users[0].balance: "abc" is not a decimal number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFile(t, tc.content)
			_, err := parseStart(t, "--config", file)
			if err == nil || !strings.Contains(err.Error(), file+tc.want) {
				t.Fatalf("got %v, want %s%s", err, file, tc.want)
			}
		})
	}
	if _, err := parseStart(t, "--config", filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("a missing file: %v", err)
	}
}
