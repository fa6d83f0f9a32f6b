package splice

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// DefaultValidatorName names the validator of sandnet's default network,
// and its participant.
const DefaultValidatorName = "validator"

// DefaultValidator is the validator of sandnet's default network:
// DefaultValidatorName, with users alice and bob. A configuration that
// lists validators and wants that one too lists it first.
func DefaultValidator() ValidatorConfig {
	return ValidatorConfig{Name: DefaultValidatorName, Users: []string{"alice", "bob"}}
}

// ValidatorConfig describes one validator of a network to seed: a
// validator node with its operator party and its wallet users, as in
// Splice's LocalNet (an app provider and an app user, each with a
// participant and a validator app of its own).
type ValidatorConfig struct {
	// Name names the validator: 1 to 40 characters among a-z, 0-9 and
	// "-", starting with a letter or digit, unique in the network. A
	// validator with a participant of its own names that participant
	// after it, so it may not be "sv-<n>" (the SVs' participants).
	// sandnet serves it under /validators/<name>.
	Name string
	// PartyHint is the hint of the operator party (default: Name). A
	// validator on an SV's node has the SV's party instead.
	PartyHint string
	// OperatorUser is the validator app's ledger API user: participant
	// admin, reading as any party, acting as the operator party, and the
	// end user of the operator's own wallet (default "participant_admin",
	// Canton's administrator, who also exists on every participant whose
	// validator names another).
	OperatorUser string
	// OperatorWalletUsers are further ledger API users whose wallet is the
	// operator party's, as Splice's validator-wallet-users: each acts and
	// reads as the operator party (its primary party) and gets a wallet
	// install of its own on the operator's coin, without a tap, name or
	// pre-approval of its own. LocalNet names it like the node
	// ("app-user").
	OperatorWalletUsers []string
	// Users are wallet users with parties of their own (hint: the name),
	// each with a ledger API user, a wallet and a tap, and, as the
	// network's settings say, a name-service entry and a pre-approval.
	// Ledger API user ids are per participant: two validators may both
	// have an "alice" (two parties).
	Users []string
	// SV, when k > 0, runs the validator on SV k's node, as LocalNet's SV
	// node runs a validator app: its participant is SV k's and its
	// operator party SV k's party (PartyHint is ignored). 0 gives the
	// validator a participant of its own.
	SV int
	// UserSeeds shapes some of Users beyond the defaults, by user name (a
	// network file's users); a user without an entry gets the defaults.
	UserSeeds map[string]UserSeed
	// Parties are further parties allocated on the validator's
	// participant after its users' (no user, no wallet).
	Parties []PartySeed
}

// validatorName is what ValidatorConfig.Name allows.
var validatorName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// svParticipantName matches the SVs' participant names.
var svParticipantName = regexp.MustCompile(`^sv-[0-9]+$`)

// ValidValidatorName reports whether name may name a validator
// (ValidatorConfig.Name).
func ValidValidatorName(name string) bool { return validatorName.MatchString(name) }

// Check reports, as a fault.InvalidArgument, what in the configuration
// Seed would refuse (its validators, their names and users), without
// seeding anything: a command line or network file can be checked before
// anything is opened, also when the network exists already.
func (c SeedConfig) Check() error {
	c.defaults()
	return c.checkValidators()
}

