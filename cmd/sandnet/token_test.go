package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store/pgstore"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// putUser adds a participant and its user id to the ledger store s.
func putUser(t *testing.T, s ledger.Store, id string) {
	t.Helper()
	ctx := t.Context()
	p := ledger.Participant{ID: ledger.NewParticipantID("validator", ledger.Fingerprint("token-test", "p")), Name: "validator"}
	if err := s.Write(ctx, func(w ledger.WriteTx) error {
		if err := w.PutParticipant(ctx, p); err != nil {
			return err
		}
		return w.PutUser(ctx, ledger.User{ID: id, Participant: p.ID})
	}); err != nil {
		t.Fatal(err)
	}
}

// TestTokenWarnsOfAnUnknownUser mints tokens for users that exist and do
// not, on SQLite (with the store open, as a running sandnet holds it) and
// on PostgreSQL: the token is always printed on stdout, and a user the
// network does not have is named on stderr.
func TestTokenWarnsOfAnUnknownUser(t *testing.T) {
	t.Parallel()
	const secret = "a-token-test-secret-of-32-bytes-or-more"
	dir := t.TempDir()
	st, err := sqlitestore.OpenLedger(t.Context(), filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	putUser(t, st, "alice")
	if _, err := auth.LoadOrCreateSecret(filepath.Join(dir, "auth-secret")); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()

	type tc struct {
		name     string
		cmd      TokenCmd
		wantWarn string // a part of the warning; "" for none
	}
	cases := []tc{
		{name: "an existing user", cmd: TokenCmd{User: "alice", DataDir: dir}},
		{name: "an unknown user", cmd: TokenCmd{User: "alcie", DataDir: dir},
			wantWarn: `sandnet token: user "alcie" does not exist on this network (yet); create it with: sandnet admin create-user alcie`},
		{name: "no network in the data directory", cmd: TokenCmd{User: "alice", DataDir: empty, AuthSecret: secret},
			wantWarn: `sandnet token: user "alice" does not exist on this network (yet); there is no network in ` + empty},
		{name: "a long user id is quoted short", cmd: TokenCmd{User: strings.Repeat("u", 4096), DataDir: dir},
			wantWarn: "…(4096 bytes) does not exist"},
	}
	if url := testDatabaseURL(t); url != "" {
		prefix := schemaPrefix(t, url, "token")
		pg, err := pgstore.OpenLedger(t.Context(), url, prefix+"_ledger")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pg.Close() })
		putUser(t, pg, "bob")
		cases = append(cases,
			tc{name: "PostgreSQL: an existing user", cmd: TokenCmd{User: "bob", DataDir: dir, DatabaseURL: url, DBSchema: prefix}},
			tc{name: "PostgreSQL: an unknown user", cmd: TokenCmd{User: "alice", DataDir: dir, DatabaseURL: url, DBSchema: prefix},
				wantWarn: `sandnet token: user "alice" does not exist on this network (yet)`},
			tc{name: "PostgreSQL: no such schema", cmd: TokenCmd{User: "bob", DataDir: dir, DatabaseURL: url, DBSchema: prefix + "_none"},
				wantWarn: "there is no network in the PostgreSQL schema " + prefix + "_none_ledger"},
		)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.cmd.TTL = time.Hour
			var stdout, stderr bytes.Buffer
			if err := c.cmd.run(t.Context(), &stdout, &stderr); err != nil {
				t.Fatalf("run: %v", err)
			}
			if tok := strings.TrimSpace(stdout.String()); strings.Count(tok, ".") != 2 || strings.Contains(tok, "\n") {
				t.Errorf("stdout %q is not one token", stdout.String())
			}
			got := stderr.String()
			if c.wantWarn == "" && got != "" || c.wantWarn != "" && !strings.Contains(got, c.wantWarn) {
				t.Errorf("stderr = %q, want it to contain %q", got, c.wantWarn)
			}
			if len(got) > 1<<10 {
				t.Errorf("a warning of %d bytes", len(got))
			}
		})
	}
}
