package netconfig

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// MetaKey is the ledger setting that holds the Spec a network was seeded
// from, so that a restart with a network file can check the file against
// it.
const MetaKey = "sandnet/network"

// DefaultBalance is what a wallet user taps at seeding unless the file
// says otherwise (splice.SeedConfig's default tap).
var DefaultBalance = daml.MustNumeric("2000")

// defaultUsers are the default validator's users.
var defaultUsers = []string{"alice", "bob"}

// Spec is the network a file (or the flags) describes, with every default
// filled in: two files that seed the same network have equal Specs. Its
// JSON form is what the ledger keeps (MetaKey).
type Spec struct {
	Seed          string          `json:"seed"`
	SVs           int             `json:"svs"`
	Preapprovals  bool            `json:"preapprovals"`
	ClockStart    string          `json:"clockStart"`
	ClockOffset   string          `json:"clockOffset"`
	Synchronizers []string        `json:"synchronizers"`
	Validators    []ValidatorSpec `json:"validators"`

	// stored is the JSON form UnmarshalSpec read.
	stored string
}

// ValidatorSpec is a validator of a Spec.
type ValidatorSpec struct {
	Name                string      `json:"name"`
	Party               string      `json:"party"`
	OperatorUser        string      `json:"operatorUser"`
	OperatorWalletUsers []string    `json:"operatorWalletUsers"`
	SV                  int         `json:"sv"`
	Parties             []PartySpec `json:"parties"`
	Users               []UserSpec  `json:"users"`
}

// newValidatorSpec is a validator with no users, its operator's defaults
// filled in.
func newValidatorSpec(name string) ValidatorSpec {
	return ValidatorSpec{
		Name: name, Party: name, OperatorUser: splice.OperatorUser, OperatorWalletUsers: []string{},
		Parties: []PartySpec{}, Users: []UserSpec{},
	}
}

// defaultUser is a wallet user as sandnet seeds it without a file.
func defaultUser(name string) UserSpec {
	return UserSpec{
		Name: name, Party: name, Wallet: true, Balance: amount(DefaultBalance),
		Names: []string{FullAnsName(name)}, ActAs: []string{}, ReadAs: []string{},
	}
}

// PartySpec is a party without a user of a Spec.
type PartySpec struct {
	Hint    string `json:"hint"`
	Balance string `json:"balance"`
}

// UserSpec is a user of a Spec. Names are full (".unverified.cns").
type UserSpec struct {
	Name             string   `json:"name"`
	Party            string   `json:"party"`
	Wallet           bool     `json:"wallet"`
	Balance          string   `json:"balance"`
	Preapproval      bool     `json:"preapproval"`
	Names            []string `json:"names"`
	PrimaryParty     string   `json:"primaryParty"`
	ActAs            []string `json:"actAs"`
	ReadAs           []string `json:"readAs"`
	ParticipantAdmin bool     `json:"participantAdmin"`
	ReadAsAnyParty   bool     `json:"readAsAnyParty"`
}

// Spec returns the network the file describes, with the seed, the SV count
// and the pre-approval switch given (the start command's values after
// flags, environment and file are combined).
func (c *Config) Spec(seed string, svs int, preapprovals bool) Spec {
	n := c.File.Network
	s := Spec{Seed: seed, SVs: svs, Preapprovals: preapprovals, Synchronizers: nonNil(n.Synchronizers)}
	if n.Clock.Start != nil {
		s.ClockStart = n.Clock.Start.Format(time.RFC3339Nano)
	}
	if n.Clock.Offset != nil {
		s.ClockOffset = n.Clock.Offset.String()
	}
	if n.Validators == nil {
		s.Validators = DefaultSpec(seed, svs, preapprovals).Validators
		return s
	}
	for _, v := range n.Validators {
		vs := newValidatorSpec(v.Name)
		if v.SV != nil {
			vs.SV = *v.SV
		}
		if v.Party != nil {
			vs.Party = *v.Party
		}
		if vs.SV > 0 {
			vs.Party = "" // the SV's
		}
		if v.OperatorUser != nil {
			vs.OperatorUser = *v.OperatorUser
		}
		vs.OperatorWalletUsers = nonNil(v.OperatorWalletUsers)
		for _, p := range v.Parties {
			b := daml.Numeric{}
			if p.Balance != nil {
				b = p.Balance.Numeric
			}
			vs.Parties = append(vs.Parties, PartySpec{Hint: p.Hint, Balance: amount(b)})
		}
		for _, u := range v.Users {
			us := UserSpec{
				Name: u.Name, Party: u.PartyHint(), Wallet: u.HasWallet(),
				Balance: "0", Names: []string{},
				PrimaryParty: deref(u.PrimaryParty), ActAs: nonNil(u.ActAs), ReadAs: nonNil(u.ReadAs),
				Preapproval: deref(u.Preapproval), ParticipantAdmin: deref(u.ParticipantAdmin), ReadAsAnyParty: deref(u.ReadAsAnyParty),
			}
			if us.Wallet {
				us.Balance = amount(DefaultBalance)
				if u.Balance != nil {
					us.Balance = amount(u.Balance.Numeric)
				}
				if u.Names == nil {
					us.Names = []string{FullAnsName(u.Name)}
				}
				for _, name := range u.Names {
					us.Names = append(us.Names, FullAnsName(name))
				}
			}
			vs.Users = append(vs.Users, us)
		}
		s.Validators = append(s.Validators, vs)
	}
	return s
}

