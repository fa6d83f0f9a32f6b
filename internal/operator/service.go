package operator

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// Operator acts on a seeded network.
type Operator struct {
	net    *ledger.Network
	seeded *splice.Seeded

	// addingSV serialises AddSV.
	addingSV sync.Mutex
	// svAdded, when set, serves a new SV (its Scan, its ledger API).
	svAdded func(ctx context.Context, k int, sv splice.SeededSV) error
}

// New returns an operator for a seeded network.
func New(net *ledger.Network, seeded *splice.Seeded) *Operator {
	return &Operator{net: net, seeded: seeded}
}

// OnSVAdded sets what AddSV does once the ledger has a new SV: the wiring
// starts the SV's Scan and serves its APIs. k is the SV's number, from 1.
func (o *Operator) OnSVAdded(fn func(ctx context.Context, k int, sv splice.SeededSV) error) {
	o.svAdded = fn
}

// AddSV adds a super validator to the running network as a joining SV
// does (see splice.AddSV), then has it served. It returns the new SV and
// its number. SVs are added one at a time, from the network's stored
// description (another process sharing the database may have added some).
func (o *Operator) AddSV(ctx context.Context) (SVInfo, int, error) {
	o.addingSV.Lock()
	defer o.addingSV.Unlock()
	cur, err := splice.Load(ctx, o.net.Store())
	if err != nil {
		return SVInfo{}, 0, err
	}
	next, sv, err := splice.AddSV(ctx, o.net, cur)
	if err != nil {
		return SVInfo{}, 0, err
	}
	k := len(next.SVs)
	if o.svAdded != nil {
		if err := o.svAdded(ctx, k, sv); err != nil {
			return SVInfo{}, 0, err
		}
	}
	return SVInfo{Name: sv.Name, Party: sv.Party, Participant: sv.Participant}, k, nil
}

// Network describes the network as it is now.
func (o *Operator) Network(ctx context.Context) (*NetworkInfo, error) {
	s := o.net.Store()
	head, err := s.Head(ctx)
	if err != nil {
		return nil, err
	}
	syncs, err := s.Synchronizers(ctx)
	if err != nil {
		return nil, err
	}
	parts, err := s.Participants(ctx)
	if err != nil {
		return nil, err
	}
	hostings, err := s.Hostings(ctx, "")
	if err != nil {
		return nil, err
	}
	// Read after the head: a migration started since is then listed (its
	// start is recorded with it), so every migration up to the head's is.
	migrations, err := o.net.Migrations(ctx)
	if err != nil {
		return nil, err
	}
	info := &NetworkInfo{
		DSOParty: o.seeded.DSOParty, MigrationID: head.MigrationID, Migrations: migrations,
		Now: o.net.Clock().Now(), ClockOffset: o.net.Clock().Offset(),
		Synchronizers: syncs,
	}
	for _, p := range parts {
		pi := ParticipantInfo{Participant: p, LedgerEnd: head.Offsets[p.ID], PrunedUpTo: head.Pruned[p.ID]}
		for _, h := range hostings {
			if h.Participant == p.ID {
				pi.Parties = append(pi.Parties, h.Party)
			}
		}
		slices.Sort(pi.Parties)
		pi.Parties = slices.Compact(pi.Parties)
		info.Participants = append(info.Participants, pi)
		users, err := allUsers(ctx, s, p.ID)
		if err != nil {
			return nil, err
		}
		for _, u := range users {
			info.Users = append(info.Users, UserInfo{
				ID: u.ID, Participant: u.Participant, PrimaryParty: u.PrimaryParty,
				Rights: u.Rights, Deactivated: u.Deactivated,
			})
		}
	}
	now, err := splice.Load(ctx, s)
	if err != nil {
		return nil, err
	}
	for _, sv := range now.SVs {
		info.SVs = append(info.SVs, SVInfo{Name: sv.Name, Party: sv.Party, Participant: sv.Participant})
	}
	for _, v := range now.Validators {
		vi := ValidatorInfo{Name: v.Name, Party: v.Party, Participant: v.Participant, OperatorUser: v.OperatorUser, SV: v.SV}
		for _, name := range append([]string{v.OperatorUser}, v.OperatorWalletUsers...) {
			vi.WalletUsers = append(vi.WalletUsers, WalletUserInfo{Name: name, Party: v.Party})
		}
		for _, u := range v.Users {
			vi.WalletUsers = append(vi.WalletUsers, WalletUserInfo{Name: u.Name, Party: u.Party})
		}
		info.Validators = append(info.Validators, vi)
	}
	return info, nil
}

