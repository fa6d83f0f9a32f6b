package scanapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/testnet"
)

// holdingsEnv is a seeded network where alice has paid bob and locked an
// amulet of hers to bob, snapshotted by SV 1's Scan.
type holdingsEnv struct {
	*testnet.Net
	snapshot scan.Snapshot
}

func openHoldingsEnv(ctx context.Context, dir string) (*holdingsEnv, error) {
	n, err := testnet.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	e := &holdingsEnv{Net: n}
	if err := e.build(ctx); err != nil {
		n.Close()
		return nil, err
	}
	return e, nil
}

func (e *holdingsEnv) build(ctx context.Context) error {
	alice, bob := e.Party("alice"), e.Party("bob")
	v := e.Seeded.Validator
	for i, lock := range []bool{false, true} {
		ac, err := splice.LoadAmuletContext(ctx, e.Network.Store(), e.Seeded.DSOParty, e.Network.Clock().Now())
		if err != nil {
			return err
		}
		holdings, err := splice.Holdings(ctx, e.Network.Store(), alice)
		if err != nil || len(holdings) == 0 {
			return fmt.Errorf("alice's holdings: %v (%d)", err, len(holdings))
		}
		out := splice.Pay(bob, daml.MustNumeric("12.5"))
		if lock {
			out = splice.Pay(alice, daml.MustNumeric("2.0"))
			out.Lock = &splice.TimeLock{Holders: []daml.Party{bob}, ExpiresAt: e.Network.Clock().Now() + daml.Timestamp((24 * time.Hour).Microseconds())}
		}
		if _, err := e.Network.Submit(ctx, ledger.Command{
			Participant: v.Participant, UserID: "alice", ActAs: []daml.Party{alice, bob}, Disclosed: ac.Disclosed(),
			CommandID: fmt.Sprintf("holdings-%d", i),
			Run: func(tx *ledger.Tx) error {
				_, err := splice.TransferAmulet(tx, ac, alice, alice, []daml.ContractID{holdings[0].ID}, out)
				return err
			},
		}); err != nil {
			return fmt.Errorf("transfer %d: %w", i, err)
		}
	}
	if _, err := e.Ingester.Step(ctx); err != nil {
		return err
	}
	if _, err := e.Network.AdvanceClock(ctx, 3*time.Hour+time.Minute); err != nil {
		return err
	}
	if _, err := e.Ingester.Step(ctx); err != nil {
		return err
	}
	snaps := &scan.Snapshotter{Store: e.ScanStore}
	if _, err := snaps.Step(ctx); err != nil {
		return err
	}
	var err error
	e.snapshot, err = snaps.TakeNow(ctx)
	return err
}

// sharedHoldings is one network that no test changes.
var sharedHoldings = testnet.NewShared("scanapi-holdings", openHoldingsEnv, func(e *holdingsEnv) { e.Close() })

func holdingsShared(t testing.TB) *holdingsEnv {
	t.Helper()
	return sharedHoldings.Get(t)
}

