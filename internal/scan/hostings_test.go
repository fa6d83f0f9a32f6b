package scan_test

import (
	"context"
	"slices"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
)

// The Scan's participant-id lookups answer from the network's current
// topology: a new hosting, a permission change and a revocation show at
// once.
func TestParticipantsOfFollowHostingChanges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	svc := &scan.Service{Store: e.store, Source: e.src}
	alice := e.seeded.Users[0].Party
	sync := e.seeded.Synchronizer
	val, sv1 := e.seeded.Validator.Participant, e.seeded.SVs[0].Participant
	lookup := func() []ledger.ParticipantID {
		t.Helper()
		ps, err := svc.ParticipantsOf(ctx, sync, alice)
		if err != nil {
			t.Fatal(err)
		}
		return ps
	}
	if got := lookup(); !slices.Equal(got, []ledger.ParticipantID{val}) {
		t.Fatalf("alice's participants = %v; want the validator's", got)
	}
	if _, err := e.net.ChangeHosting(ctx, alice, sv1, ledger.PermissionObservation); err != nil {
		t.Fatal(err)
	}
	want := []ledger.ParticipantID{val, sv1}
	slices.Sort(want)
	if got := lookup(); !slices.Equal(got, want) {
		t.Errorf("alice's participants after hosting her on SV 1 = %v; want %v", got, want)
	}
	if _, err := e.net.ChangeHosting(ctx, alice, sv1, ledger.PermissionConfirmation); err != nil {
		t.Fatal(err)
	}
	if got := lookup(); !slices.Equal(got, want) {
		t.Errorf("alice's participants after a permission change = %v; want %v", got, want)
	}
	if _, err := e.net.RevokeHosting(ctx, alice, val); err != nil {
		t.Fatal(err)
	}
	if got := lookup(); !slices.Equal(got, []ledger.ParticipantID{sv1}) {
		t.Errorf("alice's participants after her revocation from the validator = %v; want SV 1's", got)
	}
	// Another synchronizer still knows nothing of her.
	if _, err := svc.ParticipantsOf(ctx, "other::1220ab", alice); !fault.Is(err, fault.NotFound) {
		t.Errorf("other synchronizer: %v; want NotFound", err)
	}
}
