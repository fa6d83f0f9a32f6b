package splice_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// localNetLike is a network shaped as Splice's LocalNet: the default
// validator, an app provider and an app user with participants of their
// own, and a validator on SV 1's node, their operators all
// "ledger-api-user" but the default's.
func localNetLike() splice.SeedConfig {
	return splice.SeedConfig{SVs: 2, Validators: []splice.ValidatorConfig{
		{Name: splice.DefaultValidatorName, Users: []string{"alice", "bob"}},
		{Name: "app-provider", OperatorUser: "ledger-api-user", OperatorWalletUsers: []string{"app-provider"}, Users: []string{"pat"}},
		{Name: "app-user", PartyHint: "app_user_operator", OperatorUser: "ledger-api-user", OperatorWalletUsers: []string{"app-user"}, Users: []string{"uma", "ulf"}},
		{Name: "sv", SV: 1, OperatorUser: "ledger-api-user", OperatorWalletUsers: []string{"sv"}},
	}}
}

// TestSeedSeveralValidators checks a network of several validators: each
// with its participant (or its SV's), operator party, operator users,
// wallets, coin and names, the default one first and as the network of
// one validator has it.
func TestSeedSeveralValidators(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, localNetLike())
	st := s.net.Store()
	if len(s.Validators) != 4 {
		t.Fatalf("%d validators, want 4", len(s.Validators))
	}
	if s.Validator.Name != splice.DefaultValidatorName || !reflect.DeepEqual(s.Users, s.Validators[0].Users) || len(s.Users) != 2 {
		t.Errorf("default validator %+v, users %+v", s.Validator, s.Users)
	}
	one := seedNetwork(t, splice.SeedConfig{SVs: 2})
	if s.Validator.Participant != one.Validator.Participant || s.Validator.Party == "" {
		t.Errorf("default validator's participant %s, want the one-validator network's %s", s.Validator.Participant, one.Validator.Participant)
	}

	participants := map[ledger.ParticipantID]string{}
	for _, v := range s.Validators {
		if v.SV == 0 {
			if other, ok := participants[v.Participant]; ok {
				t.Errorf("%s and %s share participant %s", other, v.Name, v.Participant)
			}
			participants[v.Participant] = v.Name
			if v.ParticipantName != v.Name {
				t.Errorf("%s's participant is named %s", v.Name, v.ParticipantName)
			}
		} else if sv := s.SVs[v.SV-1]; v.Participant != sv.Participant || v.Party != sv.Party {
			t.Errorf("%s runs on %s as %s, want SV %d's %s as %s", v.Name, v.Participant, v.Party, v.SV, sv.Participant, sv.Party)
		}
		op, err := st.User(ctx, v.Participant, v.OperatorUser)
		if err != nil || !op.IsAdmin() || !op.CanAct(v.Party) || op.PrimaryParty != v.Party {
			t.Errorf("%s's operator user %s: %+v, %v", v.Name, v.OperatorUser, op, err)
		}
		if admin, err := st.User(ctx, v.Participant, splice.OperatorUser); err != nil || !admin.IsAdmin() {
			t.Errorf("%s's participant has no participant_admin: %+v, %v", v.Name, admin, err)
		}
		for _, name := range v.OperatorWalletUsers {
			u, err := st.User(ctx, v.Participant, name)
			if err != nil || u.PrimaryParty != v.Party || !u.CanAct(v.Party) || u.IsAdmin() {
				t.Errorf("%s's operator wallet user %s: %+v, %v", v.Name, name, u, err)
			}
		}
		for _, u := range v.Users {
			user, err := st.User(ctx, v.Participant, u.Name)
			if err != nil || user.PrimaryParty != u.Party || !user.CanAct(u.Party) {
				t.Errorf("%s's user %s: %+v, %v", v.Name, u.Name, user, err)
			}
			if hs := s.net.HostingsOf(u.Party); len(hs) != 1 || hs[0].Participant != v.Participant {
				t.Errorf("%s hosted on %v, want %s only", u.Name, hs, v.Participant)
			}
			if got := s.balance(t, u.Party); got.Cmp(num("1800.0")) != 0 {
				t.Errorf("%s holds %s, want 1800 (2000 tapped, 200 paid for a name)", u.Name, got)
			}
			if u.AnsName != u.Name+".unverified.cns" {
				t.Errorf("%s's name is %q", u.Name, u.AnsName)
			}
		}
		// The operator's wallets: its own and its further wallet users'.
		installs, err := splice.Active[splice.WalletAppInstall](ctx, st, v.Party)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, w := range installs {
			if w.Payload.EndUserParty == v.Party {
				names = append(names, w.Payload.EndUserName)
			}
		}
		if want := append([]string{v.OperatorUser}, v.OperatorWalletUsers...); !reflect.DeepEqual(names, want) {
			t.Errorf("%s's operator wallets %v, want %v", v.Name, names, want)
		}
		if got := s.balance(t, v.Party); got.Cmp(num("2000.0")) != 0 {
			t.Errorf("%s's operator holds %s, want its one tap of 2000", v.Name, got)
		}
		lic, err := splice.Active[splice.ValidatorLicense](ctx, st, v.Party)
		if err != nil || len(lic) != 1 {
			t.Errorf("%s has %d validator licenses, %v", v.Name, len(lic), err)
		}
	}
	// A user id is per participant: ledger-api-user is three users.
	for _, v := range s.Validators[1:] {
		for _, w := range s.Validators {
			if w.Participant == v.Participant {
				continue
			}
			for _, u := range append([]string{v.OperatorUser}, v.OperatorWalletUsers...) {
				if got, err := st.User(ctx, w.Participant, u); err == nil && got.PrimaryParty == v.Party {
					t.Errorf("%s's user %s is on %s's participant too", v.Name, u, w.Name)
				}
			}
		}
	}
	if v, ok := s.ValidatorNamed("app-user"); !ok || v.Party[:len("app_user_operator::")] != "app_user_operator::" {
		t.Errorf("app-user: %+v, %v", v, ok)
	}

	// Loading gives the same description back, and seeding again changes
	// nothing.
	loaded, err := splice.Load(ctx, st)
	if err != nil || !reflect.DeepEqual(loaded, s.Seeded) {
		t.Errorf("loaded %+v, %v\nseeded %+v", loaded, err, s.Seeded)
	}
	again, err := splice.Seed(ctx, s.net, splice.SeedConfig{})
	if err != nil || !reflect.DeepEqual(again, s.Seeded) {
		t.Errorf("seeding again: %+v, %v", again, err)
	}
}