// checkValidators refuses a configuration Seed could not build, or would
// build ambiguously, before anything is written. It runs after defaults.
func (c *SeedConfig) checkValidators() error {
	names := map[string]bool{}
	onSV := map[int]string{}
	// Every user registers its names ("<user>.unverified.<acronym>" by
	// default): two users of one name (on two participants) would ask for
	// the same entry.
	walletUsers := map[string]string{}
	for _, v := range c.Validators {
		if !ValidValidatorName(v.Name) {
			return fault.New(fault.InvalidArgument, "invalid validator name %s: use 1 to 40 characters among a-z, 0-9 and -, starting with a letter or digit", fault.Quote(v.Name))
		}
		if names[v.Name] {
			return fault.New(fault.InvalidArgument, "two validators are named %s", v.Name)
		}
		names[v.Name] = true
		switch {
		case v.SV < 0 || v.SV > c.SVs:
			return fault.New(fault.InvalidArgument, "validator %s runs on SV %d, but the network has SVs 1 to %d", v.Name, v.SV, c.SVs)
		case v.SV > 0 && onSV[v.SV] != "":
			return fault.New(fault.InvalidArgument, "validators %s and %s both run on SV %d", onSV[v.SV], v.Name, v.SV)
		case v.SV > 0:
			onSV[v.SV] = v.Name
		case svParticipantName.MatchString(v.Name):
			return fault.New(fault.InvalidArgument, "validator name %s is an SV participant's name; run it on that SV (SV: %s) or name it otherwise", v.Name, v.Name[3:])
		case !ledger.ValidHint(v.PartyHint):
			return fault.New(fault.InvalidArgument, "validator %s: invalid party hint %s", v.Name, fault.Quote(v.PartyHint))
		}
		// User ids are per participant: these share the validator's.
		ids := map[string]bool{v.OperatorUser: true}
		if v.SV == 0 {
			ids[OperatorUser] = true
		}
		for _, u := range slices.Concat([]string{v.OperatorUser}, v.OperatorWalletUsers, v.Users) {
			if !ledger.ValidUserID(u) {
				return fault.New(fault.InvalidArgument, "validator %s: invalid user id %s: use 1 to %d characters among letters, digits and %s", v.Name, fault.Quote(u), ledger.MaxUserIDLength, ledger.UserIDSymbols)
			}
		}
		for _, u := range slices.Concat(v.OperatorWalletUsers, v.Users) {
			if ids[u] {
				return fault.New(fault.InvalidArgument, "validator %s: user %s is named twice on its participant", v.Name, u)
			}
			ids[u] = true
		}
		for _, u := range v.Users {
			if hint := cmp.Or(v.UserSeeds[u].PartyHint, u); !ledger.ValidHint(hint) {
				return fault.New(fault.InvalidArgument, "validator %s: user %s: %s cannot be a party hint", v.Name, u, fault.Quote(hint))
			}
			for _, name := range c.userNames(v, u) {
				if other, ok := walletUsers[name]; ok {
					return fault.New(fault.InvalidArgument, "validators %s and %s both ask for the name %s (for their user %s), which would collide; rename one user or give it other names", other, v.Name, name, u)
				}
				walletUsers[name] = v.Name
			}
		}
	}
	return nil
}

// SetValidators records a network's validators: Validators, and the
// default one (the first) in Validator and its users in Users.
func (s *Seeded) SetValidators(vs []SeededValidator) {
	s.Validators = vs
	s.Validator, s.Users = SeededValidator{}, nil
	if len(vs) > 0 {
		s.Validator, s.Users = vs[0], vs[0].Users
	}
}

// ValidatorNamed returns the validator with the given name.
func (s *Seeded) ValidatorNamed(name string) (SeededValidator, bool) {
	for _, v := range s.Validators {
		if v.Name == name {
			return v, true
		}
	}
	return SeededValidator{}, false
}

// User returns the validator's wallet user with the given name (one with
// a party of its own).
func (v SeededValidator) User(name string) (SeededUser, bool) {
	for _, u := range v.Users {
		if u.Name == name {
			return u, true
		}
	}
	return SeededUser{}, false
}

