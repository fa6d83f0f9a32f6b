package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartHints checks the commands sandnet start prints for reaching
// it: spelled with its own flags, so that they work as printed.
func TestStartHints(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// kong makes --data-dir absolute before the command sees it.
	abs := func(rel string) string { return filepath.Join(wd, rel) }
	outside := filepath.Join(filepath.Dir(filepath.Dir(wd)), "some where")
	base := StartCmd{DataDir: abs(".sandnet"), Auth: "hs256", DBSchema: "sandnet"}
	with := func(f func(c *StartCmd)) StartCmd {
		c := base
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name        string
		cfg         StartCmd
		addr        string
		wantToken   string
		wantAdmin   string
		notAnywhere string
	}{
		{name: "defaults", cfg: base, addr: "127.0.0.1:7575",
			wantToken: "sandnet token --user alice", wantAdmin: "sandnet admin network"},
		{name: "another data directory and port", cfg: with(func(c *StartCmd) { c.DataDir = abs("x") }), addr: "127.0.0.1:7600",
			wantToken: "sandnet token --data-dir ./x --user alice",
			wantAdmin: "sandnet admin --url http://127.0.0.1:7600 --data-dir ./x network"},
		{name: "a data directory outside the working directory", cfg: with(func(c *StartCmd) { c.DataDir = outside }), addr: "127.0.0.1:7575",
			wantToken: "sandnet token --data-dir '" + outside + "' --user alice",
			wantAdmin: "sandnet admin --data-dir '" + outside + "' network"},
		{name: "a wildcard listen address is reached on loopback", cfg: base, addr: "0.0.0.0:7601",
			wantToken: "sandnet token --user alice", wantAdmin: "sandnet admin --url http://127.0.0.1:7601 network"},
		{name: "IPv6", cfg: base, addr: "[::]:7575",
			wantToken: "sandnet token --user alice", wantAdmin: "sandnet admin --url http://[::1]:7575 network"},
		{name: "a given secret is named, not printed", cfg: with(func(c *StartCmd) { c.AuthSecret = "s3cret-s3cret-s3cret-s3cret-s3cret"; c.AuthAud = "my aud" }), addr: "127.0.0.1:7575",
			wantToken:   `sandnet token --auth-secret "$SANDNET_AUTH_SECRET" --auth-audience 'my aud' --user alice`,
			wantAdmin:   `sandnet admin --auth-secret "$SANDNET_AUTH_SECRET" --auth-audience 'my aud' network`,
			notAnywhere: "s3cret"},
		{name: "LocalNet's public secret is spelled out", cfg: with(func(c *StartCmd) { c.LocalNet = true; c.applyLocalNetDefaults() }), addr: "127.0.0.1:7575",
			wantToken: "sandnet token --auth-secret unsafe --auth-audience https://canton.network.global --user alice",
			wantAdmin: "sandnet admin --auth-secret unsafe --auth-audience https://canton.network.global network"},
		{name: "PostgreSQL: the secret is still in the data directory, the password is not printed",
			cfg: with(func(c *StartCmd) {
				c.DataDir = abs("pg")
				c.DatabaseURL = "postgres://app:hunter2@db:5432/net"
				c.DBSchema = "blue"
			}),
			addr:        "127.0.0.1:7575",
			wantToken:   "sandnet token --data-dir ./pg --database-url postgres://app:xxxxx@db:5432/net --database-schema blue --user alice",
			wantAdmin:   "sandnet admin --data-dir ./pg network",
			notAnywhere: "hunter2"},
		{name: "auth none: no token", cfg: with(func(c *StartCmd) { c.Auth = "none"; c.DataDir = abs("x") }), addr: "127.0.0.1:7600",
			wantAdmin: "sandnet admin --url http://127.0.0.1:7600 network"},
		{name: "JWKS: tokens come from the identity provider", cfg: with(func(c *StartCmd) { c.Auth = "jwks" }), addr: "127.0.0.1:7575",
			wantAdmin: `sandnet admin --token "$OPERATOR_TOKEN" network`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			token, admin, status := startHints(tc.cfg, tc.addr)
			wantStatus := strings.TrimSuffix(strings.Replace(tc.wantAdmin, "sandnet admin", "sandnet status", 1), " network")
			if status != wantStatus {
				t.Errorf("status hint\n got %s\nwant %s", status, wantStatus)
			}
			if token != tc.wantToken {
				t.Errorf("token hint\n got %s\nwant %s", token, tc.wantToken)
			}
			if admin != tc.wantAdmin {
				t.Errorf("admin hint\n got %s\nwant %s", admin, tc.wantAdmin)
			}
			if tc.notAnywhere != "" && strings.Contains(token+admin, tc.notAnywhere) {
				t.Errorf("a hint prints %q", tc.notAnywhere)
			}
		})
	}
}