// TestSeedDefaultValidators checks that naming the default validator
// explicitly seeds the very network the zero configuration does.
func TestSeedDefaultValidators(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	zero := seedNetwork(t, splice.SeedConfig{SVs: 1})
	explicit := seedNetwork(t, splice.SeedConfig{SVs: 1, Validators: []splice.ValidatorConfig{{Name: "validator", Users: []string{"alice", "bob"}}}})
	if !reflect.DeepEqual(zero.Seeded, explicit.Seeded) {
		t.Errorf("zero config seeded %+v\nexplicit %+v", zero.Seeded, explicit.Seeded)
	}
	ids := func(s seeded) []string {
		ups, err := s.net.Store().Updates(ctx, ledger.UpdateQuery{Participant: s.Validator.Participant})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, u := range ups {
			out = append(out, u.UpdateID())
		}
		return out
	}
	if a, b := ids(zero), ids(explicit); len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Errorf("update ids differ:\n%v\n%v", a, b)
	}
}

// TestSeedValidatorsRefused checks that a configuration Seed cannot build
// is refused before anything is written.
func TestSeedValidatorsRefused(t *testing.T) {
	t.Parallel()
	v := func(name string, users ...string) splice.ValidatorConfig {
		return splice.ValidatorConfig{Name: name, Users: users}
	}
	for _, tc := range []struct {
		name string
		vs   []splice.ValidatorConfig
		sv   bool
	}{
		{"empty name", []splice.ValidatorConfig{v("")}, false},
		{"upper case", []splice.ValidatorConfig{v("App")}, false},
		{"leading dash", []splice.ValidatorConfig{v("-app")}, false},
		{"too long", []splice.ValidatorConfig{v("a234567890123456789012345678901234567890x")}, false},
		{"twice", []splice.ValidatorConfig{v("app"), v("app")}, false},
		{"an SV participant's name", []splice.ValidatorConfig{v("sv-1")}, false},
		{"no such SV", []splice.ValidatorConfig{{Name: "sv", SV: 3}}, false},
		{"two on one SV", []splice.ValidatorConfig{{Name: "sv", SV: 1}, {Name: "sv-again", SV: 1}}, false},
		{"user twice on a participant", []splice.ValidatorConfig{{Name: "app", OperatorWalletUsers: []string{"x"}, Users: []string{"x"}}}, false},
		{"user named like the operator", []splice.ValidatorConfig{{Name: "app", Users: []string{"participant_admin"}}}, false},
		{"invalid user id", []splice.ValidatorConfig{v("app", "no spaces")}, false},
		{"one user name on two validators", []splice.ValidatorConfig{v("a", "alice"), v("b", "alice")}, false},
		{"invalid party hint", []splice.ValidatorConfig{{Name: "app", PartyHint: "a::b"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			net := openNetwork(t, "refused")
			_, err := splice.Seed(context.Background(), net, splice.SeedConfig{SVs: 2, Validators: tc.vs})
			wantKind(t, err, fault.InvalidArgument)
			head, err := net.Store().Head(context.Background())
			if err != nil || head.Sequence != 0 {
				t.Errorf("head %+v, %v: something was written", head, err)
			}
		})
	}
	// One user name on two participants is fine without names.
	s := seedNetwork(t, splice.SeedConfig{SVs: 1, NoAnsEntries: true, Validators: []splice.ValidatorConfig{v("a", "alice"), v("b", "alice")}})
	a, _ := s.Validators[0].User("alice")
	b, _ := s.Validators[1].User("alice")
	if a.Party == b.Party || a.Party == "" {
		t.Errorf("the two alices are %s and %s", a.Party, b.Party)
	}
}

// TestLoadLegacyDescription checks that a network description stored by
// a sandnet from before several validators (one "validator" and its
// "users") loads as one validator named "validator".
func TestLoadLegacyDescription(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := seedNetwork(t, splice.SeedConfig{SVs: 1})
	// The description as older versions stored it.
	legacy := map[string]any{
		"synchronizer": s.Synchronizer, "dsoParty": s.DSOParty, "svs": s.SVs,
		"validator": map[string]any{
			"participant": s.Validator.Participant, "participantName": s.Validator.ParticipantName,
			"party": s.Validator.Party, "operatorUser": s.Validator.OperatorUser,
		},
		"users": s.Users, "ansAcronym": s.AnsAcronym, "tickDuration": s.TickDuration,
	}
	raw, err := json.Marshal(legacy)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.net.Store().Write(ctx, func(w ledger.WriteTx) error { return w.SetMeta(ctx, splice.SeededMetaKey, string(raw)) }); err != nil {
		t.Fatal(err)
	}
	got, err := splice.Load(ctx, s.net.Store())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s.Seeded) {
		t.Errorf("legacy description loads as\n%+v\nwant\n%+v", got, s.Seeded)
	}
	// Stored again (AddSV does), it is in the new form.
	out, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(out, &keys); err != nil {
		t.Fatal(err)
	}
	if _, ok := keys["validators"]; !ok || keys["validator"] != nil || keys["users"] != nil {
		t.Errorf("stored as %s", out)
	}
}

