package netconfig_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/netconfig"
)

// wallet wraps users in a file's one validator.
func wallet(users string) string {
	return "network:\n  validators:\n    - name: validator\n      users:\n" + users
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file string
		line       int
		field      string
		msg        string
	}{
		{"syntax", "network: [\n", 1, "", "not valid YAML"},
		{"tabs", "network:\n\tsvs: 2\n", 2, "", "not valid YAML"},
		{"not a mapping", "- a\n", 1, "", "want a mapping"},
		{"unknown top-level key", "listen: x\nlisten_addr: y\n", 2, "listen_addr", "unknown key (known here: listen, svListen, dataDir"},
		{"unknown nested key", "network:\n  sv: 3\n", 2, "network.sv", "unknown key"},
		{"unknown user key", wallet("        - name: alice\n          balanse: 10\n"), 6, "network.validators[0].users[0].balanse", "unknown key"},
		{"repeated key", "listen: a\nlisten: b\n", 2, "listen", "repeated key"},
		{"alias", "listen: &a x\ndataDir: *a\n", 2, "dataDir", "aliases"},
		{"merge key", "auth: &a {mode: none}\nlog:\n  <<: *a\n", 3, "log", "merge keys"},
		{"bad balance", wallet("        - name: alice\n          balance: abc\n"), 6, "network.validators[0].users[0].balance", `"abc" is not a decimal number`},
		{"negative balance", wallet("        - name: alice\n          balance: -1\n"), 6, "network.validators[0].users[0].balance", "negative"},
		{"too precise balance", wallet("        - name: alice\n          balance: 0.00000000001\n"), 6, "network.validators[0].users[0].balance", "not a decimal number"},
		{"svs not a number", "network:\n  svs: four\n", 2, "network.svs", "want a whole number"},
		{"svs zero", "network:\n  svs: 0\n", 2, "network.svs", "want 1 to 64"},
		{"svs too many", "network:\n  svs: 65\n", 2, "network.svs", "want 1 to 64"},
		{"empty seed", "network:\n  seed: \"\"\n", 2, "network.seed", "empty"},
		{"null string", "listen: ~\nnetwork:\n  validators:\n    - name: ~\n", 4, "network.validators[0].name", "want a string, got null"},
		{"bool as string", "listen: true\n", 1, "listen", "want a string, got a boolean"},
		{"bool not bool", "network:\n  preapprovals: yes\n", 2, "network.preapprovals", "want true or false"},
		{"list not list", "corsOrigins: a\n", 1, "corsOrigins", "want a list"},
		{"bad enum", "auth:\n  mode: basic\n", 2, "auth.mode", `"basic" is not one of hs256, jwks, none`},
		{"bad log level", "log:\n  level: trace\n", 2, "log.level", "not one of"},
		{"bad duration", "scan:\n  snapshotPeriod: 3 hours\n", 2, "scan.snapshotPeriod", "not a duration"},
		{"short period", "scan:\n  snapshotPeriod: 30s\n", 2, "scan.snapshotPeriod", "shorter than"},
		{"bad list limit", "http:\n  listMaxElementsLimit: 0\n", 2, "http.listMaxElementsLimit", "not positive"},
		{"bad database", "database:\n  url: mysql://x\n", 2, "database.url", "postgres://"},
		{"clock both", "network:\n  clock:\n    start: 2030-01-01T00:00:00Z\n    offset: 1h\n", 4, "network.clock.offset", "not both"},
		{"clock bad time", "network:\n  clock:\n    start: tomorrow\n", 3, "network.clock.start", "not an RFC 3339 time"},
		{"clock negative", "network:\n  clock:\n    offset: -1h\n", 3, "network.clock.offset", "negative"},
		{"bad synchronizer", "network:\n  synchronizers: [\"a b\"]\n", 2, "network.synchronizers[0]", "not a synchronizer alias"},
		{"global synchronizer", "network:\n  synchronizers: [global-domain]\n", 2, "network.synchronizers[0]", "already in the network"},
		{"repeated synchronizer", "network:\n  synchronizers: [x, x]\n", 2, "network.synchronizers[1]", "already in the network"},
		{"no validators", "network:\n  validators: []\n", 2, "network.validators", "needs a validator"},
		{"validator name", "network:\n  validators:\n    - name: V2\n", 3, "network.validators[0].name", "not a validator name"},
		{"validator without name", "network:\n  validators:\n    - users: []\n", 3, "network.validators[0].name", "needs a name"},
		{"validator named like an SV", "network:\n  validators:\n    - name: sv-2\n", 3, "network.validators[0].name", "SV participant's name"},
		{"repeated validator", "network:\n  validators:\n    - name: a\n    - name: a\n", 4, "network.validators[1].name", "listed twice"},
		{"validator on a missing SV", "network:\n  svs: 2\n  validators:\n    - name: a\n      sv: 3\n", 5, "network.validators[0].sv", "SVs 1 to 2"},
		{"two validators on an SV", "network:\n  validators:\n    - name: a\n      sv: 1\n    - name: b\n      sv: 1\n", 6, "network.validators[1].sv", "runs on SV 1 already"},
		{"SV validator with a party", "network:\n  validators:\n    - name: a\n      sv: 1\n      party: p\n", 5, "network.validators[0].party", "SV's party"},
		{"operator user clash", "network:\n  validators:\n    - name: a\n      operatorUser: op\n      users: [{name: op}]\n", 5, "network.validators[0].users[0].name", "already on the validator"},
		{"user party is the operator's", "network:\n  validators:\n    - name: a\n      users: [{name: a}]\n", 4, "network.validators[0].users[0].name", "already declared (by sandnet)"},
		{"default names collide across validators", "network:\n  validators:\n    - name: a\n      users: [{name: alice}]\n    - name: b\n      users: [{name: alice}]\n", 6, "network.validators[1].users[0].name", "already asked for"},
		{"default name invalid", wallet("        - name: Alice\n"), 5, "network.validators[0].users[0].name", "default name"},
		{"user without name", wallet("        - balance: 1\n"), 5, "network.validators[0].users[0].name", "needs a name"},
		{"bad user id", wallet("        - name: \"al ice\"\n"), 5, "network.validators[0].users[0].name", "not a user id"},
		{"operator user id", wallet("        - name: participant_admin\n"), 5, "network.validators[0].users[0].name", "an operator user"},
		{"repeated user", wallet("        - name: alice\n        - name: alice\n"), 6, "network.validators[0].users[1].name", "listed twice"},
		{"repeated party", wallet("        - name: alice\n        - name: bob\n          party: alice\n"), 7, "network.validators[0].users[1].party", `party "alice" is already declared (by network.validators[0].users[0].name)`},
		{"reserved party", wallet("        - name: DSO\n"), 5, "network.validators[0].users[0].name", "already declared (by sandnet)"},
		{"bad party hint", wallet("        - name: alice\n          party: \"a::b\"\n"), 6, "network.validators[0].users[0].party", "not a party hint"},
		{"balance without wallet", wallet("        - name: alice\n          wallet: false\n          balance: 5\n"), 7, "network.validators[0].users[0].balance", "needs a wallet"},
		{"names without wallet", wallet("        - name: alice\n          wallet: false\n          names: [x]\n"), 7, "network.validators[0].users[0].names", "needs a wallet"},
		{"bad name", wallet("        - name: alice\n          names: [Alice]\n"), 6, "network.validators[0].users[0].names[0]", `"Alice" is not a name`},
		{"name taken twice", wallet("        - name: alice\n          names: [x]\n        - name: bob\n          names: [x.unverified.cns]\n"), 8, "network.validators[0].users[1].names[0]", "already asked for"},
		{"names with no balance", wallet("        - name: alice\n          balance: 0\n"), 6, "network.validators[0].users[0].balance", "pays for them"},
		{"explicit names with no balance", wallet("        - name: alice\n          balance: 0\n          names: [a]\n"), 6, "network.validators[0].users[0].balance", "pays for them"},
		{"unknown actAs", wallet("        - name: alice\n          actAs: [carol]\n"), 6, "network.validators[0].users[0].actAs[0]", `party "carol" is not declared`},
		{"reserved readAs", wallet("        - name: alice\n          readAs: [DSO]\n"), 6, "network.validators[0].users[0].readAs[0]", "not declared"},
		{"unknown primary", wallet("        - name: alice\n          primaryParty: zed\n"), 6, "network.validators[0].users[0].primaryParty", "not declared"},
		{"bad party balance", "network:\n  validators:\n    - name: validator\n      parties:\n        - hint: t\n          balance: 1e3\n", 6, "network.validators[0].parties[0].balance", "not a decimal"},
		{"party clashes with user", "network:\n  validators:\n    - name: validator\n      parties: [{hint: alice}]\n      users: [{name: alice}]\n", 4, "network.validators[0].parties[0].hint", "already declared"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := netconfig.Parse("sandnet.yaml", []byte(tc.file))
			var e *netconfig.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want a *netconfig.Error", err)
			}
			if e.File != "sandnet.yaml" || e.Line != tc.line || e.Field != tc.field || !strings.Contains(e.Msg, tc.msg) {
				t.Fatalf("got %q (line %d, field %q), want line %d, field %q, message containing %q", err, e.Line, e.Field, tc.line, tc.field, tc.msg)
			}
			prefix := "sandnet.yaml:"
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Fatalf("%q does not start with %q", err, prefix)
			}
		})
	}
}

