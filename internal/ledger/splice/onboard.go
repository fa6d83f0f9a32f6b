package splice

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// OnboardWallet gives a user of the validator participant a wallet, as
// Splice's validator does when it onboards a user: a ValidatorRight and a
// WalletAppInstall, signed by the validator operator and the user's party.
func OnboardWallet(ctx context.Context, net *ledger.Network, s *Seeded, user string, party daml.Party) error {
	v := s.Validator
	_, err := net.Submit(ctx, ledger.Command{
		Participant: v.Participant, UserID: v.OperatorUser,
		ActAs:     slices.Compact([]daml.Party{v.Party, party}),
		CommandID: CommandID("onboard-" + user),
		Run: func(tx *ledger.Tx) error {
			return InstallWallet(tx, s.DSOParty, v.Party, user, party)
		},
	})
	return err
}

// InstallWallet creates a user's ValidatorRight and WalletAppInstall, inside
// a command acting as the validator operator and the user's party.
func InstallWallet(tx *ledger.Tx, dso, validator daml.Party, user string, party daml.Party) error {
	if _, err := ledger.Create(tx, ValidatorRight{DSO: dso, User: party, Validator: validator}); err != nil {
		return err
	}
	_, err := ledger.Create(tx, WalletAppInstall{DSOParty: dso, ValidatorParty: validator, EndUserName: user, EndUserParty: party})
	return err
}

// TapFor mints amount CC for a party of the validator participant through
// AmuletRules_DevNet_Tap, with the amulet rules and the open round
// disclosed, as a wallet taps. It returns the new Amulet.
func TapFor(ctx context.Context, net *ledger.Network, s *Seeded, user string, party daml.Party, amount daml.Numeric) (daml.ContractID, error) {
	ac, err := LoadAmuletContext(ctx, net.Store(), s.DSOParty, net.Clock().Now())
	if err != nil {
		return "", err
	}
	t, err := net.Submit(ctx, ledger.Command{
		Participant: s.Validator.Participant, UserID: user, ActAs: []daml.Party{party},
		CommandID: CommandID("tap-" + user), Disclosed: ac.Disclosed(),
		Run: func(tx *ledger.Tx) error {
			_, err := Tap(tx, ac, party, amount)
			return err
		},
	})
	if err != nil {
		return "", err
	}
	return CreatedIn(t, Amulet{}.TemplateID())[0], nil
}

// CommandID makes a unique command id with a readable prefix.
func CommandID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// DedupCommandID is the command id Splice's apps submit a deduplicated
// command under (SpliceLedgerConnection.CommandId): the method name, "_",
// and the hex SHA-256 of the number of parties, the parties and the
// discriminator joined by "/". The same method, parties and discriminator
// always give the same id, which is what lets the ledger deduplicate a
// retried request.
func DedupCommandID(method string, parties []daml.Party, discriminator string) string {
	parts := make([]string, 0, len(parties)+2)
	parts = append(parts, strconv.Itoa(len(parties)))
	for _, p := range parties {
		parts = append(parts, string(p))
	}
	parts = append(parts, discriminator)
	h := sha256.Sum256([]byte(strings.Join(parts, "/")))
	return method + "_" + hex.EncodeToString(h[:])
}