// UnmarshalJSON reads a network description, also one stored by a sandnet
// from before several validators: its one validator ("validator") and
// users ("users") become the one-element Validators, named
// DefaultValidatorName.
func (s *Seeded) UnmarshalJSON(b []byte) error {
	type plain Seeded
	var in struct {
		plain
		Validator *SeededValidator `json:"validator"`
		Users     []SeededUser     `json:"users"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*s = Seeded(in.plain)
	vs := s.Validators
	if len(vs) == 0 && in.Validator != nil {
		v := *in.Validator
		if v.Name == "" {
			v.Name = DefaultValidatorName
		}
		v.Users = in.Users
		vs = []SeededValidator{v}
	}
	s.SetValidators(vs)
	return nil
}

// addValidator makes a validator's topology: its participant and operator
// party (or its SV's), its operator user and its wallet users' parties and
// ledger API users.
func (sd *seeder) addValidator(vc ValidatorConfig) (SeededValidator, error) {
	ctx, net, out := sd.ctx, sd.net, sd.out
	v := SeededValidator{Name: vc.Name, OperatorUser: vc.OperatorUser, SV: vc.SV, OperatorWalletUsers: vc.OperatorWalletUsers}
	var rights []ledger.Right
	putOperator := true
	if vc.SV > 0 {
		sv := out.SVs[vc.SV-1]
		v.Participant, v.ParticipantName, v.Party = sv.Participant, sv.ParticipantName, sv.Party
		rights = svOperatorRights(sv.Party, out.DSOParty)
		putOperator = vc.OperatorUser != sv.OperatorUser
	} else {
		p, err := net.AddParticipant(ctx, vc.Name)
		if err != nil {
			return v, err
		}
		v.Participant, v.ParticipantName = p.ID, p.Name
		host := ledger.Hosting{Participant: p.ID, Synchronizer: out.Synchronizer, Permission: ledger.PermissionSubmission}
		if v.Party, err = net.AllocateParty(ctx, ledger.PartySpec{Hint: vc.PartyHint, Hosts: []ledger.Hosting{host}}); err != nil {
			return v, err
		}
		rights = []ledger.Right{
			{Kind: ledger.ParticipantAdmin}, {Kind: ledger.CanReadAsAnyParty},
			{Kind: ledger.CanActAs, Party: v.Party},
		}
	}
	if putOperator {
		if err := net.PutUser(ctx, ledger.User{ID: vc.OperatorUser, Participant: v.Participant, PrimaryParty: v.Party, Rights: rights}); err != nil {
			return v, err
		}
	}
	if vc.SV == 0 && vc.OperatorUser != OperatorUser {
		// Every Canton participant has its participant_admin.
		if err := net.PutUser(ctx, ledger.User{ID: OperatorUser, Participant: v.Participant, Rights: []ledger.Right{{Kind: ledger.ParticipantAdmin}}}); err != nil {
			return v, err
		}
	}
	for _, name := range vc.OperatorWalletUsers {
		if err := net.PutUser(ctx, ledger.User{
			ID: name, Participant: v.Participant, PrimaryParty: v.Party,
			Rights: []ledger.Right{{Kind: ledger.CanActAs, Party: v.Party}, {Kind: ledger.CanReadAs, Party: v.Party}},
		}); err != nil {
			return v, err
		}
	}
	v.Users = []SeededUser{}
	for _, name := range vc.Users {
		us := vc.UserSeeds[name]
		hint := cmp.Or(us.PartyHint, name)
		host := ledger.Hosting{Participant: v.Participant, Synchronizer: out.Synchronizer, Permission: ledger.PermissionSubmission}
		party, err := net.AllocateParty(ctx, ledger.PartySpec{Hint: hint, Hosts: []ledger.Hosting{host}})
		if err != nil {
			return v, err
		}
		sd.recordParty(vc.Name, hint, party)
		if err := net.PutUser(ctx, ledger.User{
			ID: name, Participant: v.Participant, PrimaryParty: party,
			Rights: []ledger.Right{{Kind: ledger.CanActAs, Party: party}, {Kind: ledger.CanReadAs, Party: party}},
		}); err != nil {
			return v, err
		}
		if !us.NoWallet {
			v.Users = append(v.Users, SeededUser{Name: name, Party: party})
		}
	}
	return v, nil
}

// svOperatorRights are the rights of an SV node's operator user:
// participant admin, reading as any party, acting as the SV party and
// reading as the DSO.
func svOperatorRights(sv, dso daml.Party) []ledger.Right {
	return []ledger.Right{
		{Kind: ledger.ParticipantAdmin}, {Kind: ledger.CanReadAsAnyParty},
		{Kind: ledger.CanActAs, Party: sv}, {Kind: ledger.CanReadAs, Party: dso},
	}
}

// describe says which validator a seeding step failed for.
func (v SeededValidator) describe() string { return fmt.Sprintf("validator %s", v.Name) }
