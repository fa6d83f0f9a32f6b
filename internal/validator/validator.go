package validator

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// Scan is what the validator reads from a Scan: the DSO's contracts its
// commands use, which its users cannot see and so submit as disclosed
// contracts. internal/scanclient implements it over HTTP.
type Scan interface {
	AmuletRules(ctx context.Context) (*ledger.Contract, error)
	OpenAndIssuingRounds(ctx context.Context) (open, issuing []*ledger.Contract, err error)
	AnsRules(ctx context.Context) (*ledger.Contract, error)
	// ExternalPartyAmuletRules returns the DSO's ExternalPartyAmuletRules,
	// which external parties' transfer commands are created through.
	ExternalPartyAmuletRules(ctx context.Context) (*ledger.Contract, error)
	// TransferPreapprovalByParty returns a party's pre-approval (the
	// latest valid); fault.NotFound when it has none.
	TransferPreapprovalByParty(ctx context.Context, party daml.Party) (*ledger.Contract, error)
	// Invalidate drops cached contracts after a command found one stale.
	Invalidate()
	// TransferFactory asks the token-standard registry for the factory
	// and context of a transfer whose choice arguments are arg.
	TransferFactory(ctx context.Context, arg splice.TransferFactoryTransfer) (splice.RegistryFactory, error)
	// TransferInstructionContext asks the registry for the context of a
	// choice ("accept", "reject", "withdraw") on a transfer instruction.
	TransferInstructionContext(ctx context.Context, id daml.ContractID, choice string) (splice.RegistryContext, error)
}

// Config describes the validator node.
type Config struct {
	// Participant is the validator's participant, which hosts its users.
	Participant ledger.ParticipantID
	// Party is the validator operator's party; OperatorUser its ledger API
	// user (also the operator's wallet user).
	Party        daml.Party
	OperatorUser string
	// DSO is the DSO party.
	DSO daml.Party
	// AnsAcronym is the name service's acronym ("cns").
	AnsAcronym string
}

// Validator is the validator app.
type Validator struct {
	cfg     Config
	net     *ledger.Network
	scan    Scan
	store   Store
	log     *slog.Logger
	txlog   *TxLog
	flight  inFlight
	decoded decodeCache
	// spending serialises what spends each wallet's amulets.
	spending walletLocks
	// prepareSeq numbers the commands the validator prepares for external
	// parties. A prepared command's id is in the hash the party signs, so
	// it is made of ledger time and this number rather than random bytes:
	// the same steps give the same hash (externalsend.go).
	prepareSeq atomic.Int64
}

// New returns a validator over its participant's network, a Scan and its
// own store.
func New(cfg Config, net *ledger.Network, scan Scan, store Store, log *slog.Logger) *Validator {
	if log == nil {
		log = slog.Default()
	}
	v := &Validator{cfg: cfg, net: net, scan: scan, store: store, log: log}
	v.txlog = &TxLog{Network: net, Participant: cfg.Participant, Store: store, Logger: log}
	v.flight.m = map[string]bool{}
	return v
}

// Config returns the validator's configuration.
func (v *Validator) Config() Config { return v.cfg }

// TxLog returns the validator's transaction log ingester.
func (v *Validator) TxLog() *TxLog { return v.txlog }

// Wallet is an authenticated wallet user: a ledger API user of the
// validator participant who can act as its primary party, and its wallet.
type Wallet struct {
	User  string
	Party daml.Party
	// Install is the user's WalletAppInstall, through which the validator
	// operator acts for the user.
	Install daml.ContractID
}

// Authorize checks that a token's subject may act for a wallet: the user
// exists on the validator participant, is active, and can act as its
// primary party. Anything else is Splice's 403.
func (v *Validator) Authorize(ctx context.Context, user string) (*ledger.User, error) {
	u, err := v.net.Store().User(ctx, v.cfg.Participant, user)
	if err != nil && !fault.Is(err, fault.NotFound) {
		return nil, err
	}
	if err != nil || u.Deactivated || u.PrimaryParty == "" || !u.CanAct(u.PrimaryParty) {
		return nil, fault.New(fault.PermissionDenied, "Authorization Failed for %s", fault.Clip(user))
	}
	return u, nil
}

// Wallet authorizes user and finds its wallet; operation names the call
// in the 404 a user without a wallet gets, as Splice's message does.
func (v *Validator) Wallet(ctx context.Context, user, operation string) (Wallet, error) {
	u, err := v.Authorize(ctx, user)
	if err != nil {
		return Wallet{}, err
	}
	install, err := v.install(ctx, user, u.PrimaryParty)
	if err != nil {
		return Wallet{}, err
	}
	if install == nil {
		return Wallet{}, fault.New(fault.NotFound, "No wallet found for user '%s' for operation '%s'", fault.Clip(user), operation)
	}
	return Wallet{User: user, Party: u.PrimaryParty, Install: install.ID}, nil
}

// install returns the user's active WalletAppInstall, or nil.
func (v *Validator) install(ctx context.Context, user string, party daml.Party) (*ledger.Contract, error) {
	installs, err := splice.Active[splice.WalletAppInstall](ctx, v.net.Store(), party)
	if err != nil {
		return nil, err
	}
	for _, w := range installs {
		if w.Payload.EndUserName == user && w.Payload.ValidatorParty == v.cfg.Party && w.Payload.EndUserParty == party {
			return w.Contract, nil
		}
	}
	return nil, nil
}

// IsOperator reports whether user administers the validator: its operator
// user, or a participant admin of its participant.
func (v *Validator) IsOperator(ctx context.Context, user string) (bool, error) {
	if user == v.cfg.OperatorUser {
		return true, nil
	}
	u, err := v.net.Store().User(ctx, v.cfg.Participant, user)
	if fault.Is(err, fault.NotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return !u.Deactivated && u.IsAdmin(), nil
}

// submit runs a command on the validator participant acting as the
// operator and the given parties, with the given disclosed contracts, under
// a command id made unique from prefix.
func (v *Validator) submit(ctx context.Context, prefix string, actAs []daml.Party, disclosed []*ledger.Contract, run func(tx *ledger.Tx) error) (*ledger.Transaction, error) {
	return v.submitID(ctx, splice.CommandID(prefix), actAs, disclosed, run)
}

// submitID is submit under a given command id, which the ledger
// deduplicates on (with the operator's user and the actAs parties).
func (v *Validator) submitID(ctx context.Context, commandID string, actAs []daml.Party, disclosed []*ledger.Contract, run func(tx *ledger.Tx) error) (*ledger.Transaction, error) {
	return v.net.Submit(ctx, ledger.Command{
		Participant: v.cfg.Participant, UserID: v.cfg.OperatorUser,
		ActAs:     slices.Compact(append([]daml.Party{v.cfg.Party}, actAs...)),
		CommandID: commandID, Disclosed: disclosed, Run: run,
	})
}

// inFlight remembers the commands being submitted, keyed by what makes
// them duplicates, so that a second identical request while the first is
// running is refused with 429, as Splice's ABORTED "in flight" is.
type inFlight struct {
	mu sync.Mutex
	m  map[string]bool
}

// begin claims key; the returned function releases it.
func (f *inFlight) begin(key, what string) (func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m[key] {
		return nil, fault.New(fault.Aborted, "%s is already in flight; retry once it completes", what)
	}
	f.m[key] = true
	return func() {
		f.mu.Lock()
		delete(f.m, key)
		f.mu.Unlock()
	}, nil
}
