package ledger_test

import (
	"context"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// A hosting change is ordered like a transaction: an update id from the
// next sequence number, an increasing record time, and the next offset of
// each participant whose hosting changes, which sees the events about
// itself.
func TestAllocatePartyIsATopologyTransaction(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	st := b.net.Store()
	stream := func(p ledger.ParticipantID, parties ...daml.Party) []ledger.ParticipantUpdate {
		t.Helper()
		ups, err := st.Updates(ctx, ledger.UpdateQuery{Participant: p, Parties: parties})
		if err != nil {
			t.Fatal(err)
		}
		return ups
	}
	p1 := stream(b.p1)
	if len(p1) != 2 {
		t.Fatalf("p1 stream after setup: %+v", p1)
	}
	for i, want := range []daml.Party{b.bank, b.alice} {
		tt := p1[i].Topology
		if tt == nil || p1[i].Transaction != nil || len(tt.Events) != 1 {
			t.Fatalf("p1 update %d = %+v, want a topology transaction", i+1, p1[i])
		}
		e := tt.Events[0]
		if e != (ledger.TopologyEvent{Kind: ledger.AuthorizationAdded, Party: want, Participant: b.p1, Permission: ledger.PermissionSubmission}) {
			t.Errorf("p1 update %d event = %+v", i+1, e)
		}
		if _, err := st.Transaction(ctx, tt.UpdateID); err == nil {
			t.Errorf("Transaction(%s) found a topology transaction", tt.UpdateID)
		}
	}
	if a, c := p1[0].Topology, p1[1].Topology; a.RecordTime >= c.RecordTime || a.UpdateID == c.UpdateID || a.Synchronizer == "" {
		t.Errorf("topology transactions not ordered: %+v then %+v", a, c)
	}
	// The per-party index holds the topology transaction about alice.
	if ups := stream(b.p1, b.alice); len(ups) != 1 || ups[0].Offset != 2 {
		t.Errorf("p1 stream for alice = %+v, want her allocation at 2", ups)
	}

	// Allocating again with the same hostings changes nothing.
	head, _ := st.Head(ctx)
	if _, err := b.net.AllocateParty(ctx, ledger.PartySpec{Hint: "alice", Namespace: nsOf(b.alice), Hosts: []ledger.Hosting{{Participant: b.p1}}}); err != nil {
		t.Fatal(err)
	}
	if h, _ := st.Head(ctx); h.Sequence != head.Sequence || h.Offsets[b.p1] != head.Offsets[b.p1] {
		t.Errorf("re-allocating alice made an update: head %+v, was %+v", h, head)
	}

	// Hosting alice on p2 too goes to p2 only; changing bob's permission
	// on p2 is a change.
	if _, err := b.net.AllocateParty(ctx, ledger.PartySpec{Hint: "alice", Namespace: nsOf(b.alice), Hosts: []ledger.Hosting{
		{Participant: b.p1}, {Participant: b.p2, Permission: ledger.PermissionObservation},
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.net.AllocateParty(ctx, ledger.PartySpec{Hint: "bob", Namespace: nsOf(b.bob), Hosts: []ledger.Hosting{
		{Participant: b.p2, Permission: ledger.PermissionConfirmation},
	}}); err != nil {
		t.Fatal(err)
	}
	if h, _ := st.Head(ctx); h.Sequence != head.Sequence+2 || h.Offsets[b.p1] != head.Offsets[b.p1] || h.Offsets[b.p2] != head.Offsets[b.p2]+2 {
		t.Errorf("head after two hosting changes on p2 = %+v, was %+v", h, head)
	}
	p2 := stream(b.p2)
	if len(p2) != 3 {
		t.Fatalf("p2 stream = %+v", p2)
	}
	want := []ledger.TopologyEvent{
		{Kind: ledger.AuthorizationAdded, Party: b.alice, Participant: b.p2, Permission: ledger.PermissionObservation},
		{Kind: ledger.AuthorizationChanged, Party: b.bob, Participant: b.p2, Permission: ledger.PermissionConfirmation},
	}
	for i, w := range want {
		tt := p2[i+1].Topology
		if tt == nil || len(tt.Events) != 1 || tt.Events[0] != w {
			t.Errorf("p2 update %d = %+v, want %+v", i+2, tt, w)
		}
	}
	hs := b.net.HostingsOf(b.bob)
	if len(hs) != 1 || hs[0].Permission != ledger.PermissionConfirmation {
		t.Errorf("bob's hostings = %+v", hs)
	}
}

func nsOf(p daml.Party) string {
	s := string(p)
	for i := len(s) - 1; i > 0; i-- {
		if s[i] == ':' && s[i-1] == ':' {
			return s[i+1:]
		}
	}
	return ""
}