// FuzzSeededDescription feeds stored network descriptions, old and new
// forms and garbage, to Load's decoder: it never panics, and what it
// accepts has its default validator in step with Validators.
func FuzzSeededDescription(f *testing.F) {
	f.Add(`{"validator":{"participant":"PAR::validator::1220ab","party":"validator::1220ab","operatorUser":"participant_admin"},"users":[{"name":"alice","party":"alice::1220ab"}]}`)
	f.Add(`{"validators":[{"name":"app-user","participant":"PAR::app-user::1220ab","users":[]},{"name":"sv","sv":1,"users":null}]}`)
	f.Add(`{"validators":[],"validator":{}}`)
	f.Add(`{"validators":null}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, raw string) {
		var s splice.Seeded
		if json.Unmarshal([]byte(raw), &s) != nil {
			return
		}
		if len(s.Validators) == 0 {
			if s.Validator.Participant != "" || s.Users != nil {
				t.Fatalf("no validators, but a default one: %+v", s)
			}
			return
		}
		if !reflect.DeepEqual(s.Validator, s.Validators[0]) || !reflect.DeepEqual(s.Users, s.Validators[0].Users) {
			t.Fatalf("default validator %+v, users %+v; validators %+v", s.Validator, s.Users, s.Validators)
		}
	})
}

// FuzzValidatorConfigCheck checks that Check refuses, with an
// InvalidArgument and no panic, whatever it refuses.
func FuzzValidatorConfigCheck(f *testing.F) {
	f.Add("app-user", "uma", "ledger-api-user", 0)
	f.Add("sv-1", "", "", 0)
	f.Add("sv", "sv", "", 1)
	f.Add("", "a b", "x::y", -1)
	f.Fuzz(func(t *testing.T, name, user, operator string, sv int) {
		cfg := splice.SeedConfig{SVs: 2, Validators: []splice.ValidatorConfig{
			splice.DefaultValidator(),
			{Name: name, Users: []string{user}, OperatorUser: operator, SV: sv},
		}}
		if err := cfg.Check(); err != nil && fault.KindOf(err) != fault.InvalidArgument {
			t.Fatalf("Check: %v, want an InvalidArgument", err)
		}
	})
}
