package validator_test

import (
	"context"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// TestTapCommandID taps with a command id twice: the ledger deduplicates
// the second, so the wallet is tapped once; another command id, another
// wallet or no command id taps again.
func TestTapCommandID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	alice, bob := e.wallet(t, "alice"), e.wallet(t, "bob")
	count := func() int {
		_, hs, err := e.v.Holdings(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		return len(hs)
	}
	before := count()
	if _, err := e.v.Tap(ctx, alice, num("1.0"), "tap-1"); err != nil {
		t.Fatal(err)
	}
	_, err := e.v.Tap(ctx, alice, num("1.0"), "tap-1")
	if f, ok := fault.As(err); !ok || f.Kind != fault.AlreadyExists || f.Code != ledger.CodeDuplicateCommand {
		t.Fatalf("second tap with the same command id: %v; want DUPLICATE_COMMAND", err)
	}
	if got := count(); got != before+1 {
		t.Fatalf("alice has %d amulets after two taps with one command id; want %d", got, before+1)
	}
	for _, tap := range []struct {
		name string
		w    func() error
	}{
		{"another command id", func() error { _, err := e.v.Tap(ctx, alice, num("1.0"), "tap-2"); return err }},
		{"no command id", func() error { _, err := e.v.Tap(ctx, alice, num("1.0"), ""); return err }},
		{"no command id again", func() error { _, err := e.v.Tap(ctx, alice, num("1.0"), ""); return err }},
		{"another wallet", func() error { _, err := e.v.Tap(ctx, bob, num("1.0"), "tap-1"); return err }},
	} {
		if err := tap.w(); err != nil {
			t.Errorf("%s: %v", tap.name, err)
		}
	}
	if got := count(); got != before+4 {
		t.Errorf("alice has %d amulets; want %d", got, before+4)
	}
}
