package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// ownValidatorAddrs returns the own addresses the log names for the
// validators (--validator-listen), by name.
func ownValidatorAddrs(p *proc) map[string]string {
	own := map[string]string{}
	for _, rec := range p.logLines("validator served on its own address") {
		name, _ := rec["validator"].(string)
		u, _ := rec["url"].(string)
		own[name] = u
	}
	return own
}

// networkValidators lists the validators the admin API names, in order.
func networkValidators(t *testing.T, p *proc, admin string) []string {
	t.Helper()
	var network struct {
		Validators []struct {
			Name string `json:"name"`
		} `json:"validators"`
	}
	if code := call(t, "GET", p.url("/api/sandnet/v0/network"), admin, nil, &network); code != 200 {
		t.Fatalf("network: %d", code)
	}
	var names []string
	for _, v := range network.Validators {
		names = append(names, v.Name)
	}
	return names
}

// Several validators on the real binary, as Splice's LocalNet has an app
// provider and an app user: each validator's wallet works under
// /validators/NAME and on its own address, each participant's ledger API
// answers its own users only, a transfer offer from a user of app-user's
// validator to one of app-provider's is accepted on one side and
// completed by the other's automation, and a restart, without the flags,
// serves them all again.
func TestSeveralValidators(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startSandnet(t, dir, "--svs", "1", "--validator", "app-provider:pat", "--validator", "app-user:uma,ulf", "--validator-listen", "127.0.0.1:0")
	admin := mustToken(t, dir, "participant_admin")
	want := []string{"validator", "app-provider", "app-user"}
	if got := networkValidators(t, p, admin); !slices.Equal(got, want) {
		t.Fatalf("network validators %v, want %v", got, want)
	}
	own := ownValidatorAddrs(p)
	if len(own) != 3 {
		t.Fatalf("the log names own addresses %v, want one per validator:\n%s", own, p.logs())
	}
	users := map[string]string{"validator": "alice", "app-provider": "pat", "app-user": "uma"}
	parties := map[string]string{}
	for name, user := range users {
		tok := mustToken(t, dir, user)
		for _, base := range []string{p.url("/validators/" + name), own[name]} {
			var st struct {
				PartyID   string `json:"party_id"`
				Installed bool   `json:"user_wallet_installed"`
			}
			if code := call(t, "GET", base+"/api/validator/v0/wallet/user-status", tok, nil, &st); code != 200 || !st.Installed {
				t.Fatalf("%s's user-status at %s: %d %+v", user, base, code, st)
			}
			parties[user] = st.PartyID
			var bal struct {
				Unlocked string `json:"effective_unlocked_qty"`
			}
			if code := call(t, "GET", base+"/api/validator/v0/wallet/balance", tok, nil, &bal); code != 200 || bal.Unlocked == "" {
				t.Errorf("%s's balance at %s: %d %+v", user, base, code, bal)
			}
			tapAt(t, base+"/api/validator", tok, "10.0")
			var me struct {
				User struct {
					ID string `json:"id"`
				} `json:"user"`
			}
			if code := call(t, "GET", base+"/v2/authenticated-user", tok, nil, &me); code != 200 || me.User.ID != user {
				t.Errorf("%s on its participant's ledger API at %s: %d %+v", user, base, code, me)
			}
		}
		// Another validator's wallet and participant do not know the user.
		for other := range users {
			if other == name {
				continue
			}
			if code := call(t, "GET", p.url("/validators/"+other+"/api/validator/v0/wallet/user-status"), tok, nil, nil); code != 403 {
				t.Errorf("%s's user-status on %s: %d, want 403", user, other, code)
			}
			if code := call(t, "GET", own[other]+"/v2/authenticated-user", tok, nil, nil); code < 400 || code >= 500 {
				t.Errorf("%s on %s's ledger API: %d, want a 4xx", user, other, code)
			}
		}
	}
	// The default validator is also at the root.
	if code := call(t, "GET", p.url("/api/validator/v0/wallet/user-status"), mustToken(t, dir, "alice"), nil, nil); code != 200 {
		t.Errorf("alice at the root: %d", code)
	}
	// participant_admin exists on every participant, and each lists its
	// own users.
	var list struct {
		Users []struct {
			ID string `json:"id"`
		} `json:"users"`
	}
	if code := call(t, "GET", p.url("/validators/app-user/v2/users"), admin, nil, &list); code != 200 {
		t.Fatalf("app-user's users: %d", code)
	}
	var ids []string
	for _, u := range list.Users {
		ids = append(ids, u.ID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"participant_admin", "ulf", "uma"}) {
		t.Errorf("app-user's participant lists users %v", ids)
	}

	// uma (app-user) offers pat (app-provider) 12.5; pat accepts on his
	// validator; uma's validator completes it.
	uma, pat := mustToken(t, dir, "uma"), mustToken(t, dir, "pat")
	appUser, appProvider := p.url("/validators/app-user/api/validator"), p.url("/validators/app-provider/api/validator")
	offer := map[string]any{
		"receiver_party_id": parties["pat"], "amount": "12.5", "description": "across validators",
		"expires_at": time.Now().Add(time.Hour).UnixMicro(), "tracking_id": "across-1",
	}
	var created struct {
		OfferContractID string `json:"offer_contract_id"`
	}
	if code := call(t, "POST", appUser+"/v0/wallet/transfer-offers", uma, offer, &created); code != 200 {
		t.Fatalf("uma's offer: %d", code)
	}
	var offers struct {
		Offers []struct {
			ContractID string `json:"contract_id"`
		} `json:"offers"`
	}
	if code := call(t, "GET", appProvider+"/v0/wallet/transfer-offers", pat, nil, &offers); code != 200 || len(offers.Offers) != 1 || offers.Offers[0].ContractID != created.OfferContractID {
		t.Fatalf("pat's offers: %d %+v, want %s", code, offers, created.OfferContractID)
	}
	if code := call(t, "POST", appProvider+"/v0/wallet/transfer-offers/"+created.OfferContractID+"/accept", pat, nil, nil); code != 200 {
		t.Fatalf("pat's accept: %d", code)
	}
	status := func(base, token string) string {
		var st struct {
			Status string `json:"status"`
		}
		call(t, "POST", base+"/v0/wallet/transfer-offers/across-1/status", token, nil, &st)
		return st.Status
	}
	for deadline := time.Now().Add(20 * time.Second); status(appUser, uma) != "completed" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
	}
	if st := status(appUser, uma); st != "completed" {
		t.Fatalf("the offer is %q on uma's validator, want completed", st)
	}
	for deadline := time.Now().Add(20 * time.Second); status(appProvider, pat) != "completed" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
	}
	if st := status(appProvider, pat); st != "completed" {
		t.Errorf("the offer is %q on pat's validator, want completed", st)
	}
	p.stop(t)

	// A restart without the flags serves the network as seeded.
	p = startSandnet(t, dir, "--validator-listen", "127.0.0.1:0")
	if got := networkValidators(t, p, admin); !slices.Equal(got, want) {
		t.Fatalf("after a restart, network validators %v, want %v", got, want)
	}
	own = ownValidatorAddrs(p)
	appUser = p.url("/validators/app-user/api/validator")
	for name, user := range users {
		tok := mustToken(t, dir, user)
		if code := call(t, "GET", own[name]+"/api/validator/v0/wallet/balance", tok, nil, nil); code != 200 {
			t.Errorf("after a restart, %s's balance on %s: %d", user, name, code)
		}
	}
	if st := status(appUser, uma); st != "completed" {
		t.Errorf("after a restart, the offer is %q on uma's validator", st)
	}
	p.stop(t)
}