// allUsers pages through a participant's users.
func allUsers(ctx context.Context, s ledger.Store, p ledger.ParticipantID) ([]ledger.User, error) {
	var out []ledger.User
	after := ""
	for {
		page, err := s.Users(ctx, p, after, 1000)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < 1000 {
			return out, nil
		}
		after = page[len(page)-1].ID
	}
}

// CreateUser allocates a party on the validator participant, creates a
// ledger API user acting as it, and installs its wallet, as a validator
// onboarding a user does.
func (o *Operator) CreateUser(ctx context.Context, name, partyHint string) (*UserInfo, error) {
	if !ledger.ValidUserID(name) {
		return nil, fault.New(fault.InvalidArgument,
			"invalid user id %s: use 1 to %d characters among letters, digits and %s", fault.Quote(name), ledger.MaxUserIDLength, ledger.UserIDSymbols)
	}
	if partyHint == "" {
		partyHint = name
	}
	v := o.seeded.Validator
	if _, err := o.net.Store().User(ctx, v.Participant, name); err == nil {
		return nil, fault.WithCode(fault.AlreadyExists, "USER_ALREADY_EXISTS", "User %s already exists", fault.Clip(name))
	} else if !fault.Is(err, fault.NotFound) {
		return nil, err
	}
	party, err := o.net.AllocateParty(ctx, ledger.PartySpec{Hint: partyHint, Hosts: []ledger.Hosting{{Participant: v.Participant}}})
	if err != nil {
		return nil, err
	}
	u := ledger.User{
		ID: name, Participant: v.Participant, PrimaryParty: party,
		Rights: []ledger.Right{{Kind: ledger.CanActAs, Party: party}, {Kind: ledger.CanReadAs, Party: party}},
	}
	if err := o.net.PutUser(ctx, u); err != nil {
		return nil, err
	}
	if err := splice.OnboardWallet(ctx, o.net, o.seeded, name, party); err != nil {
		return nil, err
	}
	return &UserInfo{ID: u.ID, Participant: u.Participant, PrimaryParty: party, Rights: u.Rights}, nil
}

// Tap mints amount CC for a user of the validator participant through
// AmuletRules_DevNet_Tap.
func (o *Operator) Tap(ctx context.Context, user string, amount daml.Numeric) (daml.ContractID, error) {
	u, err := o.net.Store().User(ctx, o.seeded.Validator.Participant, user)
	if err != nil {
		if fault.Is(err, fault.NotFound) {
			return "", fault.New(fault.NotFound, "No user %s on the validator participant", fault.Clip(user))
		}
		return "", err
	}
	if u.PrimaryParty == "" {
		return "", fault.New(fault.FailedPrecondition, "user %s has no primary party", fault.Clip(user))
	}
	// The DSO's automation may replace the open round between reading it
	// and sequencing the tap (it catches up rounds right after a start or
	// a clock jump): read it again and retry, as a wallet does.
	for attempt := 1; ; attempt++ {
		cid, err := splice.TapFor(ctx, o.net, o.seeded, user, u.PrimaryParty, amount)
		if err == nil || attempt == 3 || !fault.Is(err, fault.Aborted) {
			return cid, err
		}
	}
}

// Clock reads the ledger clock.
func (o *Operator) Clock(context.Context) Clock {
	now, off := o.net.Clock().Read()
	return Clock{Now: now, Offset: off}
}

// AdvanceClock moves ledger time forward by d, at least a microsecond (the
// ledger's resolution), and returns the clock after the move.
func (o *Operator) AdvanceClock(ctx context.Context, d time.Duration) (Clock, error) {
	if d < time.Microsecond {
		return Clock{}, fault.New(fault.InvalidArgument, "the clock moves by at least 1µs, its resolution; got %s", d)
	}
	if _, err := o.net.AdvanceClock(ctx, d); err != nil {
		return Clock{}, err
	}
	return o.Clock(ctx), nil
}