// DefaultSpec is the network sandnet seeds without a file or
// --validator flags.
func DefaultSpec(seed string, svs int, preapprovals bool) Spec {
	return FlagSpec(seed, svs, preapprovals, nil)
}

// FlagSpec is the network sandnet seeds from its flags alone: validators,
// when not empty, are the --validator flags' (the default validator
// first), each user with the defaults.
func FlagSpec(seed string, svs int, preapprovals bool, validators []splice.ValidatorConfig) Spec {
	s := Spec{Seed: seed, SVs: svs, Preapprovals: preapprovals, Synchronizers: []string{}}
	if len(validators) == 0 {
		validators = []splice.ValidatorConfig{{Name: DefaultValidator, Users: defaultUsers}}
	}
	for _, vc := range validators {
		v := newValidatorSpec(vc.Name)
		v.Party, v.SV = cmp.Or(vc.PartyHint, vc.Name), vc.SV
		if vc.SV > 0 {
			v.Party = "" // the SV's
		}
		v.OperatorUser = cmp.Or(vc.OperatorUser, v.OperatorUser)
		v.OperatorWalletUsers = nonNil(vc.OperatorWalletUsers)
		for _, name := range vc.Users {
			v.Users = append(v.Users, defaultUser(name))
		}
		s.Validators = append(s.Validators, v)
	}
	return s
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}

// Marshal returns the Spec's canonical JSON form.
func (s Spec) Marshal() string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // only strings, numbers and booleans
	}
	return string(b)
}

// UnmarshalSpec reads a Spec stored with MetaKey.
func UnmarshalSpec(raw string) (Spec, error) {
	var s Spec
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return Spec{}, fmt.Errorf("read the stored network description: %w", err)
	}
	s.stored = raw
	return s, nil
}

// ClockStartAt returns the ledger time the network starts at, for a first
// start at now; zero when the clock starts with the wall clock.
func (s Spec) ClockStartAt(now time.Time) daml.Timestamp {
	switch {
	case s.ClockStart != "":
		t, _ := time.Parse(time.RFC3339Nano, s.ClockStart)
		return daml.Timestamp(t.UnixMicro())
	case s.ClockOffset != "":
		d, _ := time.ParseDuration(s.ClockOffset)
		if d > 0 {
			return daml.Timestamp(now.Add(d).UnixMicro())
		}
	}
	return 0
}

