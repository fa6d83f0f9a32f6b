package ledger_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store/pgstore"
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

// ChangeHosting and RevokeHosting are ordered like AllocateParty: one
// topology transaction each, in the stream of the participant whose
// hosting changes, and the routing of later transactions follows them.
func TestChangeAndRevokeHosting(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	st := b.net.Store()
	head := func() ledger.Head {
		t.Helper()
		h, err := st.Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	one := func(tts []*ledger.TopologyTransaction, err error) *ledger.TopologyTransaction {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if len(tts) != 1 {
			t.Fatalf("topology transactions = %+v; want one", tts)
		}
		return tts[0]
	}
	// last returns the last update of a participant's stream and its offset.
	last := func(p ledger.ParticipantID) ledger.ParticipantUpdate {
		t.Helper()
		ups, err := st.Updates(ctx, ledger.UpdateQuery{Participant: p})
		if err != nil || len(ups) == 0 {
			t.Fatalf("stream of %s: %v, %v", p, ups, err)
		}
		return ups[len(ups)-1]
	}
	check := func(what string, p ledger.ParticipantID, before ledger.Head, tt *ledger.TopologyTransaction, want ledger.TopologyEvent) {
		t.Helper()
		after := head()
		if after.Sequence != before.Sequence+1 || after.LastRecordTime != tt.RecordTime || tt.RecordTime <= before.LastRecordTime {
			t.Errorf("%s: head %+v after %+v, transaction %+v", what, after, before, tt)
		}
		for _, q := range []ledger.ParticipantID{b.p1, b.p2} {
			w := before.Offsets[q]
			if q == p {
				w++
			}
			if after.Offsets[q] != w {
				t.Errorf("%s: offset of %s = %d; want %d", what, q, after.Offsets[q], w)
			}
		}
		u := last(p)
		if u.Offset != after.Offsets[p] || u.Topology == nil || u.Topology.UpdateID != tt.UpdateID {
			t.Errorf("%s: last update of %s = %+v at %d; want %s", what, p, u.Topology, u.Offset, tt.UpdateID)
		}
		if len(tt.Events) != 1 || tt.Events[0] != want {
			t.Errorf("%s: events = %+v; want %+v", what, tt.Events, want)
		}
	}
	hostings := func(p daml.Party) map[ledger.ParticipantID]ledger.Permission {
		t.Helper()
		stored, err := st.Hostings(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		m := map[ledger.ParticipantID]ledger.Permission{}
		for _, h := range stored {
			m[h.Participant] = h.Permission
		}
		cached := map[ledger.ParticipantID]ledger.Permission{}
		for _, h := range b.net.HostingsOf(p) {
			cached[h.Participant] = h.Permission
		}
		if !maps.Equal(m, cached) {
			t.Errorf("hostings of %s: stored %v, cached %v", p, m, cached)
		}
		return m
	}

	// Adding alice on p2, then changing her permission there.
	h0 := head()
	tt := one(b.net.ChangeHosting(ctx, b.alice, b.p2, ledger.PermissionObservation))
	check("add", b.p2, h0, tt, ledger.TopologyEvent{Kind: ledger.AuthorizationAdded, Party: b.alice, Participant: b.p2, Permission: ledger.PermissionObservation})
	h1 := head()
	if tts, err := b.net.ChangeHosting(ctx, b.alice, b.p2, ledger.PermissionObservation); err != nil || len(tts) != 0 {
		t.Errorf("unchanged hosting: %+v, %v; want no update", tts, err)
	}
	if h := head(); h.Sequence != h1.Sequence {
		t.Errorf("unchanged hosting made an update: %+v", h)
	}
	tt = one(b.net.ChangeHosting(ctx, b.alice, b.p2, ledger.PermissionConfirmation))
	check("change", b.p2, h1, tt, ledger.TopologyEvent{Kind: ledger.AuthorizationChanged, Party: b.alice, Participant: b.p2, Permission: ledger.PermissionConfirmation})
	if got := hostings(b.alice); !maps.Equal(got, map[ledger.ParticipantID]ledger.Permission{b.p1: ledger.PermissionSubmission, b.p2: ledger.PermissionConfirmation}) {
		t.Errorf("alice's hostings = %v", got)
	}

	// A transaction alice sees goes to both of her participants.
	h2 := head()
	b.issue(t, b.alice, "1")
	if h := head(); h.Offsets[b.p1] != h2.Offsets[b.p1]+1 || h.Offsets[b.p2] != h2.Offsets[b.p2]+1 {
		t.Errorf("IOU to multi-hosted alice: offsets %v, were %v", h.Offsets, h2.Offsets)
	}

	// Revoking alice from p2: p2 sees the revocation, and then none of
	// her transactions; p1 keeps her.
	h3 := head()
	tt = one(b.net.RevokeHosting(ctx, b.alice, b.p2))
	check("revoke", b.p2, h3, tt, ledger.TopologyEvent{Kind: ledger.AuthorizationRevoked, Party: b.alice, Participant: b.p2})
	if got := hostings(b.alice); !maps.Equal(got, map[ledger.ParticipantID]ledger.Permission{b.p1: ledger.PermissionSubmission}) {
		t.Errorf("alice's hostings after the revocation = %v", got)
	}
	h4 := head()
	b.issue(t, b.alice, "2")
	if h := head(); h.Offsets[b.p1] != h4.Offsets[b.p1]+1 || h.Offsets[b.p2] != h4.Offsets[b.p2] {
		t.Errorf("IOU to alice after the revocation: offsets %v, were %v", h.Offsets, h4.Offsets)
	}
	if u := last(b.p2); u.Topology == nil || u.Topology.UpdateID != tt.UpdateID {
		t.Errorf("p2's last update = %+v; want the revocation", u)
	}

	// Refusals change nothing.
	h5 := head()
	for _, c := range []struct {
		name string
		err  error
		kind fault.Kind
	}{
		{"not hosted there", second(b.net.RevokeHosting(ctx, b.alice, b.p2)), fault.NotFound},
		{"last hosting", second(b.net.RevokeHosting(ctx, b.bob, b.p2)), fault.FailedPrecondition},
		{"unknown party", second(b.net.RevokeHosting(ctx, "nobody::1220aa", b.p2)), fault.NotFound},
		{"unknown participant", second(b.net.RevokeHosting(ctx, b.alice, "PAR::nobody::1220aa")), fault.NotFound},
		{"invalid party", second(b.net.RevokeHosting(ctx, "nobody", b.p1)), fault.InvalidArgument},
		{"change of an unknown party", second(b.net.ChangeHosting(ctx, "nobody::1220aa", b.p2, ledger.PermissionSubmission)), fault.NotFound},
		{"change on an unknown participant", second(b.net.ChangeHosting(ctx, b.alice, "PAR::nobody::1220aa", ledger.PermissionSubmission)), fault.NotFound},
		{"invalid permission", second(b.net.ChangeHosting(ctx, b.alice, b.p2, "Owner")), fault.InvalidArgument},
	} {
		if !fault.Is(c.err, c.kind) {
			t.Errorf("%s: error = %v; want %v", c.name, c.err, c.kind)
		}
	}
	if h := head(); h.Sequence != h5.Sequence || !maps.Equal(h.Offsets, h5.Offsets) {
		t.Errorf("refusals changed the head: %+v, was %+v", h, h5)
	}
	if got := hostings(b.bob); len(got) != 1 {
		t.Errorf("bob's hostings = %v", got)
	}

	// A participant that lost a party cannot submit as it.
	one(b.net.ChangeHosting(ctx, b.alice, b.p2, ledger.PermissionSubmission))
	one(b.net.RevokeHosting(ctx, b.alice, b.p1))
	_, err := b.net.Submit(ctx, ledger.Command{
		Participant: b.p1, ActAs: []daml.Party{b.alice},
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Create(tx, Iou{Issuer: b.alice, Owner: b.alice, Amount: daml.MustNumeric("1")})
			return err
		},
	})
	if !fault.Is(err, fault.NotFound) {
		t.Errorf("submission as alice on p1 after her revocation: %v; want NotFound", err)
	}
}

func second[T any](_ T, err error) error { return err }

// Two processes sharing a PostgreSQL database: a hosting change one of
// them commits routes the other's next transactions.
func TestHostingChangesReachOtherProcesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	open := sharedPostgres(t)
	a := setupOn(t, open())
	other, err := ledger.Open(ctx, open(), testRegistry(), ledger.Config{Seed: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	b := *a
	b.net = other
	offsets := func() map[ledger.ParticipantID]ledger.Offset {
		t.Helper()
		h, err := a.net.Store().Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return h.Offsets
	}
	if _, err := a.net.ChangeHosting(ctx, a.alice, a.p2, ledger.PermissionObservation); err != nil {
		t.Fatal(err)
	}
	before := offsets()
	b.issue(t, b.alice, "1")
	if got := offsets(); got[a.p2] != before[a.p2]+1 {
		t.Errorf("the other process did not route alice's IOU to p2: offsets %v, were %v", got, before)
	}
	if _, err := a.net.RevokeHosting(ctx, a.alice, a.p2); err != nil {
		t.Fatal(err)
	}
	before = offsets()
	b.issue(t, b.alice, "2")
	if got := offsets(); got[a.p2] != before[a.p2] || got[a.p1] != before[a.p1]+1 {
		t.Errorf("the other process routed alice's IOU after her revocation: offsets %v, were %v", got, before)
	}
	if hs := other.HostingsOf(a.alice); len(hs) != 1 || hs[0].Participant != a.p1 {
		t.Errorf("the other process's hostings of alice = %+v", hs)
	}
}

// A process whose cache still says a party is hosted on a participant
// cannot commit a submission as it there once another process revoked it.
func TestRevocationElsewhereRefusesSubmissions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	open := sharedPostgres(t)
	a := setupOn(t, open())
	if _, err := a.net.ChangeHosting(ctx, a.alice, a.p2, ledger.PermissionSubmission); err != nil {
		t.Fatal(err)
	}
	other, err := ledger.Open(ctx, open(), testRegistry(), ledger.Config{Seed: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	if _, err := a.net.RevokeHosting(ctx, a.alice, a.p1); err != nil {
		t.Fatal(err)
	}
	_, err = other.Submit(ctx, ledger.Command{
		Participant: a.p1, ActAs: []daml.Party{a.alice},
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Create(tx, Iou{Issuer: a.alice, Owner: a.alice, Amount: daml.MustNumeric("1")})
			return err
		},
	})
	if !fault.Is(err, fault.NotFound) {
		t.Errorf("submission as alice on p1 after her revocation elsewhere: %v; want NotFound", err)
	}
}

// sharedPostgres returns a function that opens a store on one fresh
// PostgreSQL schema, as processes sharing a database do; the schema is
// dropped when t ends.
func sharedPostgres(t *testing.T) func() ledger.Store {
	t.Helper()
	url := benchDatabaseURL(t)
	var r [8]byte
	rand.Read(r[:])
	schema := "sandnet_topology_" + hex.EncodeToString(r[:])
	// Registered first, so it runs after the stores are closed.
	t.Cleanup(func() {
		ctx := context.Background()
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
	return func() ledger.Store {
		s, err := pgstore.OpenLedger(context.Background(), url, schema)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}