// Prune prunes a participant's stream up to and including upTo (see
// [ledger.Network.Prune]); an empty participant means the validator
// participant. Pruning again at the pruned offset is a no-op; an offset
// after the participant's ledger end or before its pruned offset is
// refused.
func (o *Operator) Prune(ctx context.Context, participant ledger.ParticipantID, upTo ledger.Offset) (Pruned, error) {
	if participant == "" {
		participant = o.seeded.Validator.Participant
	}
	if err := o.net.Prune(ctx, participant, upTo); err != nil {
		return Pruned{}, err
	}
	return Pruned{Participant: participant, UpTo: upTo}, nil
}

// Migrate runs a hard synchronizer migration (see [ledger.Network.Migrate])
// and returns the new migration id. Migrating again before the new
// migration has an update of its own is refused.
func (o *Operator) Migrate(ctx context.Context) (int64, error) {
	return o.net.Migrate(ctx)
}

// AddSynchronizer adds a synchronizer with an alias to the current
// migration (see [ledger.Network.AddSynchronizer]); its id derives from
// the alias and the network seed, so adding the same alias again returns
// the same synchronizer. An empty alias, or one with "::" or blanks, is a
// fault.InvalidArgument.
func (o *Operator) AddSynchronizer(ctx context.Context, alias string) (ledger.Synchronizer, error) {
	if !ledger.ValidHint(alias) {
		return ledger.Synchronizer{}, fault.New(fault.InvalidArgument, "invalid synchronizer alias %s: want 1 to %d printable ASCII characters without \"::\" or blanks", fault.Quote(alias), ledger.MaxHintLen)
	}
	return o.net.AddSynchronizer(ctx, alias)
}

// Reassign moves a contract to another synchronizer (see
// [ledger.Network.Reassign]) on behalf of its first signatory.
func (o *Operator) Reassign(ctx context.Context, cid daml.ContractID, target ledger.SynchronizerID) (Reassigned, error) {
	un, as, err := o.net.Reassign(ctx, ledger.ReassignSpec{Contract: cid, Target: target})
	if err != nil {
		return Reassigned{}, err
	}
	return Reassigned{Unassigned: un, Assigned: as}, nil
}

// Hostings lists the participants hosting a party, on every
// synchronizer, from the committed topology (not the process's cache, so
// that it is current when several processes share the ledger).
func (o *Operator) Hostings(ctx context.Context, party daml.Party) ([]ledger.Hosting, error) {
	if party == "" {
		return nil, fault.New(fault.InvalidArgument, "a party is required")
	}
	return o.net.Store().Hostings(ctx, party)
}

// HostParty hosts an existing party on a participant at a permission, or
// changes the permission it is hosted at there (see
// [ledger.Network.ChangeHosting]), and returns the party's hostings after
// the change.
func (o *Operator) HostParty(ctx context.Context, party daml.Party, participant ledger.ParticipantID, perm ledger.Permission) (HostingChange, error) {
	tts, err := o.net.ChangeHosting(ctx, party, participant, perm)
	if err != nil {
		return HostingChange{}, err
	}
	return o.hostingChange(ctx, party, tts)
}

// UnhostParty revokes a party's hosting on a participant (see
// [ledger.Network.RevokeHosting]) and returns the party's hostings after
// the revocation.
func (o *Operator) UnhostParty(ctx context.Context, party daml.Party, participant ledger.ParticipantID) (HostingChange, error) {
	tts, err := o.net.RevokeHosting(ctx, party, participant)
	if err != nil {
		return HostingChange{}, err
	}
	return o.hostingChange(ctx, party, tts)
}

func (o *Operator) hostingChange(ctx context.Context, party daml.Party, tts []*ledger.TopologyTransaction) (HostingChange, error) {
	hs, err := o.net.Store().Hostings(ctx, party)
	if err != nil {
		return HostingChange{}, err
	}
	out := HostingChange{Hostings: hs, UpdateIDs: []string{}}
	for _, t := range tts {
		out.UpdateIDs = append(out.UpdateIDs, t.UpdateID)
	}
	return out, nil
}

// IsOperator reports whether the user administers the validator
// participant.
func (o *Operator) IsOperator(ctx context.Context, user string) (bool, error) {
	u, err := o.net.Store().User(ctx, o.seeded.Validator.Participant, user)
	if err != nil {
		if fault.Is(err, fault.NotFound) {
			return false, nil
		}
		return false, err
	}
	return !u.Deactivated && u.IsAdmin(), nil
}
