package pgstore

import (
	"context"
	"testing"
	"time"
)

// TestLeadershipLostWithSession kills the leader's session from outside,
// as a failover or a network cut would: lost must close within the ping
// interval, and another store must then win.
func TestLeadershipLostWithSession(t *testing.T) {
	t.Parallel()
	url, schema := newSchema(t)
	a, err := OpenLedger(t.Context(), url, schema)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.leaseCheck = 50 * time.Millisecond
	b, err := OpenLedger(t.Context(), url, schema)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	lost, ok, err := a.TryLead(ctx)
	if err != nil || !ok {
		t.Fatalf("TryLead = %v, %v", ok, err)
	}
	var n int
	err = b.pool.QueryRow(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE application_name = $1`, "sandnet leader "+schema).Scan(&n)
	if err != nil || n != 1 {
		t.Fatalf("terminated %d leader sessions, err = %v; want 1", n, err)
	}
	select {
	case <-lost:
	case <-time.After(10 * time.Second):
		t.Fatal("leadership not reported lost after its session was killed")
	}
	ctxB, cancelB := context.WithCancel(t.Context())
	defer cancelB()
	// The server may need a moment to finish the killed backend.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, ok, err := b.TryLead(ctxB)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no new leader after the old one's session died")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