// SeedConfig returns the splice seeding configuration for the Spec's
// network (without the clock start and the genesis, which depend on when
// the network starts). The default network maps onto the zero
// configuration's defaults, so that it is seeded exactly as without a
// file.
func (s Spec) SeedConfig() splice.SeedConfig {
	cfg := splice.SeedConfig{SVs: s.SVs, Preapprovals: s.Preapprovals, Synchronizers: slices.Clone(s.Synchronizers)}
	if len(cfg.Synchronizers) == 0 {
		cfg.Synchronizers = nil
	}
	if reflect.DeepEqual(s.Validators, DefaultSpec("", 0, false).Validators) {
		return cfg // the default validator, spelled as the default
	}
	for _, v := range s.Validators {
		vc := splice.ValidatorConfig{
			Name: v.Name, PartyHint: v.Party, OperatorUser: v.OperatorUser, SV: v.SV,
			OperatorWalletUsers: slices.Clone(v.OperatorWalletUsers), Users: []string{},
		}
		for _, p := range v.Parties {
			vc.Parties = append(vc.Parties, splice.PartySeed{Hint: p.Hint, Balance: daml.MustNumeric(p.Balance)})
		}
		for _, u := range v.Users {
			vc.Users = append(vc.Users, u.Name)
			us := splice.UserSeed{
				NoWallet: !u.Wallet, Preapproval: u.Preapproval,
				PrimaryParty: u.PrimaryParty, ActAs: u.ActAs, ReadAs: u.ReadAs,
				ParticipantAdmin: u.ParticipantAdmin, ReadAsAnyParty: u.ReadAsAnyParty,
			}
			if u.Party != u.Name {
				us.PartyHint = u.Party
			}
			if b := daml.MustNumeric(u.Balance); u.Wallet && b.Cmp(DefaultBalance) != 0 {
				us.Balance = &b
			}
			if u.Wallet && !slices.Equal(u.Names, []string{FullAnsName(u.Name)}) {
				us.AnsNames = u.Names
			}
			if !isDefaultUser(us) {
				if vc.UserSeeds == nil {
					vc.UserSeeds = map[string]splice.UserSeed{}
				}
				vc.UserSeeds[u.Name] = us
			}
		}
		cfg.Validators = append(cfg.Validators, vc)
	}
	return cfg
}

// isDefaultUser reports whether a user is seeded as Seed seeds a user
// without a UserSeed.
func isDefaultUser(u splice.UserSeed) bool {
	return u.PartyHint == "" && !u.NoWallet && u.Balance == nil && !u.Preapproval && u.AnsNames == nil &&
		u.PrimaryParty == "" && len(u.ActAs) == 0 && len(u.ReadAs) == 0 && !u.ParticipantAdmin && !u.ReadAsAnyParty
}

// amount writes a decimal as the file would: no trailing zeros.
func amount(n daml.Numeric) string {
	s := n.String()
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Diff lists how two Specs differ, one line per differing field, as
// "validators[0].users[1].balance: 2000 → 500" (from a, the stored one,
// to b); empty when they are equal. A field a's JSON form lacks is not
// compared: a was stored by a sandnet that did not have it yet, and seeded
// what its default is.
func Diff(a, b Spec) []string {
	var out []string
	diffValue(&out, "", toAny(a), toAny(b))
	return out
}

func toAny(s Spec) any {
	var v any
	_ = json.Unmarshal([]byte(s.raw()), &v)
	return v
}

// raw is the JSON form Diff compares: the one UnmarshalSpec read, when
// the Spec was read, so that fields it lacked stay absent.
func (s Spec) raw() string {
	if s.stored != "" {
		return s.stored
	}
	return s.Marshal()
}

func diffValue(out *[]string, path string, a, b any) {
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			keys := make([]string, 0, len(av)+len(bv))
			for k := range av {
				keys = append(keys, k)
			}
			// Keys only b has are fields a's sandnet did not know.
			slices.Sort(keys)
			for _, k := range keys {
				diffValue(out, join(path, k), av[k], bv[k])
			}
			return
		}
	case []any:
		if bv, ok := b.([]any); ok && isList(av) && isList(bv) {
			for i := range max(len(av), len(bv)) {
				var x, y any
				if i < len(av) {
					x = av[i]
				}
				if i < len(bv) {
					y = bv[i]
				}
				diffValue(out, fmt.Sprintf("%s[%d]", path, i), x, y)
			}
			return
		}
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, fmt.Sprintf("%s: %s → %s", path, show(a), show(b)))
	}
}

// isList reports whether a JSON array holds objects, whose fields are
// compared one by one; an array of words is compared whole.
func isList(a []any) bool {
	for _, x := range a {
		if _, ok := x.(map[string]any); ok {
			return true
		}
	}
	return false
}

func show(v any) string {
	switch v := v.(type) {
	case nil:
		return "(none)"
	case map[string]any:
		if name, ok := v["name"].(string); ok {
			return fmt.Sprintf("%q", name)
		}
		if hint, ok := v["hint"].(string); ok {
			return fmt.Sprintf("%q", hint)
		}
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = show(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case string:
		return fmt.Sprintf("%q", v)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
