package validator

import (
	"context"
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// Onboard gives a ledger API user of the validator participant a party (an
// existing one, or a new one when party is empty) and a wallet, as
// POST /v0/admin/users and POST /v0/register do. Onboarding a user who
// has a wallet returns its party and changes nothing.
func (v *Validator) Onboard(ctx context.Context, user string, party daml.Party) (daml.Party, error) {
	if user == "" {
		return "", fault.New(fault.InvalidArgument, "user name must not be empty")
	}
	// The name becomes a ledger API user: one the participant could not
	// hold (a 1 MiB name, say) would never be served.
	if !ledger.ValidUserID(user) {
		return "", fault.New(fault.InvalidArgument,
			"invalid user name: use 1 to %d characters among letters, digits and %s", ledger.MaxUserIDLength, ledger.UserIDSymbols)
	}
	release, err := v.flight.begin("onboard/"+user, "onboarding of "+fault.Clip(user))
	if err != nil {
		return "", err
	}
	defer release()
	u, err := v.net.Store().User(ctx, v.cfg.Participant, user)
	switch {
	case err == nil:
		if party != "" && u.PrimaryParty != "" && u.PrimaryParty != party {
			return "", fault.New(fault.AlreadyExists, "User %s already exists with party %s", fault.Clip(user), u.PrimaryParty)
		}
		if u.PrimaryParty != "" {
			party = u.PrimaryParty
		}
	case fault.Is(err, fault.NotFound):
		u = &ledger.User{ID: user, Participant: v.cfg.Participant}
	default:
		return "", err
	}
	if party == "" {
		hint := partyHint(user)
		if party, err = v.net.AllocateParty(ctx, ledger.PartySpec{Hint: hint, Hosts: []ledger.Hosting{{Participant: v.cfg.Participant}}}); err != nil {
			return "", err
		}
	} else if !ledger.ValidPartyID(string(party)) {
		return "", fault.New(fault.InvalidArgument, "Invalid party_id %s", fault.Quote(string(party)))
	} else if !slices.Contains(v.net.HostedParties(v.cfg.Participant), party) {
		return "", fault.New(fault.InvalidArgument, "Party %s is not hosted on the validator's participant", fault.Clip(string(party)))
	}
	if u.PrimaryParty != party || !u.CanAct(party) || u.Deactivated {
		if _, err := v.net.UpdateUser(ctx, v.cfg.Participant, user, func(x *ledger.User) error {
			x.PrimaryParty, x.Deactivated = party, false
			for _, r := range []ledger.Right{{Kind: ledger.CanActAs, Party: party}, {Kind: ledger.CanReadAs, Party: party}} {
				if !x.Has(r) {
					x.Rights = append(x.Rights, r)
				}
			}
			return nil
		}); fault.Is(err, fault.NotFound) {
			u.PrimaryParty = party
			u.Rights = []ledger.Right{{Kind: ledger.CanActAs, Party: party}, {Kind: ledger.CanReadAs, Party: party}}
			if err := v.net.CreateUser(ctx, *u); err != nil {
				return "", err
			}
		} else if err != nil {
			return "", err
		}
	}
	if install, err := v.install(ctx, user, party); err != nil || install != nil {
		return party, err
	}
	_, err = v.submit(ctx, "onboard-"+user, []daml.Party{party}, nil, func(tx *ledger.Tx) error {
		return splice.InstallWallet(tx, v.cfg.DSO, v.cfg.Party, user, party)
	})
	return party, err
}

// partyHint turns a user name into a party id hint: Canton's hints allow
// letters, digits and a few symbols.
func partyHint(user string) string {
	var b strings.Builder
	for _, r := range user {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	if b.Len() == 0 {
		return "user"
	}
	return b.String()
}

// Users lists the names of the users with a wallet on this validator,
// sorted.
func (v *Validator) Users(ctx context.Context) ([]string, error) {
	installs, err := splice.Active[splice.WalletAppInstall](ctx, v.net.Store(), v.cfg.Party)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, w := range installs {
		if w.Payload.ValidatorParty == v.cfg.Party {
			names = append(names, w.Payload.EndUserName)
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// UserStatus is what GET /v0/wallet/user-status reports.
type UserStatus struct {
	Party               daml.Party
	Onboarded           bool
	WalletInstalled     bool
	HasFeaturedAppRight bool
}

// UserStatus reports whether an authorized user is onboarded and has a
// wallet.
func (v *Validator) UserStatus(ctx context.Context, user string) (UserStatus, error) {
	u, err := v.Authorize(ctx, user)
	if err != nil {
		return UserStatus{}, err
	}
	st := UserStatus{Party: u.PrimaryParty, Onboarded: true}
	install, err := v.install(ctx, user, u.PrimaryParty)
	if err != nil {
		return st, err
	}
	st.WalletInstalled = install != nil
	rights, err := splice.Active[splice.FeaturedAppRight](ctx, v.net.Store(), u.PrimaryParty)
	if err != nil {
		return st, err
	}
	st.HasFeaturedAppRight = slices.ContainsFunc(rights, func(r splice.Contract[splice.FeaturedAppRight]) bool {
		return r.Payload.Provider == u.PrimaryParty
	})
	return st, nil
}

// Featured reports whether the validator operator has a featured app
// right.
func (v *Validator) Featured(ctx context.Context) (bool, error) {
	rights, err := splice.Active[splice.FeaturedAppRight](ctx, v.net.Store(), v.cfg.Party)
	return slices.ContainsFunc(rights, func(r splice.Contract[splice.FeaturedAppRight]) bool {
		return r.Payload.Provider == v.cfg.Party
	}), err
}
