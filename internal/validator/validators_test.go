package validator_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
	"github.com/sandnet/sandnet/internal/validator"
)

// TestLocalNetValidators runs the validator apps of a network shaped as
// Splice's LocalNet: app-user and app-provider with participants of their
// own and a validator on SV 1's node, each operated by "ledger-api-user"
// and with a wallet user named like the node on the operator's party.
// The wallet user of the operator's party acts for its wallet; a user of
// one validator is unknown to another; a transfer offer from app-user's
// operator wallet to a user of app-provider is accepted through
// app-provider's validator and completed by app-user's automation.
func TestLocalNetValidators(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlitestore.OpenLedger(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	net, err := ledger.Open(ctx, st, splice.NewRegistry(), ledger.Config{Seed: "localnet", Wall: func() time.Time { return epoch }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		net.Close()
		st.Close()
	})
	seeded, err := splice.Seed(ctx, net, splice.SeedConfig{SVs: 1, NoAnsEntries: true, Validators: []splice.ValidatorConfig{
		{Name: "app-user", OperatorUser: "ledger-api-user", OperatorWalletUsers: []string{"app-user"}},
		{Name: "app-provider", OperatorUser: "ledger-api-user", OperatorWalletUsers: []string{"app-provider"}, Users: []string{"pat"}},
		{Name: "sv", SV: 1, OperatorUser: "ledger-api-user", OperatorWalletUsers: []string{"sv"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	apps := map[string]*validator.Validator{}
	for i, sv := range seeded.Validators {
		vs, err := sqlitestore.OpenValidator(ctx, filepath.Join(dir, fmt.Sprintf("validator-%d.db", i)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { vs.Close() })
		apps[sv.Name] = validator.New(validator.Config{
			Participant: sv.Participant, Party: sv.Party, OperatorUser: sv.OperatorUser,
			DSO: seeded.DSOParty, AnsAcronym: seeded.AnsAcronym,
		}, net, ledgerScan{s: net.Store(), dso: seeded.DSOParty}, vs, nil)
	}
	wallet := func(app, user string) validator.Wallet {
		t.Helper()
		w, err := apps[app].Wallet(ctx, user, "test")
		if err != nil {
			t.Fatalf("%s's wallet on %s: %v", user, app, err)
		}
		return w
	}

	for _, v := range seeded.Validators {
		// The operator user and the wallet user named like the node both
		// reach the operator party's wallet, with its one tap.
		for _, user := range []string{"ledger-api-user", v.Name} {
			w := wallet(v.Name, user)
			if w.Party != v.Party {
				t.Errorf("%s on %s acts for %s, want the operator's %s", user, v.Name, w.Party, v.Party)
			}
			b, err := apps[v.Name].Balance(ctx, w)
			if err != nil || b.Unlocked.Cmp(daml.MustNumeric("2000.0")) != 0 {
				t.Errorf("%s's balance on %s: %+v, %v", user, v.Name, b, err)
			}
		}
		if ok, err := apps[v.Name].IsOperator(ctx, "ledger-api-user"); err != nil || !ok {
			t.Errorf("ledger-api-user does not operate %s: %v", v.Name, err)
		}
		if ok, err := apps[v.Name].IsOperator(ctx, v.Name); err != nil || ok {
			t.Errorf("the wallet user %s operates its validator: %v", v.Name, err)
		}
		users, err := apps[v.Name].Users(ctx)
		want := append([]string{"ledger-api-user", v.Name}, func() []string {
			var us []string
			for _, u := range v.Users {
				us = append(us, u.Name)
			}
			return us
		}()...)
		slices.Sort(want)
		if err != nil || !slices.Equal(users, want) {
			t.Errorf("%s's wallet users %v, want %v (%v)", v.Name, users, want, err)
		}
	}
	// pat's wallet is on app-provider only.
	if _, err := apps["app-user"].Wallet(ctx, "pat", "test"); !fault.Is(err, fault.PermissionDenied) {
		t.Errorf("pat on app-user: %v, want PermissionDenied", err)
	}

	from, pat := wallet("app-user", "app-user"), wallet("app-provider", "pat")
	cid, err := apps["app-user"].CreateOffer(ctx, from, validator.OfferRequest{
		Receiver: pat.Party, Amount: daml.MustNumeric("12.5"), Description: "across", ExpiresAt: net.Clock().Now() + daml.Timestamp(time.Hour.Microseconds()), TrackingID: "across",
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := apps["app-user"].AcceptOffer(ctx, from, cid); !fault.Is(err, fault.PermissionDenied) {
		t.Errorf("the sender accepting: %v", err)
	}
	if _, err := apps["app-provider"].AcceptOffer(ctx, pat, cid); err != nil {
		t.Fatal(err)
	}
	// The receiver's automation leaves the sender's offer alone; the
	// sender's completes it.
	for _, app := range []string{"app-provider", "sv", "app-user"} {
		if _, err := apps[app].Automation().Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, app := range []string{"app-user", "app-provider"} {
		if err := apps[app].TxLog().Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for app, w := range map[string]validator.Wallet{"app-user": from, "app-provider": pat} {
		ev, err := apps[app].TransferStatus(ctx, w, "across")
		if err != nil || ev.State != validator.TransferCompleted {
			t.Errorf("status on %s: %+v, %v", app, ev, err)
		}
	}
	b, err := apps["app-provider"].Balance(ctx, pat)
	if err != nil || b.Unlocked.Cmp(daml.MustNumeric("2012.5")) != 0 {
		t.Errorf("pat's balance: %+v, %v, want 2012.5", b, err)
	}
}
