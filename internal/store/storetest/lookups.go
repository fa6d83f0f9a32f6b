package storetest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/store"
)

// testUpdateByID checks the lookup of an update by its id in a
// participant's stream: the update with its offset there, and NotFound
// for an id that is unknown or not in the participant's stream.
func testUpdateByID(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	first := mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}})
	second := mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{bob}}}, on: []ledger.ParticipantID{par1.ID, par2.ID}})
	for _, tc := range []struct {
		name string
		p    ledger.ParticipantID
		tx   *ledger.Transaction
		off  ledger.Offset
	}{
		{"first on par1", par1.ID, first, 1},
		{"second on par1", par1.ID, second, 2},
		{"second on par2, at its own offset", par2.ID, second, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.UpdateByID(ctx, tc.p, tc.tx.UpdateID)
			if err != nil {
				t.Fatal(err)
			}
			want := &ledger.ParticipantUpdate{Participant: tc.p, Offset: tc.off, Transaction: tc.tx}
			if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, tc := range []struct {
		name string
		p    ledger.ParticipantID
		id   string
	}{
		{"not in the participant's stream", par2.ID, first.UpdateID},
		{"unknown id", par1.ID, "1220" + hexID("nope")},
		{"unknown participant", "PAR::nobody::1220", first.UpdateID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.UpdateByID(ctx, tc.p, tc.id)
			if f, ok := fault.As(err); !ok || f.Kind != fault.NotFound || f.Code != store.CodeUpdateNotFound {
				t.Errorf("error = %v; want NotFound %s", err, store.CodeUpdateNotFound)
			}
		})
	}
}

// testArchivedBy checks the update a contract was archived by: none while
// it is active, the archiving update after, NotFound for an unknown id.
func testArchivedBy(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	created := mustAppend(t, s, spec{creates: []create{{tmpl: amulet, sig: []daml.Party{alice}}}})
	cid := created.Created()[0].ID
	if by, err := s.ArchivedBy(ctx, cid); err != nil || by != "" {
		t.Errorf("active: ArchivedBy = %q, %v; want none", by, err)
	}
	archived := mustAppend(t, s, spec{consumes: []daml.ContractID{cid}})
	if by, err := s.ArchivedBy(ctx, cid); err != nil || by != archived.UpdateID {
		t.Errorf("archived: ArchivedBy = %q, %v; want %s", by, err, archived.UpdateID)
	}
	if _, err := s.ArchivedBy(ctx, "00"+daml.ContractID(hexID("nope"))); !fault.Is(err, fault.NotFound) {
		t.Errorf("unknown contract: error = %v; want NotFound", err)
	}
}

// testPartyRecords checks the participants' party records: created at
// version 0, replaced with the next version, each participant's own, read
// by ranges of party ids.
func testPartyRecords(t *testing.T, s ledger.Store) {
	ctx := t.Context()
	setupNetwork(t, s)
	put := func(r ledger.PartyRecord) {
		t.Helper()
		if err := s.Write(ctx, func(w ledger.WriteTx) error { return w.PutPartyRecord(ctx, r) }); err != nil {
			t.Fatal(err)
		}
	}
	read := func(p ledger.ParticipantID, first, last daml.Party) []ledger.PartyRecord {
		t.Helper()
		rs, err := s.PartyRecords(ctx, p, first, last)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	aliceRec := ledger.PartyRecord{Participant: par1.ID, Party: alice, Annotations: map[string]string{"team": "blue", "note": "ünïcode"}}
	put(aliceRec)
	put(ledger.PartyRecord{Participant: par1.ID, Party: dso, IdentityProviderID: "idp1"})
	put(ledger.PartyRecord{Participant: par2.ID, Party: alice, Annotations: map[string]string{"other": "participant"}})
	if diff := cmp.Diff([]ledger.PartyRecord{aliceRec}, read(par1.ID, alice, alice), cmpOpts...); diff != "" {
		t.Errorf("new record (-want +got):\n%s", diff)
	}
	aliceRec.Annotations = map[string]string{"team": "red"}
	aliceRec.IdentityProviderID = "idp1"
	put(aliceRec)
	aliceRec.ResourceVersion = 1
	dsoRec := ledger.PartyRecord{Participant: par1.ID, Party: dso, IdentityProviderID: "idp1"}
	// DSO::… sorts before alice::…; the range holds both, in party order.
	if diff := cmp.Diff([]ledger.PartyRecord{dsoRec, aliceRec}, read(par1.ID, dso, alice), cmpOpts...); diff != "" {
		t.Errorf("replaced record (-want +got):\n%s", diff)
	}
	if got := read(par1.ID, bob, bob); len(got) != 0 {
		t.Errorf("a party without a record: %v", got)
	}
	if got := read(par2.ID, alice, alice); len(got) != 1 || got[0].Annotations["other"] != "participant" || got[0].ResourceVersion != 0 {
		t.Errorf("the other participant's record: %+v", got)
	}
	err := s.Write(ctx, func(w ledger.WriteTx) error {
		return w.PutPartyRecord(ctx, ledger.PartyRecord{Participant: "PAR::nobody::1220", Party: alice})
	})
	if !fault.Is(err, fault.NotFound) {
		t.Errorf("a record of an unknown participant: error = %v; want NotFound", err)
	}
}
