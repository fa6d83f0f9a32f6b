package topology_test

import (
	"bytes"
	"crypto/elliptic"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/signing"
	"github.com/sandnet/sandnet/internal/signing/signingtest"
	"github.com/sandnet/sandnet/internal/topology"
)

func TestGenerateVectors(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	key := vectorKey(t)
	req := topology.GenerateRequest{PartyHint: v.PartyHint, PublicKey: key.Public, LocalParticipantUID: v.ParticipantUID}
	for _, tc := range []struct {
		name     string
		generate func(topology.GenerateRequest) (*topology.Generated, error)
		want     txVectors
	}{
		{"3.5", topology.Generate, v.V35},
		{"3.4.0", topology.GenerateLegacy, v.V340},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, err := tc.generate(req)
			if err != nil {
				t.Fatal(err)
			}
			if g.PartyID != v.PartyID || g.Fingerprint != v.Key.Fingerprint {
				t.Errorf("party %s, fingerprint %s", g.PartyID, g.Fingerprint)
			}
			want := tc.want.transactions(t)
			if len(g.Serialized) != len(want) || len(g.Transactions) != len(want) || len(g.Hashes) != len(want) {
				t.Fatalf("%d transactions, want %d", len(g.Serialized), len(want))
			}
			for i := range want {
				if !bytes.Equal(g.Serialized[i], want[i]) {
					t.Errorf("transaction %d = %x\nwant %x", i, g.Serialized[i], want[i])
				}
				if !bytes.Equal(g.Transactions[i].Bytes(), want[i]) || !bytes.Equal(topology.Marshal(g.Transactions[i]), want[i]) {
					t.Errorf("transaction %d: Bytes or Marshal differ", i)
				}
				if got := hex.EncodeToString(g.Hashes[i]); got != tc.want.TxHashes[i] {
					t.Errorf("hash %d = %s, want %s", i, got, tc.want.TxHashes[i])
				}
			}
			if got := hex.EncodeToString(g.MultiHash); got != tc.want.MultiHash {
				t.Errorf("multiHash = %s, want %s", got, tc.want.MultiHash)
			}
			// The vector signature signs what Generate hands out.
			if err := key.Public.Verify(tc.want.signature(t, key.Fingerprint()), g.MultiHash); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestGenerateHosting(t *testing.T) {
	t.Parallel()
	key := vectorKey(t)
	const (
		local = "participant1::1220aa"
		p2    = "participant2::1220bb"
		p3    = "participant3::1220cc"
		p4    = "participant4::1220dd"
	)
	type host = topology.HostingParticipant
	for _, tc := range []struct {
		name          string
		req           topology.GenerateRequest
		wantThreshold uint32
		wantHosts     []host
	}{
		{"local only", topology.GenerateRequest{}, 1, []host{{UID: local, Permission: topology.PermissionConfirmation}}},
		{"all confirm by default", topology.GenerateRequest{OtherConfirmingUIDs: []string{p2, p3}, ObservingUIDs: []string{p4}}, 3,
			[]host{{UID: local, Permission: topology.PermissionConfirmation}, {UID: p2, Permission: topology.PermissionConfirmation},
				{UID: p3, Permission: topology.PermissionConfirmation}, {UID: p4, Permission: topology.PermissionObservation}}},
		{"explicit threshold", topology.GenerateRequest{OtherConfirmingUIDs: []string{p2, p3}, ConfirmationThreshold: 2}, 2,
			[]host{{UID: local, Permission: topology.PermissionConfirmation}, {UID: p2, Permission: topology.PermissionConfirmation},
				{UID: p3, Permission: topology.PermissionConfirmation}}},
		{"local observes", topology.GenerateRequest{LocalObservationOnly: true, OtherConfirmingUIDs: []string{p2}, ObservingUIDs: []string{p3}}, 1,
			[]host{{UID: local, Permission: topology.PermissionObservation}, {UID: p2, Permission: topology.PermissionConfirmation},
				{UID: p3, Permission: topology.PermissionObservation}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := tc.req
			req.PartyHint, req.PublicKey, req.LocalParticipantUID = "bob", key.Public, local
			g := generate(t, req)
			ptp := g.Transactions[0].Mapping.(*topology.PartyToParticipant)
			if ptp.Threshold != tc.wantThreshold || len(ptp.Participants) != len(tc.wantHosts) {
				t.Fatalf("ptp = %+v", ptp)
			}
			for i, h := range tc.wantHosts {
				if ptp.Participants[i] != h {
					t.Errorf("host %d = %+v, want %+v", i, ptp.Participants[i], h)
				}
			}
			// What Generate writes, Unmarshal reads back.
			back, err := topology.Unmarshal(g.Serialized[0])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(topology.Marshal(back), g.Serialized[0]) {
				t.Fatal("round trip differs")
			}
		})
	}
}

func TestGenerateECDSAKey(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	pub := signingtest.NewECDSA(t, elliptic.P256()).Public
	g := generate(t, topology.GenerateRequest{PartyHint: "carol", PublicKey: pub, LocalParticipantUID: v.ParticipantUID})
	if g.PartyID != "carol::"+pub.Fingerprint() {
		t.Fatalf("party %s", g.PartyID)
	}
	k := g.Transactions[0].Mapping.(*topology.PartyToParticipant).SigningKeys.Keys[0]
	if k.Format != signing.ProtoKeyFormatSPKI || k.Spec != signing.KeySpecP256 || !bytes.Equal(k.Key, pub.SPKI) {
		t.Fatalf("key %+v", k)
	}
}

func TestGenerateRefusals(t *testing.T) {
	t.Parallel()
	key := vectorKey(t)
	const local = "participant1::1220aa"
	for _, tc := range []struct {
		name string
		req  topology.GenerateRequest
		want string
	}{
		{"empty hint", topology.GenerateRequest{PartyHint: ""}, "Party hint is empty"},
		{"invalid character", topology.GenerateRequest{PartyHint: "al!ce"}, `party_hint: non expected character 0x21 in Daml-LF Party "al!ce"`},
		{"delimiter", topology.GenerateRequest{PartyHint: "al::ce"}, "party_hint: String contains reserved delimiter `::`."},
		{"too long", topology.GenerateRequest{PartyHint: strings.Repeat("a", 186)}, "party_hint: The given string has a maximum length of 185 but a string of length 186 was given"},
		{"too long for LF", topology.GenerateRequest{PartyHint: strings.Repeat("a", 256)}, "party_hint: Daml-LF Party is too long (max: 255)"},
		{"negative threshold", topology.GenerateRequest{ConfirmationThreshold: -1}, "Negative confirmation threshold observed"},
		{"uid without namespace", topology.GenerateRequest{OtherConfirmingUIDs: []string{"participant2"}}, "Invalid unique identifier `participant2` with missing namespace."},
		{"uid without identifier", topology.GenerateRequest{ObservingUIDs: []string{"::1220"}}, "Invalid unique identifier `::1220` with empty identifier."},
		{"empty uid", topology.GenerateRequest{ObservingUIDs: []string{""}}, "Empty string is not a valid unique identifier."},
		{"participant id", topology.GenerateRequest{ObservingUIDs: []string{"PAR::participant2::1220bb"}}, "Fingerprint decoding of `PAR::participant2::1220bb` failed with: "},
		{"local confirming", topology.GenerateRequest{OtherConfirmingUIDs: []string{local}},
			"This participant node (PAR::participant1::1220aa) is also listed in 'otherConfirmingParticipantUids'. By sending the request to this node, it is de facto a hosting node and must not be listed in 'otherConfirmingParticipantUids'."},
		{"local observing", topology.GenerateRequest{ObservingUIDs: []string{local}},
			"This participant node (PAR::participant1::1220aa) is also listed in 'observingParticipantUids'."},
		{"uid twice", topology.GenerateRequest{OtherConfirmingUIDs: []string{"p2::1220bb"}, ObservingUIDs: []string{"p3::1220cc", "p2::1220bb"}},
			"The following participant IDs are referenced multiple times in the request: p2::1220bb. Please ensure all IDs are referenced only once across 'otherConfirmingParticipantUids' and 'observingParticipantUids' fields."},
		{"threshold too high", topology.GenerateRequest{ConfirmationThreshold: 2}, "Confirmation threshold exceeds number of confirming participants"},
		{"threshold too high when observing", topology.GenerateRequest{LocalObservationOnly: true, OtherConfirmingUIDs: []string{"p2::1220bb"}, ConfirmationThreshold: 2},
			"Confirmation threshold exceeds number of confirming participants"},
		{"nobody confirms", topology.GenerateRequest{LocalObservationOnly: true}, "The party must have at least one confirming participant"},
		{"broken key", topology.GenerateRequest{PublicKey: signing.PublicKey{Spec: signing.KeySpecCurve25519, SPKI: []byte{1}}}, "Failed to deserialize or validate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := tc.req
			if tc.name != "empty hint" && req.PartyHint == "" {
				req.PartyHint = "alice"
			}
			if req.PublicKey.SPKI == nil {
				req.PublicKey = key.Public
			}
			req.LocalParticipantUID = local
			for _, gen := range []func(topology.GenerateRequest) (*topology.Generated, error){topology.Generate, topology.GenerateLegacy} {
				_, err := gen(req)
				wantError(t, err, topology.CodeInvalidArgument, tc.want)
			}
		})
	}
}

func TestGenerateBadLocalParticipant(t *testing.T) {
	t.Parallel()
	_, err := topology.Generate(topology.GenerateRequest{PartyHint: "a", PublicKey: vectorKey(t).Public, LocalParticipantUID: "nope"})
	if err == nil || strings.Contains(err.Error(), "INVALID") {
		t.Fatalf("error = %v, want an internal error", err)
	}
}