// A network seeded by a sandnet from before several validators, whose
// stored description has one "validator" and its "users", still starts
// and serves its validator.
func TestLegacyNetworkDescriptionLoads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startSandnet(t, dir)
	p.stop(t)

	// Rewrite the description as older versions stored it.
	ctx := context.Background()
	st, err := sqlitestore.OpenLedger(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	s := networkInfo(t, st)
	legacy, err := json.Marshal(map[string]any{
		"synchronizer": s.Synchronizer, "dsoParty": s.DSOParty, "svs": s.SVs,
		"validator": map[string]any{
			"participant": s.Validator.Participant, "participantName": s.Validator.ParticipantName,
			"party": s.Validator.Party, "operatorUser": s.Validator.OperatorUser,
		},
		"users": s.Users, "ansAcronym": s.AnsAcronym, "tickDuration": s.TickDuration,
	})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Write(ctx, func(w ledger.WriteTx) error { return w.SetMeta(ctx, splice.SeededMetaKey, string(legacy)) })
	st.Close()
	if err != nil {
		t.Fatal(err)
	}

	p = startSandnet(t, dir)
	admin := mustToken(t, dir, "participant_admin")
	if got := networkValidators(t, p, admin); !slices.Equal(got, []string{"validator"}) {
		t.Errorf("network validators %v, want [validator]", got)
	}
	alice := mustToken(t, dir, "alice")
	for _, path := range []string{"/api/validator", "/validators/validator/api/validator"} {
		if code := call(t, "GET", p.url(path+"/v0/wallet/balance"), alice, nil, nil); code != 200 {
			t.Errorf("alice's balance at %s: %d", path, code)
		}
	}
	p.stop(t)
}

// On PostgreSQL, each validator keeps its data in a schema of its own
// (<prefix>_validator for the default one, <prefix>_validator_app_user
// for app-user), and a restart serves them again.
func TestPostgresSeveralValidators(t *testing.T) {
	t.Parallel()
	url := testDatabaseURL(t)
	prefix := schemaPrefix(t, url, "e2e_")
	secret := strings.Repeat("s", 32)
	args := []string{"--database-url", url, "--database-schema", prefix, "--auth-secret", secret, "--svs", "1"}
	token := func(user string) string {
		tok, err := runCLI(t, "token", "--user", user, "--auth-secret", secret)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(tok)
	}
	dir := t.TempDir()
	p := startSandnet(t, dir, append(args, "--validator", "app-user:uma")...)
	uma := token("uma")
	tapAt(t, p.url("/validators/app-user/api/validator"), uma, "3.0")
	p.stop(t)

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1) ORDER BY nspname`, prefix+"_validator")
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{prefix + "_validator", prefix + "_validator_app_user"}; !slices.Equal(schemas, want) {
		t.Errorf("validator schemas %v, want %v", schemas, want)
	}

	p = startSandnet(t, dir, args...)
	var bal struct {
		Unlocked string `json:"effective_unlocked_qty"`
	}
	if code := call(t, "GET", p.url("/validators/app-user/api/validator/v0/wallet/balance"), uma, nil, &bal); code != 200 || bal.Unlocked == "" {
		t.Errorf("after a restart, uma's balance: %d %+v", code, bal)
	}
	if code := call(t, "GET", p.url("/api/validator/v0/wallet/balance"), token("alice"), nil, nil); code != 200 {
		t.Errorf("after a restart, alice's balance: %d", code)
	}
	p.stop(t)
}
