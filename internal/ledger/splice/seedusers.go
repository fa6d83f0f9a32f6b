package splice

import (
	"cmp"
	"fmt"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// UserSeed is what a network file can ask for one user of a validator
// beyond Seed's defaults. Its zero value is the default user.
type UserSeed struct {
	// PartyHint is the hint of the user's party (default: the user name).
	PartyHint string
	// NoWallet makes a plain ledger API user: a party and rights, but no
	// wallet, no tap, no name and no pre-approval.
	NoWallet bool
	// Balance, when set, is the amulet the user taps instead of
	// SeedConfig.TapAmount; zero taps nothing. Names are paid from it.
	Balance *daml.Numeric
	// Preapproval gives the user a transfer pre-approval even when
	// SeedConfig.Preapprovals is off.
	Preapproval bool
	// AnsNames, when not nil, are the names registered for the user, in
	// full ("<label>.unverified.<acronym>"), instead of
	// "<user>.unverified.<acronym>"; empty registers none.
	AnsNames []string
	// PrimaryParty is the hint of the user's primary party, when not the
	// user's own party.
	PrimaryParty string
	// ActAs and ReadAs are hints of further parties of the validator
	// (other users' or ValidatorConfig.Parties) the user acts or reads as.
	ActAs, ReadAs []string
	// ParticipantAdmin and ReadAsAnyParty grant those rights.
	ParticipantAdmin, ReadAsAnyParty bool
}

// extraRights reports whether the user's rights differ from a default
// user's (acting and reading as its own party, its primary party).
func (u UserSeed) extraRights() bool {
	return u.PrimaryParty != "" || len(u.ActAs) > 0 || len(u.ReadAs) > 0 || u.ParticipantAdmin || u.ReadAsAnyParty
}

// PartySeed is a party allocated on a validator's participant with no
// user of its own.
type PartySeed struct {
	// Hint is the party's hint.
	Hint string
	// Balance is the amulet the party is minted at seeding (zero: none).
	Balance daml.Numeric
}

// userNames returns the names to register for a wallet user of a
// validator: its UserSeed's, or "<user>.unverified.<acronym>" unless
// NoAnsEntries.
func (c *SeedConfig) userNames(v ValidatorConfig, user string) []string {
	us := v.UserSeeds[user]
	switch {
	case us.NoWallet:
		return nil
	case us.AnsNames != nil:
		return us.AnsNames
	case c.NoAnsEntries:
		return nil
	}
	return []string{user + ".unverified." + c.AnsAcronym}
}

// validatorConfig returns the configuration of the validator named name.
func (sd *seeder) validatorConfig(name string) ValidatorConfig {
	for _, vc := range sd.cfg.Validators {
		if vc.Name == name {
			return vc
		}
	}
	return ValidatorConfig{}
}

// userSeed returns what the configuration asks for a user of a validator.
func (sd *seeder) userSeed(validator, user string) UserSeed {
	return sd.validatorConfig(validator).UserSeeds[user]
}

// userNames returns the names to register for a user of a validator.
func (sd *seeder) userNames(validator, user string) []string {
	return sd.cfg.userNames(sd.validatorConfig(validator), user)
}

// recordParty remembers a party allocated on a validator by its hint.
func (sd *seeder) recordParty(validator, hint string, p daml.Party) {
	if sd.parties == nil {
		sd.parties = map[string]map[string]daml.Party{}
	}
	if sd.parties[validator] == nil {
		sd.parties[validator] = map[string]daml.Party{}
	}
	sd.parties[validator][hint] = p
}

// party returns the party allocated on a validator with a hint.
func (sd *seeder) party(validator, hint string) (daml.Party, error) {
	p, ok := sd.parties[validator][hint]
	if !ok {
		return "", fault.New(fault.InvalidArgument, "validator %s has no seeded party with the hint %s", validator, fault.Quote(hint))
	}
	return p, nil
}

// addParties allocates a validator's further parties, then gives the
// users whose UserSeed asks for more than their own party their full
// rights (once every party they name exists).
func (sd *seeder) addParties(vc ValidatorConfig, v SeededValidator) error {
	ctx, net := sd.ctx, sd.net
	host := ledger.Hosting{Participant: v.Participant, Synchronizer: sd.out.Synchronizer, Permission: ledger.PermissionSubmission}
	for _, p := range vc.Parties {
		party, err := net.AllocateParty(ctx, ledger.PartySpec{Hint: p.Hint, Hosts: []ledger.Hosting{host}})
		if err != nil {
			return fmt.Errorf("party %s: %w", p.Hint, err)
		}
		sd.recordParty(vc.Name, p.Hint, party)
	}
	for _, name := range vc.Users {
		us := vc.UserSeeds[name]
		if !us.extraRights() {
			continue
		}
		if err := sd.putUserRights(vc.Name, v.Participant, name, us); err != nil {
			return fmt.Errorf("user %s: %w", name, err)
		}
	}
	return nil
}

// putUserRights gives a user of a validator the rights its UserSeed asks
// for, beside acting and reading as its own party.
func (sd *seeder) putUserRights(validator string, participant ledger.ParticipantID, name string, us UserSeed) error {
	own, err := sd.party(validator, cmp.Or(us.PartyHint, name))
	if err != nil {
		return err
	}
	primary := own
	if us.PrimaryParty != "" {
		if primary, err = sd.party(validator, us.PrimaryParty); err != nil {
			return err
		}
	}
	rights := []ledger.Right{{Kind: ledger.CanActAs, Party: own}, {Kind: ledger.CanReadAs, Party: own}}
	for _, r := range []struct {
		kind  ledger.RightKind
		hints []string
	}{{ledger.CanActAs, us.ActAs}, {ledger.CanReadAs, us.ReadAs}} {
		for _, h := range r.hints {
			p, err := sd.party(validator, h)
			if err != nil {
				return err
			}
			rights = append(rights, ledger.Right{Kind: r.kind, Party: p})
		}
	}
	if us.ParticipantAdmin {
		rights = append(rights, ledger.Right{Kind: ledger.ParticipantAdmin})
	}
	if us.ReadAsAnyParty {
		rights = append(rights, ledger.Right{Kind: ledger.CanReadAsAnyParty})
	}
	return sd.net.PutUser(sd.ctx, ledger.User{ID: name, Participant: participant, PrimaryParty: primary, Rights: rights})
}

// tapParties mints the balances of a validator's further parties,
// submitted by its operator.
func (sd *seeder) tapParties(v SeededValidator) error {
	for _, p := range sd.validatorConfig(v.Name).Parties {
		if p.Balance.IsZero() {
			continue
		}
		party, err := sd.party(v.Name, p.Hint)
		if err != nil {
			return err
		}
		if err := sd.tap(v.Participant, v.OperatorUser, party, p.Balance); err != nil {
			return fmt.Errorf("tap for party %s: %w", p.Hint, err)
		}
	}
	return nil
}
