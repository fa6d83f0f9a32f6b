package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	neturl "net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// defaultURL is the server the tests use when SANDNET_TEST_DATABASE_URL is
// unset: a local PostgreSQL with trust authentication, as CI starts it.
const defaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

var (
	reachOnce sync.Once
	reachErr  error
)

// databaseURL returns the test server's URL, or skips the test when there
// is none: SANDNET_TEST_DATABASE_URL=skip, or an unreachable server outside
// CI. In CI (CI=true) an unreachable server fails the test, so that a
// broken setup cannot pass as skipped tests.
func databaseURL(t testing.TB) string {
	t.Helper()
	url := os.Getenv("SANDNET_TEST_DATABASE_URL")
	if url == "skip" {
		t.Skip("SANDNET_TEST_DATABASE_URL=skip")
	}
	if url == "" {
		url = defaultURL
	}
	reachOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			reachErr = err
			return
		}
		reachErr = conn.Ping(ctx)
		conn.Close(ctx)
	})
	if reachErr != nil {
		shown := url // never print a password into test logs
		if u, err := neturl.Parse(url); err == nil {
			shown = u.Redacted()
		}
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL at %s is unreachable: %v", shown, reachErr)
		}
		t.Skipf("PostgreSQL at %s is unreachable (%v); set SANDNET_TEST_DATABASE_URL, or CI=true to make this fatal", shown, reachErr)
	}
	return url
}

// newSchema names a fresh schema and drops it when the test ends, after
// every store opened on it (cleanups run last-in first-out).
func newSchema(t testing.TB) (url, schema string) {
	t.Helper()
	url = databaseURL(t)
	var b [8]byte
	rand.Read(b[:])
	schema = "sandnet_test_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return url, schema
}