// The message names file, line and field in that order, as the issue
// spells it.
func TestErrorFormat(t *testing.T) {
	t.Parallel()
	file := "network:\n  validators:\n    - name: validator\n      users:\n        - name: alice\n          balance: \"abc\"\n"
	_, err := netconfig.Parse("sandnet.yaml", []byte(file))
	want := `sandnet.yaml:6: network.validators[0].users[0].balance: "abc" is not a decimal number`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v, want %s…", err, want)
	}
}

func TestParseDefaultsAndFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		file  string
		flags map[string]string
		check func(t *testing.T, c *netconfig.Config)
	}{
		{name: "empty file", file: "", flags: map[string]string{}, check: func(t *testing.T, c *netconfig.Config) {
			if d := netconfig.Diff(netconfig.DefaultSpec("s", 4, false), c.Spec("s", 4, false)); len(d) > 0 {
				t.Fatal(d)
			}
		}},
		{name: "only comments", file: "# nothing\n", flags: map[string]string{}},
		{name: "settings become flags", file: "listen: 127.0.0.1:0\ndataDir: ./d\ndatabase: {url: \"postgres://x\", schema: s}\nauth: {mode: none, secret: sec, audience: aud, jwksUrl: j}\nscan: {snapshotPeriod: 1h}\nhttp: {listMaxElementsLimit: 5}\nlog: {format: json, level: debug}\nsvListen: 127.0.0.1:0\nnetwork: {seed: x, svs: 2, preapprovals: true}\n",
			flags: map[string]string{
				"listen": "127.0.0.1:0", "data-dir": "./d", "database-url": "postgres://x", "database-schema": "s",
				"auth": "none", "auth-secret": "sec", "auth-audience": "aud", "auth-jwks-url": "j", "scan-snapshot-period": "1h",
				"http-list-max-elements-limit": "5", "log-format": "json", "log-level": "debug", "sv-listen": "127.0.0.1:0",
				"network-seed": "x", "svs": "2", "seed-preapprovals": "true",
			}},
		{name: "null leaves a setting out", file: "listen: ~\n", flags: map[string]string{}},
		{name: "cors list", file: "corsOrigins: [a, b]\n", flags: map[string]string{"cors-origins": "[a b]"}},
		{name: "users", file: wallet("        - name: alice\n          balance: 12.5\n          preapproval: true\n          names: [al, alice2.unverified.cns]\n          actAs: [t]\n          readAs: [bobby]\n          primaryParty: t\n          participantAdmin: true\n          readAsAnyParty: true\n        - name: bob\n          party: bobby\n          wallet: false\n") + "      parties: [{hint: t, balance: 7}]\n",
			flags: map[string]string{}, check: func(t *testing.T, c *netconfig.Config) {
				s := c.Spec("s", 1, false)
				u := s.Validators[0].Users
				if u[0].Balance != "12.5" || !u[0].Preapproval || !slices.Equal(u[0].Names, []string{"al.unverified.cns", "alice2.unverified.cns"}) ||
					u[0].PrimaryParty != "t" || !u[0].ParticipantAdmin || !u[0].ReadAsAnyParty {
					t.Fatalf("alice: %+v", u[0])
				}
				if u[1].Party != "bobby" || u[1].Wallet || u[1].Balance != "0" || len(u[1].Names) != 0 {
					t.Fatalf("bob: %+v", u[1])
				}
				cfg := s.SeedConfig().Validators[0]
				if !slices.Equal(cfg.Users, []string{"alice", "bob"}) || len(cfg.Parties) != 1 || cfg.Parties[0].Balance.Cmp(daml.MustNumeric("7")) != 0 {
					t.Fatalf("seed config: %+v", cfg)
				}
				a := cfg.UserSeeds["alice"]
				if a.Balance == nil || a.Balance.Cmp(daml.MustNumeric("12.5")) != 0 || !a.Preapproval || len(a.AnsNames) != 2 || a.PrimaryParty != "t" {
					t.Fatalf("alice's seed: %+v", a)
				}
				if b := cfg.UserSeeds["bob"]; b.PartyHint != "bobby" || !b.NoWallet {
					t.Fatalf("bob's seed: %+v", b)
				}
			}},
		{name: "no names", file: wallet("        - name: alice\n          names: []\n          balance: 0\n"), flags: map[string]string{}, check: func(t *testing.T, c *netconfig.Config) {
			cfg := c.Spec("s", 1, false).SeedConfig().Validators[0]
			if a := cfg.UserSeeds["alice"]; a.AnsNames == nil || len(a.AnsNames) != 0 || a.Balance == nil || !a.Balance.IsZero() {
				t.Fatalf("alice's seed: %+v", a)
			}
		}},
		{name: "clock offset", file: "network:\n  clock: {offset: 24h}\n", flags: map[string]string{}, check: func(t *testing.T, c *netconfig.Config) {
			if s := c.Spec("s", 1, false); s.ClockOffset != "24h0m0s" {
				t.Fatalf("offset %q", s.ClockOffset)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := netconfig.Parse("f.yaml", []byte(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for k, v := range c.Flags {
				if v.IsList {
					got[k] = "[" + strings.Join(v.List, " ") + "]"
				} else {
					got[k] = v.Value
				}
			}
			if tc.flags != nil && !mapsEqual(got, tc.flags) {
				t.Fatalf("flags %v, want %v", got, tc.flags)
			}
			if tc.check != nil {
				tc.check(t, c)
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestDiff(t *testing.T) {
	t.Parallel()
	a := netconfig.DefaultSpec("sandnet", 4, false)
	same := netconfig.DefaultSpec("sandnet", 4, false)
	if d := netconfig.Diff(a, same); len(d) != 0 {
		t.Fatalf("equal specs differ: %v", d)
	}
	c, err := netconfig.Parse("f.yaml", []byte(wallet("        - name: alice\n          balance: 500\n")+"  svs: 2\n  synchronizers: [x]\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := c.Spec("other", 2, false)
	got := strings.Join(netconfig.Diff(a, b), "\n")
	for _, want := range []string{
		`seed: "sandnet" → "other"`,
		"svs: 4 → 2",
		`synchronizers: [] → ["x"]`,
		`validators[0].users[0].balance: "2000" → "500"`,
		`validators[0].users[1]: "bob" → (none)`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
	// The stored form round-trips.
	back, err := netconfig.UnmarshalSpec(b.Marshal())
	if err != nil || len(netconfig.Diff(b, back)) != 0 {
		t.Fatalf("round trip: %v %v", err, netconfig.Diff(b, back))
	}
}

// FuzzParse: any input gives a Config or an *Error naming the file, never a
// panic.
func FuzzParse(f *testing.F) {
	f.Add(netconfig.Example())
	f.Add([]byte(wallet("        - name: alice\n          balance: 1\n          actAs: [bob]\n        - name: bob\n")))
	f.Add([]byte("listen: &a x\ndataDir: *a\n"))
	f.Add([]byte("network: {svs: 3, clock: {offset: 1h}, synchronizers: [a]}\n"))
	f.Add([]byte("a: [\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := netconfig.Parse("f.yaml", data)
		if err != nil {
			var e *netconfig.Error
			if !errors.As(err, &e) || e.File != "f.yaml" {
				t.Fatalf("error %v is not a *netconfig.Error for f.yaml", err)
			}
			return
		}
		s := c.Spec("seed", 4, false)
		_ = s.SeedConfig()
		if back, err := netconfig.UnmarshalSpec(s.Marshal()); err != nil || len(netconfig.Diff(s, back)) != 0 {
			t.Fatalf("the spec does not round-trip: %v", err)
		}
	})
}

// The flags' validators (--validator, --localnet's) survive the spec: a
// file without a validators section seeds them as the flags alone do.
func TestFlagSpecKeepsValidators(t *testing.T) {
	t.Parallel()
	in := []splice.ValidatorConfig{
		{Name: "app-user", PartyHint: "app_user_x", OperatorUser: "ledger-api-user", OperatorWalletUsers: []string{"app-user"}, Users: []string{"alice", "bob"}},
		{Name: "app-provider", OperatorWalletUsers: []string{"app-provider"}},
		{Name: "sv", SV: 1, OperatorUser: "ledger-api-user"},
	}
	out := netconfig.FlagSpec("s", 1, false, in).SeedConfig().Validators
	if len(out) != len(in) {
		t.Fatalf("%d validators, want %d", len(out), len(in))
	}
	for i, want := range in {
		got := out[i]
		if want.PartyHint == "" && want.SV == 0 {
			want.PartyHint = want.Name
		}
		if want.OperatorUser == "" {
			want.OperatorUser = splice.OperatorUser
		}
		if got.Name != want.Name || got.PartyHint != want.PartyHint || got.OperatorUser != want.OperatorUser || got.SV != want.SV ||
			!slices.Equal(got.OperatorWalletUsers, want.OperatorWalletUsers) && len(want.OperatorWalletUsers)+len(got.OperatorWalletUsers) > 0 ||
			!slices.Equal(got.Users, want.Users) && len(want.Users)+len(got.Users) > 0 || got.UserSeeds != nil || got.Parties != nil {
			t.Errorf("validator %d: got %+v, want %+v", i, got, want)
		}
	}
}

// A stored spec from a sandnet that lacked a field is not refused for it;
// a field both know is compared.
func TestDiffOlderStoredSpec(t *testing.T) {
	t.Parallel()
	now := netconfig.DefaultSpec("sandnet", 4, false)
	old := strings.Replace(now.Marshal(), `"operatorWalletUsers":[],`, "", 1)
	if old == now.Marshal() {
		t.Fatal("the test's edit did not apply")
	}
	stored, err := netconfig.UnmarshalSpec(old)
	if err != nil {
		t.Fatal(err)
	}
	if d := netconfig.Diff(stored, now); len(d) != 0 {
		t.Errorf("a field the stored spec lacks differs: %v", d)
	}
	c, err := netconfig.Parse("f.yaml", []byte("network:\n  clock: {offset: 1h}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d := netconfig.Diff(stored, c.Spec("sandnet", 4, false)); len(d) != 1 || !strings.HasPrefix(d[0], "clockOffset:") {
		t.Errorf("diff %v, want the clock offset", d)
	}
}
