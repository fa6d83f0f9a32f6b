package scan_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
)

// snapshotStore is a Store holding one snapshot and the open rounds: all
// that the holdings reads use.
type snapshotStore struct {
	scan.Store
	snap   scan.Snapshot
	rows   []scan.SnapshotRow
	rounds []*ledger.Contract
}

func (s *snapshotStore) SnapshotAtOrBefore(_ context.Context, migration int64, t daml.Timestamp) (scan.Snapshot, error) {
	if migration != s.snap.Migration || t < s.snap.RecordTime {
		return scan.Snapshot{}, fault.New(fault.NotFound, "no snapshot")
	}
	return s.snap, nil
}

func (s *snapshotStore) SnapshotPage(_ context.Context, q scan.SnapshotQuery) ([]scan.SnapshotRow, error) {
	var out []scan.SnapshotRow
	for _, r := range s.rows {
		if len(out) == q.Limit {
			break
		}
		if r.Row <= q.After || !slices.Contains(q.Templates, scan.KeyOf(r.Contract.Template)) ||
			!slices.ContainsFunc(r.Contract.Stakeholders(), func(p daml.Party) bool { return slices.Contains(q.Parties, p) }) {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

func (s *snapshotStore) ActiveContracts(_ context.Context, q scan.ContractQuery) ([]*ledger.Contract, error) {
	return s.rounds, nil
}

const holdingsDSO = daml.Party("dso::1220")

func contractOf(t *testing.T, id int, tmpl ledger.Template) *ledger.Contract {
	t.Helper()
	v, err := daml.FromGo(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	return &ledger.Contract{
		ID: daml.ContractID(fmt.Sprintf("00%04d", id)), Template: tmpl.TemplateID(), Argument: v.(*daml.Record),
		Signatories: tmpl.Signatories(),
	}
}

func amount(initial string, created int64) splice.ExpiringAmount {
	return splice.ExpiringAmount{
		InitialAmount: daml.MustNumeric(initial), CreatedAt: splice.Round{Number: created},
		RatePerRound: splice.RatePerRound{Rate: daml.MustNumeric("0.0000190259")},
	}
}

// holdingsService is a Scan whose snapshot holds the given contracts, in
// that order, and whose open rounds are the given ones.
func holdingsService(t *testing.T, rounds []int64, contracts ...ledger.Template) *scan.Service {
	t.Helper()
	st := &snapshotStore{snap: scan.Snapshot{ID: 1, RecordTime: 1_000_000, FirstRow: 1, LastRow: int64(len(contracts))}}
	for i, c := range contracts {
		st.rows = append(st.rows, scan.SnapshotRow{Row: int64(i + 1), Contract: contractOf(t, i, c)})
	}
	for i, r := range rounds {
		st.rounds = append(st.rounds, contractOf(t, 10000+i, splice.OpenMiningRound{DSO: holdingsDSO, Round: splice.Round{Number: r}}))
	}
	return &scan.Service{Config: scan.Config{DSO: holdingsDSO}, Store: st}
}

func TestHoldingFeeAsOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		initial string
		created int64
		round   int64
		want    string
	}{
		{"the creation round", "10.0", 5, 5, "0.0000000000"},
		{"three rounds on", "10.0", 5, 8, "0.0000570777"},
		{"capped at the amount", "0.00001", 0, 1000, "0.0000100000"},
		{"a round before creation is negative", "10.0", 5, 3, "-0.0000380518"},
		{"the lowest round", "10.0", 0, -1 << 63, "-175482954035995.2790454272"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := scan.HoldingFeeAsOf(amount(tc.initial, tc.created), tc.round)
			if err != nil || got.String() != tc.want {
				t.Errorf("fee %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestHoldingsSummary(t *testing.T) {
	t.Parallel()
	alice, bob, carol := daml.Party("alice::1220"), daml.Party("bob::1220"), daml.Party("carol::1220")
	amulet := func(owner daml.Party, initial string, created int64) ledger.Template {
		return splice.Amulet{DSO: holdingsDSO, Owner: owner, Amount: amount(initial, created)}
	}
	locked := func(owner, holder daml.Party, initial string, created int64) ledger.Template {
		return splice.LockedAmulet{
			Amulet: splice.Amulet{DSO: holdingsDSO, Owner: owner, Amount: amount(initial, created)},
			Lock:   splice.TimeLock{Holders: []daml.Party{holder}, ExpiresAt: 2_000_000},
		}
	}
	many := func(n int, extra ...ledger.Template) []ledger.Template {
		var out []ledger.Template
		for range n {
			out = append(out, amulet(alice, "1.0", 0))
		}
		return append(out, extra...)
	}
	round := func(n int64) *int64 { return &n }
	type row struct {
		party                                                                daml.Party
		unlocked, locked, total, feeUnlocked, feeLocked, feeTotal, available string
	}
	tooMany := "Size of the result exceeded the limit in queryAcsSnapshot. Result size: 1001. Limit: 1000"
	for _, tc := range []struct {
		name      string
		contracts []ledger.Template
		rounds    []int64
		req       scan.HoldingsSummaryRequest
		wantRound int64
		want      []row
		wantErr   string
	}{
		{
			name: "unlocked and locked, fees as of the earliest open round",
			contracts: []ledger.Template{
				amulet(bob, "5.0", 0), amulet(alice, "10.0", 2), locked(alice, bob, "3.0", 1), amulet(carol, "7.0", 0),
			},
			rounds:    []int64{5, 4, 6},
			req:       scan.HoldingsSummaryRequest{Owners: []daml.Party{alice, bob}, WithFees: true},
			wantRound: 4,
			want: []row{
				{bob, "5.0000000000", "0.0000000000", "5.0000000000", "0.0000761036", "0.0000000000", "0.0000761036", "4.9999238964"},
				{alice, "10.0000000000", "3.0000000000", "13.0000000000", "0.0000380518", "0.0000570777", "0.0000951295", "9.9999619482"},
			},
		},
		{
			name:      "as of a given round",
			contracts: []ledger.Template{amulet(alice, "10.0", 2)},
			req:       scan.HoldingsSummaryRequest{Owners: []daml.Party{alice}, WithFees: true, AsOfRound: round(12)},
			wantRound: 12,
			want:      []row{{alice, "10.0000000000", "0.0000000000", "10.0000000000", "0.0001902590", "0.0000000000", "0.0001902590", "9.9998097410"}},
		},
		{
			name:      "without fees (v1), no round is needed",
			contracts: []ledger.Template{amulet(alice, "10.0", 2)},
			req:       scan.HoldingsSummaryRequest{Owners: []daml.Party{alice}},
			want:      []row{{alice, "10.0000000000", "0.0000000000", "10.0000000000", "0.0000000000", "0.0000000000", "0.0000000000", "10.0000000000"}},
		},
		{
			name:      "no open round",
			contracts: []ledger.Template{amulet(alice, "10.0", 2)},
			req:       scan.HoldingsSummaryRequest{Owners: []daml.Party{alice}, WithFees: true},
			wantErr:   "No open mining rounds found.",
		},
		{
			name:      "1000 holdings",
			contracts: many(1000),
			req:       scan.HoldingsSummaryRequest{Owners: []daml.Party{alice}},
			want:      []row{{alice, "1000.0000000000", "0.0000000000", "1000.0000000000", "0.0000000000", "0.0000000000", "0.0000000000", "1000.0000000000"}},
		},
		{
			name:      "1001 holdings",
			contracts: many(1001),
			req:       scan.HoldingsSummaryRequest{Owners: []daml.Party{alice}},
			wantErr:   tooMany,
		},
		{
			name:      "1000 holdings and a lock held of another's",
			contracts: many(1000, locked(carol, alice, "1.0", 0)),
			req:       scan.HoldingsSummaryRequest{Owners: []daml.Party{alice}},
			wantErr:   tooMany,
		},
		{
			name:      "no owners",
			contracts: many(1),
			req:       scan.HoldingsSummaryRequest{},
			wantErr:   "Expected 'partyIds' to contain at least one item, but contained none.",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			svc := holdingsService(t, tc.rounds, tc.contracts...)
			tc.req.RecordTime = 1_000_000
			res, err := svc.HoldingsSummary(context.Background(), tc.req)
			if tc.wantErr != "" {
				if fe, ok := fault.As(err); !ok || fe.Message != tc.wantErr {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.AsOfRound != tc.wantRound {
				t.Errorf("round %d, want %d", res.AsOfRound, tc.wantRound)
			}
			var got []row
			for _, s := range res.Summaries {
				got = append(got, row{s.Party, s.TotalUnlockedCoin.String(), s.TotalLockedCoin.String(), s.TotalCoinHoldings.String(),
					s.HoldingFeesUnlocked.String(), s.HoldingFeesLocked.String(), s.HoldingFeesTotal.String(), s.TotalAvailableCoin.String()})
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("summaries\n%v\nwant\n%v", got, tc.want)
			}
		})
	}
}

func TestHoldingsStateOwnersFirst(t *testing.T) {
	t.Parallel()
	svc := holdingsService(t, nil)
	for _, tc := range []struct {
		name       string
		atOrBefore bool
		when       daml.Timestamp
		want       string
	}{
		{"exact", false, 5, "Expected 'ownerPartyIds' to contain at least one item, but contained none."},
		{"at or before, no snapshot", true, 5, "No snapshots found before 1970-01-01T00:00:00.000005Z"},
		{"at or before, a snapshot", true, 2_000_000, "Expected 'ownerPartyIds' to contain at least one item, but contained none."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := svc.HoldingsState(context.Background(), scan.HoldingsRequest{RecordTime: tc.when, AtOrBefore: tc.atOrBefore, PageSize: 10})
			if fe, ok := fault.As(err); !ok || fe.Message != tc.want {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
}