func TestHoldingsGolden(t *testing.T) {
	t.Parallel()
	e := holdingsShared(t)
	alice, bob := string(e.Party("alice")), string(e.Party("bob"))
	snap := e.snapshot.RecordTime.String()
	state := func(rt, owners, extra string) string {
		return fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":10,"owner_party_ids":%s%s}`, rt, owners, extra)
	}
	summary := func(rt, owners, extra string) string {
		return fmt.Sprintf(`{"migration_id":0,"record_time":%q,"owner_party_ids":%s%s}`, rt, owners, extra)
	}
	both := fmt.Sprintf(`[%q,%q]`, alice, bob)
	one := func(p string) string { return fmt.Sprintf(`[%q]`, p) }
	first := firstResponseOf[struct {
		Events []json.RawMessage `json:"created_events"`
		Next   int64             `json:"next_page_token"`
	}](t, e.ScanHandler, "/v1/holdings/state", fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":1,"owner_party_ids":%s}`, snap, one(alice)))
	if first.Next == 0 || len(first.Events) != 1 {
		t.Fatalf("alice's first page of one: %d events, next %d", len(first.Events), first.Next)
	}
	late := "9999-01-01T00:00:00Z"
	runGolden(t, "holdings", e.ScanHandler, []goldenCase{
		post("v1 state: alice, unlocked and locked", "/v1/holdings/state", state(snap, one(alice), ""), 200),
		post("v1 state: bob, without the amulet he holds the lock of", "/v1/holdings/state", state(snap, one(bob), ""), 200),
		post("v1 state: bob, a full page of three rows with two of his", "/v1/holdings/state", fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":3,"owner_party_ids":%s}`, snap, one(bob)), 200),
		post("v1 state: both", "/v1/holdings/state", state(snap, both, ""), 200),
		post("v1 state: a party without holdings", "/v1/holdings/state", state(snap, `["nobody::122000"]`, ""), 200),
		post("v1 state: first page of one", "/v1/holdings/state", fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":1,"owner_party_ids":%s}`, snap, one(alice)), 200),
		post("v1 state: second page of one", "/v1/holdings/state", fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":1,"after":%d,"owner_party_ids":%s}`, snap, first.Next, one(alice)), 200),
		post("v1 state: at or before", "/v1/holdings/state", state(late, one(alice), `,"record_time_match":"at_or_before"`), 200),
		post("v1 state: no owners", "/v1/holdings/state", state(snap, `[]`, ""), 400).off(),
		post("v1 state: no owners, no snapshot before", "/v1/holdings/state", state("2000-01-01T00:00:00Z", `[]`, `,"record_time_match":"at_or_before"`), 404).off(),
		post("v1 state: owners missing", "/v1/holdings/state", fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":10}`, snap), 400).off(),
		post("v1 state: none at or before", "/v1/holdings/state", state("2000-01-01T00:00:00Z", one(alice), `,"record_time_match":"at_or_before"`), 404),
		post("v1 state: not a snapshot's time", "/v1/holdings/state", state(late, one(alice), ""), 404),
		post("v1 state: page_size 1001", "/v1/holdings/state", fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":1001,"owner_party_ids":%s}`, snap, one(alice)), 400),
		post("v1 state: token outside the snapshot", "/v1/holdings/state", state(snap, one(alice), `,"after":100000`), 400),
		post("v1 state: token not positive", "/v1/holdings/state", state(snap, one(alice), `,"after":0`), 400),
		post("v1 state: unknown record_time_match", "/v1/holdings/state", state(snap, one(alice), `,"record_time_match":"near"`), 400).off(),
		post("v0 state: alice", "/v0/holdings/state", state(snap, one(alice), ""), 200),
		post("v0 state: no owners", "/v0/holdings/state", state(snap, `[]`, ""), 400).off(),
		post("v0 summary: both, at the earliest open round", "/v0/holdings/summary", summary(snap, both, ""), 200),
		post("v0 summary: as of round 10", "/v0/holdings/summary", summary(snap, both, `,"as_of_round":10`), 200),
		post("v0 summary: as of a round before the holdings", "/v0/holdings/summary", summary(snap, one(alice), `,"as_of_round":-1`), 200),
		post("v0 summary: a party without holdings", "/v0/holdings/summary", summary(snap, `["nobody::122000"]`, ""), 200),
		post("v0 summary: at or before", "/v0/holdings/summary", summary(late, one(bob), `,"record_time_match":"at_or_before"`), 200),
		post("v0 summary: no owners", "/v0/holdings/summary", summary(snap, `[]`, ""), 400).off(),
		post("v0 summary: none at or before", "/v0/holdings/summary", summary("2000-01-01T00:00:00Z", one(alice), `,"record_time_match":"at_or_before"`), 404),
		post("v0 summary: not a snapshot's time", "/v0/holdings/summary", summary(late, one(alice), ""), 404),
		post("v1 summary: both", "/v1/holdings/summary", summary(snap, both, ""), 200),
		post("v1 summary: no owners", "/v1/holdings/summary", summary(snap, `[]`, ""), 400).off(),
		post("v1 summary: none at or before", "/v1/holdings/summary", summary("2000-01-01T00:00:00Z", one(alice), `,"record_time_match":"at_or_before"`), 404),
		post("v1 summary: owners missing", "/v1/holdings/summary", fmt.Sprintf(`{"migration_id":0,"record_time":%q}`, snap), 400).off(),
	})
}

// firstResponseOf serves a POST and decodes its JSON answer.
func firstResponseOf[T any](t *testing.T, h http.Handler, path, body string) T {
	t.Helper()
	rec := do(t, h, http.MethodPost, path, body, false)
	var out T
	if rec.Code != http.StatusOK {
		t.Fatalf("POST %s: %d %s", path, rec.Code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHoldingsSummaryAddsUpState checks the summary against the state it
// sums: per owner, the initial amounts of the listed holdings.
func TestHoldingsSummaryAddsUpState(t *testing.T) {
	t.Parallel()
	e := holdingsShared(t)
	snap := e.snapshot.RecordTime.String()
	for _, user := range []string{"alice", "bob"} {
		t.Run(user, func(t *testing.T) {
			t.Parallel()
			p := string(e.Party(user))
			st := firstResponseOf[struct {
				Events []struct {
					TemplateID string `json:"template_id"`
					Args       struct {
						Owner  string `json:"owner"`
						Amount struct {
							Initial string `json:"initialAmount"`
						} `json:"amount"`
						Amulet *struct {
							Owner  string `json:"owner"`
							Amount struct {
								Initial string `json:"initialAmount"`
							} `json:"amount"`
						} `json:"amulet"`
					} `json:"create_arguments"`
				} `json:"created_events"`
			}](t, e.ScanHandler, "/v1/holdings/state", fmt.Sprintf(`{"migration_id":0,"record_time":%q,"page_size":1000,"owner_party_ids":[%q]}`, snap, p))
			var unlocked, locked daml.Sum
			for _, ev := range st.Events {
				owner, amount := ev.Args.Owner, ev.Args.Amount.Initial
				dst := &unlocked
				if ev.Args.Amulet != nil {
					owner, amount, dst = ev.Args.Amulet.Owner, ev.Args.Amulet.Amount.Initial, &locked
				}
				if owner != p {
					t.Errorf("%s holds %s's amulet", p, owner)
				}
				dst.Add(daml.MustNumeric(amount))
			}
			sum := firstResponseOf[struct {
				Summaries []struct {
					Party    string `json:"party_id"`
					Unlocked string `json:"total_unlocked_coin"`
					Locked   string `json:"total_locked_coin"`
				} `json:"summaries"`
			}](t, e.ScanHandler, "/v1/holdings/summary", fmt.Sprintf(`{"migration_id":0,"record_time":%q,"owner_party_ids":[%q]}`, snap, p))
			if len(sum.Summaries) != 1 || sum.Summaries[0].Party != p {
				t.Fatalf("summaries %+v", sum.Summaries)
			}
			if got := sum.Summaries[0]; got.Unlocked != unlocked.String() || got.Locked != locked.String() {
				t.Errorf("summary %s/%s, state adds up to %s/%s", got.Unlocked, got.Locked, unlocked, locked)
			}
			if user == "alice" && locked.Sign() == 0 {
				t.Error("alice has no locked amulet")
			}
		})
	}
}
