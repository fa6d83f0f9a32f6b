package admin_test

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/sandnet/sandnet/internal/api/admin"
	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/operator"
	"github.com/sandnet/sandnet/internal/scan"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// baseURL is where the tests address the API: the document's server with
// its default host, so that the document's router matches the requests.
const baseURL = "http://127.0.0.1:7575" + admin.Prefix

const operatorUser = "participant_admin"

// fakeOperator is an admin.Operator whose methods run the matching Func
// field and record their call. A method whose Func is nil fails with a
// plain (internal) error, so an unexpected call shows as a 500 and in the
// recorded calls.
type fakeOperator struct {
	NetworkFunc      func(ctx context.Context) (*operator.NetworkInfo, error)
	CreateUserFunc   func(ctx context.Context, name, partyHint string) (*operator.UserInfo, error)
	TapFunc          func(ctx context.Context, user string, amount daml.Numeric) (daml.ContractID, error)
	ClockFunc        func(ctx context.Context) operator.Clock
	AdvanceClockFunc func(ctx context.Context, d time.Duration) (operator.Clock, error)
	PruneFunc        func(ctx context.Context, p ledger.ParticipantID, upTo ledger.Offset) (operator.Pruned, error)
	MigrateFunc      func(ctx context.Context) (int64, error)
	IsOperatorFunc   func(ctx context.Context, user string) (bool, error)
	TakeNowFunc      func(ctx context.Context) (scan.Snapshot, error)
	HostingsFunc     func(ctx context.Context, party daml.Party) ([]ledger.Hosting, error)
	HostPartyFunc    func(ctx context.Context, party daml.Party, p ledger.ParticipantID, perm ledger.Permission) (operator.HostingChange, error)
	UnhostPartyFunc  func(ctx context.Context, party daml.Party, p ledger.ParticipantID) (operator.HostingChange, error)
	AddSyncFunc      func(ctx context.Context, alias string) (ledger.Synchronizer, error)
	ReassignFunc     func(ctx context.Context, cid daml.ContractID, target ledger.SynchronizerID) (operator.Reassigned, error)
	AddSVFunc        func(ctx context.Context) (operator.SVInfo, int, error)

	// calls are the calls made, in order. One fake serves one request, so
	// they need no lock.
	calls []string
}

var _ admin.Operator = (*fakeOperator)(nil)

var errUnexpectedCall = errors.New("unexpected call of the fake operator")

func (f *fakeOperator) record(format string, args ...any) {
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeOperator) Network(ctx context.Context) (*operator.NetworkInfo, error) {
	f.record("Network()")
	if f.NetworkFunc == nil {
		return nil, errUnexpectedCall
	}
	return f.NetworkFunc(ctx)
}

func (f *fakeOperator) CreateUser(ctx context.Context, name, partyHint string) (*operator.UserInfo, error) {
	f.record("CreateUser(%q, %q)", name, partyHint)
	if f.CreateUserFunc == nil {
		return nil, errUnexpectedCall
	}
	return f.CreateUserFunc(ctx, name, partyHint)
}

func (f *fakeOperator) Tap(ctx context.Context, user string, amount daml.Numeric) (daml.ContractID, error) {
	f.record("Tap(%q, %s)", user, amount)
	if f.TapFunc == nil {
		return "", errUnexpectedCall
	}
	return f.TapFunc(ctx, user, amount)
}

// Clock cannot fail: without ClockFunc it records the call and returns the
// zero Clock (1970-01-01T00:00:00Z), which no golden answer expects.
func (f *fakeOperator) Clock(ctx context.Context) operator.Clock {
	f.record("Clock()")
	if f.ClockFunc == nil {
		return operator.Clock{}
	}
	return f.ClockFunc(ctx)
}

func (f *fakeOperator) AdvanceClock(ctx context.Context, d time.Duration) (operator.Clock, error) {
	f.record("AdvanceClock(%s)", d)
	if f.AdvanceClockFunc == nil {
		return operator.Clock{}, errUnexpectedCall
	}
	return f.AdvanceClockFunc(ctx, d)
}

func (f *fakeOperator) Prune(ctx context.Context, p ledger.ParticipantID, upTo ledger.Offset) (operator.Pruned, error) {
	f.record("Prune(%q, %d)", p, upTo)
	if f.PruneFunc == nil {
		return operator.Pruned{}, errUnexpectedCall
	}
	return f.PruneFunc(ctx, p, upTo)
}

func (f *fakeOperator) AddSynchronizer(ctx context.Context, alias string) (ledger.Synchronizer, error) {
	f.record("AddSynchronizer(%q)", alias)
	if f.AddSyncFunc == nil {
		return ledger.Synchronizer{}, errUnexpectedCall
	}
	return f.AddSyncFunc(ctx, alias)
}

func (f *fakeOperator) AddSV(ctx context.Context) (operator.SVInfo, int, error) {
	f.record("AddSV()")
	if f.AddSVFunc == nil {
		return operator.SVInfo{}, 0, errUnexpectedCall
	}
	return f.AddSVFunc(ctx)
}

func (f *fakeOperator) Reassign(ctx context.Context, cid daml.ContractID, target ledger.SynchronizerID) (operator.Reassigned, error) {
	f.record("Reassign(%q, %q)", cid, target)
	if f.ReassignFunc == nil {
		return operator.Reassigned{}, errUnexpectedCall
	}
	return f.ReassignFunc(ctx, cid, target)
}

func (f *fakeOperator) Migrate(ctx context.Context) (int64, error) {
	f.record("Migrate()")
	if f.MigrateFunc == nil {
		return 0, errUnexpectedCall
	}
	return f.MigrateFunc(ctx)
}

// TakeNow makes the fake the admin API's Snapshotter too.
func (f *fakeOperator) TakeNow(ctx context.Context) (scan.Snapshot, error) {
	f.record("TakeNow()")
	if f.TakeNowFunc == nil {
		return scan.Snapshot{}, errUnexpectedCall
	}
	return f.TakeNowFunc(ctx)
}

func (f *fakeOperator) Hostings(ctx context.Context, party daml.Party) ([]ledger.Hosting, error) {
	f.record("Hostings(%q)", party)
	if f.HostingsFunc == nil {
		return nil, errUnexpectedCall
	}
	return f.HostingsFunc(ctx, party)
}

func (f *fakeOperator) HostParty(ctx context.Context, party daml.Party, p ledger.ParticipantID, perm ledger.Permission) (operator.HostingChange, error) {
	f.record("HostParty(%q, %q, %q)", party, p, perm)
	if f.HostPartyFunc == nil {
		return operator.HostingChange{}, errUnexpectedCall
	}
	return f.HostPartyFunc(ctx, party, p, perm)
}

func (f *fakeOperator) UnhostParty(ctx context.Context, party daml.Party, p ledger.ParticipantID) (operator.HostingChange, error) {
	f.record("UnhostParty(%q, %q)", party, p)
	if f.UnhostPartyFunc == nil {
		return operator.HostingChange{}, errUnexpectedCall
	}
	return f.UnhostPartyFunc(ctx, party, p)
}

func (f *fakeOperator) IsOperator(ctx context.Context, user string) (bool, error) {
	f.record("IsOperator(%q)", user)
	if f.IsOperatorFunc == nil {
		return false, errUnexpectedCall
	}
	return f.IsOperatorFunc(ctx, user)
}

func (f *fakeOperator) recorded() []string { return slices.Clone(f.calls) }

// onlyOperator is the IsOperator of a seeded network: participant_admin
// administers the validator participant, nobody else does.
func onlyOperator(_ context.Context, user string) (bool, error) { return user == operatorUser, nil }

// Test data shaped like a seeded network's.

func fp(purpose string) string { return ledger.Fingerprint("admin-test", purpose) }

var (
	dsoParty      = ledger.PartyID("DSO", fp("dso"))
	syncID        = ledger.NewSynchronizerID("global-domain", fp("sync"))
	appSyncID     = ledger.NewSynchronizerID("app-synchronizer", fp("app-sync"))
	svParticipant = ledger.NewParticipantID("sv-1", fp("participant/sv-1"))
	validatorPart = ledger.NewParticipantID("validator", fp("participant/validator"))
	svParty       = ledger.PartyID("sv-1", fp("party/sv-1"))
	validatorPty  = ledger.PartyID("validator", fp("party/validator"))
	aliceParty    = ledger.PartyID("alice", fp("party/alice"))
	carolParty    = ledger.PartyID("carol", fp("party/carol"))
	amuletCID     = daml.ContractID("00" + fp("cid")[4:] + "ca11" + fp("suffix"))
	// ledgerNow is 2026-03-04T05:06:07.089012Z.
	ledgerNow = daml.Timestamp(time.Date(2026, 3, 4, 5, 6, 7, 89012000, time.UTC).UnixMicro())
	// clockOffset is one day and a bit, in microseconds.
	clockOffset = int64(24*time.Hour/time.Microsecond) + 5
)

func sampleNetwork() *operator.NetworkInfo {
	return &operator.NetworkInfo{
		DSOParty: dsoParty, MigrationID: 1, Now: ledgerNow, ClockOffset: clockOffset,
		Synchronizers: []ledger.Synchronizer{{ID: syncID, Alias: "global-domain", MigrationID: 1}},
		Migrations: []ledger.MigrationStart{
			{ID: 0, Offsets: map[ledger.ParticipantID]ledger.Offset{}},
			{ID: 1, Offsets: map[ledger.ParticipantID]ledger.Offset{validatorPart: 15, svParticipant: 40}},
		},
		Participants: []operator.ParticipantInfo{
			{Participant: ledger.Participant{ID: svParticipant, Name: "sv-1"}, Parties: []daml.Party{dsoParty, svParty}, LedgerEnd: 42},
			{Participant: ledger.Participant{ID: validatorPart, Name: "validator"}, Parties: []daml.Party{aliceParty, validatorPty}, LedgerEnd: 17, PrunedUpTo: 5},
			{Participant: ledger.Participant{ID: ledger.NewParticipantID("empty", fp("participant/empty")), Name: "empty"}},
		},
		SVs: []operator.SVInfo{{Name: "sv-1", Party: svParty, Participant: svParticipant}},
		Users: []operator.UserInfo{
			{ID: operatorUser, Participant: svParticipant, PrimaryParty: svParty, Rights: []ledger.Right{
				{Kind: ledger.ParticipantAdmin}, {Kind: ledger.CanReadAsAnyParty},
				{Kind: ledger.CanActAs, Party: svParty}, {Kind: ledger.CanReadAs, Party: dsoParty},
			}},
			{ID: operatorUser, Participant: validatorPart, PrimaryParty: validatorPty, Rights: []ledger.Right{
				{Kind: ledger.ParticipantAdmin}, {Kind: ledger.CanReadAsAnyParty}, {Kind: ledger.CanActAs, Party: validatorPty},
			}},
			{ID: "alice", Participant: validatorPart, PrimaryParty: aliceParty, Rights: []ledger.Right{
				{Kind: ledger.CanActAs, Party: aliceParty}, {Kind: ledger.CanReadAs, Party: aliceParty},
				{Kind: ledger.CanExecuteAs, Party: aliceParty},
			}},
			{ID: "auditor", Participant: validatorPart, Deactivated: true, Rights: []ledger.Right{
				{Kind: ledger.CanExecuteAsAnyParty}, {Kind: ledger.IdentityProviderAdmin},
			}},
			{ID: "nobody", Participant: validatorPart},
		},
		Validators: []operator.ValidatorInfo{
			{Name: "validator", Party: validatorPty, Participant: validatorPart, OperatorUser: operatorUser, WalletUsers: []operator.WalletUserInfo{
				{Name: operatorUser, Party: validatorPty}, {Name: "alice", Party: aliceParty},
			}},
			{Name: "sv", Party: svParty, Participant: svParticipant, OperatorUser: "ledger-api-user", SV: 1, WalletUsers: []operator.WalletUserInfo{
				{Name: "ledger-api-user", Party: svParty}, {Name: "sv", Party: svParty},
			}},
		},
	}
}

// Tokens.

var testSecret = []byte("admin-test-secret-of-32-bytes-or-more")

func mustHMAC(secret []byte) *auth.HMAC {
	h, err := auth.NewHMAC(secret, "")
	if err != nil {
		panic(err)
	}
	return h
}

var (
	verifier = mustHMAC(testSecret)
	// hs256 is `--auth hs256`, the default.
	hs256 = &web.Authenticator{Verifier: verifier}
	// authNone is `--auth none`.
	authNone = &web.Authenticator{Verifier: auth.Unverified{}, Disabled: true}
)

func mint(t *testing.T, m *auth.HMAC, subject string, ttl time.Duration, now time.Time) string {
	t.Helper()
	tok, err := m.Mint(subject, ttl, now)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// authorization returns the Authorization header a case sends.
type authorization func(t *testing.T) string

func bearerFor(user string) authorization {
	return func(t *testing.T) string { return "Bearer " + mint(t, verifier, user, time.Hour, time.Now()) }
}

func header(v string) authorization { return func(*testing.T) string { return v } }

var (
	asOperator = bearerFor(operatorUser)
	noToken    = header("")
)

// The cases.

type route struct {
	method string
	path   string // under admin.Prefix, as requested
	golden string // testdata/<golden>.golden.json
	// template is the path as the document names it, when path fills in
	// a path parameter.
	template string
}

// docPath is the path of r as the document names it.
func (r route) docPath() string { return cmp.Or(r.template, r.path) }

var (
	getNetwork   = route{http.MethodGet, "/network", "network", ""}
	postUsers    = route{http.MethodPost, "/users", "users", ""}
	postTap      = route{http.MethodPost, "/tap", "tap", ""}
	getClock     = route{http.MethodGet, "/clock", "clock", ""}
	postAdvance  = route{http.MethodPost, "/clock/advance", "clock_advance", ""}
	postPrune    = route{http.MethodPost, "/prune", "prune", ""}
	postSnapshot = route{http.MethodPost, "/scan/snapshots", "scan_snapshot", ""}
	postMigrate  = route{http.MethodPost, "/migrations", "migration", ""}
	getHostings  = route{http.MethodGet, "/parties/" + string(dsoParty) + "/hostings", "hostings", "/parties/{party}/hostings"}
	postHosting  = route{http.MethodPost, "/parties/" + string(aliceParty) + "/hostings", "hosting_change", "/parties/{party}/hostings"}
	delHosting   = route{http.MethodDelete, "/parties/" + string(aliceParty) + "/hostings/" + string(svParticipant), "hosting_revoke",
		"/parties/{party}/hostings/{participant_id}"}
	postSync     = route{http.MethodPost, "/synchronizers", "synchronizer", ""}
	postReassign = route{http.MethodPost, "/reassignments", "reassignment", ""}
	postSV       = route{http.MethodPost, "/svs", "sv", ""}
	operatorOnly = []route{getNetwork, postUsers, postTap, getClock, postAdvance, postPrune, postMigrate, postSnapshot, getHostings, postHosting, delHosting,
		postSync, postReassign, postSV}
)

type testCase struct {
	name  string
	route route
	// authn is the authenticator the handler uses; nil is hs256.
	authn *web.Authenticator
	// auth is the Authorization header; nil is an operator's token.
	auth authorization
	body string
	op   fakeOperator
	// offSpec marks a request the document does not allow (no token, a
	// malformed body): the document's request validation must refuse it.
	// Every other request must pass it.
	offSpec    bool
	wantStatus int
	wantCalls  []string
}

var okBody = map[route]string{
	getNetwork:   "",
	postUsers:    `{"name":"carol"}`,
	postTap:      `{"user":"alice","amount":"100"}`,
	getClock:     "",
	postAdvance:  `{"duration":"24h"}`,
	postPrune:    `{"offset":9}`,
	postSnapshot: "",
	postMigrate:  "",
	getHostings:  "",
	postHosting:  `{"participant_id":"` + string(svParticipant) + `"}`,
	delHosting:   "",
	postSync:     `{"alias":"app-synchronizer"}`,
	postReassign: `{"contract_id":"` + string(amuletCID) + `","target_synchronizer_id":"` + string(appSyncID) + `"}`,
	postSV:       "",
}

// okOperator answers every call as a healthy network would; advancing its
// clock moves the time its Clock and Network report.
func okOperator() fakeOperator {
	advanced := int64(0)
	clock := func(context.Context) operator.Clock {
		return operator.Clock{Now: ledgerNow + daml.Timestamp(advanced), Offset: clockOffset + advanced}
	}
	return fakeOperator{
		IsOperatorFunc: onlyOperator,
		NetworkFunc: func(context.Context) (*operator.NetworkInfo, error) {
			info := sampleNetwork()
			info.Now += daml.Timestamp(advanced)
			info.ClockOffset += advanced
			return info, nil
		},
		CreateUserFunc: func(_ context.Context, name, _ string) (*operator.UserInfo, error) {
			return &operator.UserInfo{ID: name, Participant: validatorPart, PrimaryParty: carolParty,
				Rights: []ledger.Right{{Kind: ledger.CanActAs, Party: carolParty}, {Kind: ledger.CanReadAs, Party: carolParty}}}, nil
		},
		TapFunc:   func(context.Context, string, daml.Numeric) (daml.ContractID, error) { return amuletCID, nil },
		ClockFunc: clock,
		AdvanceClockFunc: func(ctx context.Context, d time.Duration) (operator.Clock, error) {
			// As the real operator does: ledger time has microsecond
			// resolution.
			if d < time.Microsecond {
				return operator.Clock{}, fault.New(fault.InvalidArgument, "the clock moves by at least 1µs, its resolution; got %s", d)
			}
			advanced += d.Microseconds()
			return clock(ctx), nil
		},
		PruneFunc:   prunePerSample,
		MigrateFunc: func(context.Context) (int64, error) { return 1, nil },
		TakeNowFunc: func(context.Context) (scan.Snapshot, error) {
			return scan.Snapshot{ID: 3, Migration: 0, RecordTime: ledgerNow, FirstRow: 41, LastRow: 67}, nil
		},
		HostingsFunc:    hostingsPerSample,
		HostPartyFunc:   hostPartyPerSample,
		UnhostPartyFunc: unhostPartyPerSample,
		AddSyncFunc: func(_ context.Context, alias string) (ledger.Synchronizer, error) {
			if strings.Contains(alias, "::") {
				return ledger.Synchronizer{}, fault.New(fault.InvalidArgument, "invalid synchronizer alias %q", alias)
			}
			return ledger.Synchronizer{ID: ledger.NewSynchronizerID(alias, fp("app-sync")), Alias: alias}, nil
		},
		ReassignFunc: reassignPerSample,
		AddSVFunc: func(context.Context) (operator.SVInfo, int, error) {
			return operator.SVInfo{Name: "Digital-Asset-Eng-5", Party: "Digital-Asset-Eng-5::" + daml.Party(fp("sv-5")),
				Participant: ledger.ParticipantID("PAR::sv-5::" + fp("participant/sv-5"))}, 5, nil
		},
	}
}

// reassignPerSample reassigns as the real operator would on
// sampleNetwork with the app synchronizer added: the amulet is the only
// contract it knows, on the global synchronizer.
func reassignPerSample(_ context.Context, cid daml.ContractID, target ledger.SynchronizerID) (operator.Reassigned, error) {
	switch {
	case cid != amuletCID:
		return operator.Reassigned{}, fault.WithCode(fault.NotFound, "CONTRACT_NOT_FOUND", "Contract could not be found with id %s", cid)
	case target == syncID:
		return operator.Reassigned{}, fault.New(fault.InvalidArgument, "contract %s is already on synchronizer %s", cid, target)
	case target != appSyncID:
		return operator.Reassigned{}, fault.New(fault.NotFound, "synchronizer %s not found", target)
	}
	un := &ledger.Reassignment{Kind: ledger.Unassigned, UpdateID: fp("unassign"), Source: syncID, Target: target,
		UnassignID: "0x" + fp("unassign-id")[4:], Counter: 1}
	as := *un
	as.Kind, as.UpdateID = ledger.Assigned, fp("assign")
	return operator.Reassigned{Unassigned: un, Assigned: &as}, nil
}

// alicesHostings are alice's hostings in sampleNetwork: the validator
// participant, at submission.
func alicesHostings() []ledger.Hosting {
	return []ledger.Hosting{{Party: aliceParty, Participant: validatorPart, Synchronizer: syncID, Permission: ledger.PermissionSubmission}}
}

// hostPartyPerSample hosts parties as the real operator would on
// sampleNetwork: alice is the only party it knows beyond the DSO's, on
// the validator participant, and a hosting already as asked makes no
// update.
func hostPartyPerSample(_ context.Context, party daml.Party, p ledger.ParticipantID, perm ledger.Permission) (operator.HostingChange, error) {
	if party != aliceParty {
		return operator.HostingChange{}, fault.WithCode(fault.NotFound, "PARTY_NOT_KNOWN_ON_LEDGER", "Party not known on ledger: %s", party)
	}
	if p != validatorPart && p != svParticipant {
		return operator.HostingChange{}, fault.New(fault.NotFound, "participant %s not found", p)
	}
	hs := alicesHostings()
	if p == validatorPart && perm == ledger.PermissionSubmission {
		return operator.HostingChange{Hostings: hs}, nil
	}
	if p == validatorPart {
		hs[0].Permission = perm
	} else {
		hs = append(hs, ledger.Hosting{Party: aliceParty, Participant: p, Synchronizer: syncID, Permission: perm})
	}
	return operator.HostingChange{Hostings: hs, UpdateIDs: []string{fp("update")}}, nil
}

// unhostPartyPerSample revokes hostings as the real operator would on
// sampleNetwork once alice is hosted on the SV participant too.
func unhostPartyPerSample(_ context.Context, party daml.Party, p ledger.ParticipantID) (operator.HostingChange, error) {
	switch {
	case party != aliceParty:
		return operator.HostingChange{}, fault.WithCode(fault.NotFound, "PARTY_NOT_KNOWN_ON_LEDGER", "Party not known on ledger: %s", party)
	case p == validatorPart:
		return operator.HostingChange{}, fault.New(fault.FailedPrecondition,
			"cannot revoke the last hosting of party %s (on participant %s): a party needs a hosting participant", party, p)
	case p != svParticipant:
		return operator.HostingChange{}, fault.New(fault.NotFound, "participant %s not found", p)
	}
	return operator.HostingChange{Hostings: alicesHostings(), UpdateIDs: []string{fp("revoke")}}, nil
}

// prunePerSample prunes as the real operator would on sampleNetwork: an
// empty participant is the validator participant, the offset must be at
// most the participant's ledger end and not before its pruned offset.
func prunePerSample(_ context.Context, p ledger.ParticipantID, upTo ledger.Offset) (operator.Pruned, error) {
	if p == "" {
		p = validatorPart
	}
	for _, pi := range sampleNetwork().Participants {
		if pi.ID != p {
			continue
		}
		switch {
		case upTo > pi.LedgerEnd:
			return operator.Pruned{}, fault.New(fault.OutOfRange, "participant %s: prune offset %d is after its ledger end %d", p, upTo, pi.LedgerEnd)
		case upTo < pi.PrunedUpTo:
			return operator.Pruned{}, fault.New(fault.InvalidArgument,
				"participant %s: prune offset %d is before its pruned offset %d: pruning never goes back", p, upTo, pi.PrunedUpTo)
		}
		return operator.Pruned{Participant: p, UpTo: upTo}, nil
	}
	return operator.Pruned{}, fault.New(fault.NotFound, "participant %s not found", p)
}

// callsAfterAuth are the calls a request with okBody makes once it is
// authorized.
var callsAfterAuth = map[route][]string{
	getNetwork:   {"Network()"},
	postUsers:    {`CreateUser("carol", "")`},
	postTap:      {`Tap("alice", 100.0000000000)`},
	getClock:     {"Clock()"},
	postAdvance:  {"AdvanceClock(24h0m0s)"},
	postPrune:    {`Prune("", 9)`},
	postSnapshot: {"TakeNow()"},
	postMigrate:  {"Migrate()"},
	getHostings:  {fmt.Sprintf("Hostings(%q)", dsoParty)},
	postHosting:  {fmt.Sprintf("HostParty(%q, %q, \"Submission\")", aliceParty, svParticipant)},
	delHosting:   {fmt.Sprintf("UnhostParty(%q, %q)", aliceParty, svParticipant)},
	postSync:     {`AddSynchronizer("app-synchronizer")`},
	postReassign: {fmt.Sprintf("Reassign(%q, %q)", amuletCID, appSyncID)},
	postSV:       {"AddSV()"},
}

const isOp = `IsOperator("participant_admin")`

func withCalls(first string, rest []string) []string { return append([]string{first}, rest...) }

// authCases are the authentication and authorization cases every
// operator-only route answers alike.
func authCases(r route) []testCase {
	otherSecret := mustHMAC([]byte("another-secret-of-at-least-32-bytes!"))
	return []testCase{{
		name: "no token", auth: noToken, offSpec: true,
		wantStatus: http.StatusUnauthorized,
	}, {
		name: "basic credentials", auth: header("Basic cGFydGljaXBhbnRfYWRtaW46eA=="), offSpec: true,
		wantStatus: http.StatusUnauthorized,
	}, {
		name: "bearer without token", auth: header("Bearer "), offSpec: true,
		wantStatus: http.StatusUnauthorized,
	}, {
		name: "garbage token", auth: header("Bearer not-a-jwt"),
		wantStatus: http.StatusUnauthorized,
	}, {
		name: "token signed with another secret",
		auth: func(t *testing.T) string {
			return "Bearer " + mint(t, otherSecret, operatorUser, time.Hour, time.Now())
		},
		wantStatus: http.StatusUnauthorized,
	}, {
		name: "expired token",
		auth: func(t *testing.T) string {
			return "Bearer " + mint(t, verifier, operatorUser, time.Minute, time.Now().Add(-time.Hour))
		},
		wantStatus: http.StatusUnauthorized,
	}, {
		name: "not an operator", auth: bearerFor("alice"),
		wantStatus: http.StatusForbidden, wantCalls: []string{`IsOperator("alice")`},
	}, {
		name: "operator check fails", op: fakeOperator{IsOperatorFunc: func(context.Context, string) (bool, error) {
			return false, errors.New("sql: database is closed")
		}},
		wantStatus: http.StatusInternalServerError, wantCalls: []string{isOp},
	}, {
		name: "operator check unavailable", op: fakeOperator{IsOperatorFunc: func(context.Context, string) (bool, error) {
			return false, fault.New(fault.Unavailable, "database is busy")
		}},
		wantStatus: http.StatusServiceUnavailable, wantCalls: []string{isOp},
	}, {
		name: "auth none: no token acts as the operator", authn: authNone, auth: noToken, offSpec: true,
		op: okOperator(), wantStatus: http.StatusOK, wantCalls: callsAfterAuth[r],
	}, {
		name: "auth none: unsigned token of the operator", authn: authNone,
		auth: func(t *testing.T) string {
			return "Bearer " + mint(t, otherSecret, operatorUser, time.Hour, time.Now())
		},
		op: okOperator(), wantStatus: http.StatusOK, wantCalls: withCalls(isOp, callsAfterAuth[r]),
	}, {
		name: "auth none: token of a non-operator", authn: authNone, auth: bearerFor("alice"),
		wantStatus: http.StatusForbidden, wantCalls: []string{`IsOperator("alice")`},
	}}
}

// statusOfKind is WriteError's mapping, restated.
var statusOfKind = map[fault.Kind]int{
	fault.Internal:           http.StatusInternalServerError,
	fault.InvalidArgument:    http.StatusBadRequest,
	fault.NotFound:           http.StatusNotFound,
	fault.AlreadyExists:      http.StatusConflict,
	fault.FailedPrecondition: http.StatusBadRequest,
	fault.DamlPrecondition:   http.StatusConflict,
	fault.Aborted:            http.StatusTooManyRequests,
	fault.Unauthenticated:    http.StatusUnauthorized,
	fault.PermissionDenied:   http.StatusForbidden,
	fault.Unavailable:        http.StatusServiceUnavailable,
	fault.OutOfRange:         http.StatusBadRequest,
}

// faultCases makes the operator's main call for the route fail with every
// fault kind whose status the route answers, and with a plain error.
func faultCases(r route, statuses ...int) []testCase {
	var out []testCase
	add := func(name string, err error, status int) {
		op := okOperator()
		switch r {
		case getNetwork:
			op.NetworkFunc = func(context.Context) (*operator.NetworkInfo, error) { return nil, err }
		case postUsers:
			op.CreateUserFunc = func(context.Context, string, string) (*operator.UserInfo, error) { return nil, err }
		case postTap:
			op.TapFunc = func(context.Context, string, daml.Numeric) (daml.ContractID, error) { return "", err }
		case postAdvance:
			op.AdvanceClockFunc = func(context.Context, time.Duration) (operator.Clock, error) { return operator.Clock{}, err }
		case postPrune:
			op.PruneFunc = func(context.Context, ledger.ParticipantID, ledger.Offset) (operator.Pruned, error) {
				return operator.Pruned{}, err
			}
		case postSnapshot:
			op.TakeNowFunc = func(context.Context) (scan.Snapshot, error) { return scan.Snapshot{}, err }
		case postMigrate:
			op.MigrateFunc = func(context.Context) (int64, error) { return 0, err }
		case postSV:
			op.AddSVFunc = func(context.Context) (operator.SVInfo, int, error) { return operator.SVInfo{}, 0, err }
		case getHostings:
			op.HostingsFunc = func(context.Context, daml.Party) ([]ledger.Hosting, error) { return nil, err }
		case postHosting:
			op.HostPartyFunc = func(context.Context, daml.Party, ledger.ParticipantID, ledger.Permission) (operator.HostingChange, error) {
				return operator.HostingChange{}, err
			}
		case delHosting:
			op.UnhostPartyFunc = func(context.Context, daml.Party, ledger.ParticipantID) (operator.HostingChange, error) {
				return operator.HostingChange{}, err
			}
		case postSync:
			op.AddSyncFunc = func(context.Context, string) (ledger.Synchronizer, error) { return ledger.Synchronizer{}, err }
		case postReassign:
			op.ReassignFunc = func(context.Context, daml.ContractID, ledger.SynchronizerID) (operator.Reassigned, error) {
				return operator.Reassigned{}, err
			}
		default:
			panic(fmt.Sprintf("%s %s has no operator call that can fail", r.method, r.path))
		}
		out = append(out, testCase{
			name: name, body: okBody[r], op: op, wantStatus: status,
			wantCalls: []string{isOp, callsAfterAuth[r][0]},
		})
	}
	for _, k := range slices.Sorted(maps.Keys(statusOfKind)) {
		if slices.Contains(statuses, statusOfKind[k]) {
			add("operator fails: "+k.String(), fault.New(k, "the operator says %s", k), statusOfKind[k])
		}
	}
	add("operator fails: plain error", fmt.Errorf("store: %w", errors.New("disk I/O error at /var/lib/x")), http.StatusInternalServerError)
	return out
}

// malformedCases are bodies DecodeJSON refuses before the operator is
// asked anything beyond who the caller is.
func malformedCases() []testCase {
	return []testCase{
		{name: "empty body", body: ""},
		{name: "not JSON", body: "name=carol"},
		{name: "truncated JSON", body: `{"name":`},
		{name: "array body", body: `[]`},
		{name: "string body", body: `"carol"`},
		{name: "second value", body: `{} {}`},
		{name: "stray closing brace", body: `{}}`},
		{name: "oversized body", body: `{"x":"` + strings.Repeat("x", web.MaxBodyBytes) + `"}`},
	}
}

func routeCases(r route) []testCase {
	var cs []testCase
	switch r {
	case getNetwork:
		cs = []testCase{{
			name: "ok", op: okOperator(),
			wantStatus: http.StatusOK, wantCalls: []string{isOp, "Network()"},
		}, {
			name: "empty lists are arrays, never null",
			op: fakeOperator{IsOperatorFunc: onlyOperator, NetworkFunc: func(context.Context) (*operator.NetworkInfo, error) {
				return &operator.NetworkInfo{DSOParty: dsoParty, Now: ledgerNow}, nil
			}},
			wantStatus: http.StatusOK, wantCalls: []string{isOp, "Network()"},
		}}
		cs = append(cs, faultCases(r, 500, 503)...)
	case getClock:
		// Reading the clock cannot fail; the 500 and 503 the document
		// lists come from the operator check (authCases).
		cs = []testCase{{
			name: "ok", op: okOperator(),
			wantStatus: http.StatusOK, wantCalls: []string{isOp, "Clock()"},
		}, {
			name: "clock never advanced",
			op: fakeOperator{IsOperatorFunc: onlyOperator, ClockFunc: func(context.Context) operator.Clock {
				return operator.Clock{Now: ledgerNow}
			}},
			wantStatus: http.StatusOK, wantCalls: []string{isOp, "Clock()"},
		}}
	case postUsers:
		cs = []testCase{
			{name: "ok", body: `{"name":"carol"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, `CreateUser("carol", "")`}},
			{name: "ok with a party hint", body: `{"name":"carol","party_hint":"carol-party"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, `CreateUser("carol", "carol-party")`}},
			{name: "unknown members are ignored", body: `{"name":"carol","admin":true}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, `CreateUser("carol", "")`}},
			{name: "name with every allowed symbol", body: "{\"name\":\"a@^$.!`-#+'~_|:z\"}", op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, "CreateUser(\"a@^$.!`-#+'~_|:z\", \"\")"}},
			{name: "name missing", body: `{}`, offSpec: true, op: invalidName(),
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp, `CreateUser("", "")`}},
			{name: "name with a blank", body: `{"name":"carol smith"}`, offSpec: true, op: invalidName(),
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp, `CreateUser("carol smith", "")`}},
			{name: "name too long", body: `{"name":"` + strings.Repeat("c", 129) + `"}`, offSpec: true, op: invalidName(),
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp, `CreateUser("` + strings.Repeat("c", 129) + `", "")`}},
			{name: "name is a number", body: `{"name":7}`, offSpec: true,
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp}},
			{name: "user exists", body: `{"name":"alice"}`, op: withCreateUser(func(context.Context, string, string) (*operator.UserInfo, error) {
				return nil, fault.WithCode(fault.AlreadyExists, "USER_ALREADY_EXISTS", "User alice already exists")
			}), wantStatus: http.StatusConflict, wantCalls: []string{isOp, `CreateUser("alice", "")`}},
		}
		cs = append(cs, faultCases(r, 400, 409, 429, 500, 503)...)
	case postTap:
		cs = []testCase{
			{name: "ok", body: `{"user":"alice","amount":"100"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, `Tap("alice", 100.0000000000)`}},
			{name: "smallest amount", body: `{"user":"alice","amount":"0.0000000001"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, `Tap("alice", 0.0000000001)`}},
			{name: "largest amount", body: `{"user":"alice","amount":"9999999999999999999999999999.9999999999"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, `Tap("alice", 9999999999999999999999999999.9999999999)`}},
			{name: "leading zeros", body: `{"user":"alice","amount":"007.50"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, `Tap("alice", 7.5000000000)`}},
			{name: "unknown user", body: `{"user":"mallory","amount":"1"}`, op: withTap(func(context.Context, string, daml.Numeric) (daml.ContractID, error) {
				return "", fault.New(fault.NotFound, "No user mallory on the validator participant")
			}), wantStatus: http.StatusNotFound, wantCalls: []string{isOp, `Tap("mallory", 1.0000000000)`}},
			{name: "user without primary party", body: `{"user":"auditor","amount":"1"}`, op: withTap(func(context.Context, string, daml.Numeric) (daml.ContractID, error) {
				return "", fault.New(fault.FailedPrecondition, "user auditor has no primary party")
			}), wantStatus: http.StatusBadRequest, wantCalls: []string{isOp, `Tap("auditor", 1.0000000000)`}},
			{name: "no open mining round", body: `{"user":"alice","amount":"1"}`, op: withTap(func(context.Context, string, daml.Numeric) (daml.ContractID, error) {
				return "", fault.New(fault.Unavailable, "no open mining round has opened yet")
			}), wantStatus: http.StatusServiceUnavailable, wantCalls: []string{isOp, `Tap("alice", 1.0000000000)`}},
			{name: "amount is a JSON number", body: `{"user":"alice","amount":100}`, offSpec: true,
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp}},
		}
		for _, bad := range []struct{ name, amount string }{
			{"amount missing", ""},
			{"amount not a number", "lots"},
			{"amount negative", "-5"},
			{"amount zero", "0"},
			{"amount zero with decimals", "0.000"},
			{"amount negative zero", "-0"},
			{"amount with exponent", "1e3"},
			{"amount with eleven decimals", "1.00000000001"},
			{"amount with 29 digits", "12345678901234567890123456789"},
			{"amount with a blank", " 1"},
			{"amount with a plus sign", "+1"},
			{"amount ending in a point", "1."},
		} {
			body := `{"user":"alice","amount":"` + bad.amount + `"}`
			if bad.amount == "" {
				body = `{"user":"alice"}`
			}
			cs = append(cs, testCase{name: bad.name, body: body, offSpec: true,
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp}})
		}
		cs = append(cs, faultCases(r, 400, 404, 409, 429, 500, 503)...)
	case postAdvance:
		cs = []testCase{
			{name: "ok", body: `{"duration":"24h"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, "AdvanceClock(24h0m0s)"}},
			{name: "compound duration", body: `{"duration":"1h30m15.5s"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, "AdvanceClock(1h30m15.5s)"}},
			{name: "plus sign and fraction", body: `{"duration":"+.5ms"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, "AdvanceClock(500µs)"}},
			{name: "micro sign", body: `{"duration":"90µs"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, "AdvanceClock(90µs)"}},
			{name: "one microsecond", body: `{"duration":"1us"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, "AdvanceClock(1µs)"}},
			{name: "one microsecond in nanoseconds", body: `{"duration":"1000ns"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, "AdvanceClock(1µs)"}},
			{name: "fraction of a microsecond is dropped", body: `{"duration":"1.9us"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, "AdvanceClock(1.9µs)"}},
			{name: "zero and a second", body: `{"duration":"0h1s"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, "AdvanceClock(1s)"}},
			{name: "largest duration", body: `{"duration":"2562047h47m16.854775807s"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, "AdvanceClock(2562047h47m16.854775807s)"}},
			{name: "duration too large", body: `{"duration":"2562048h"}`,
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp}},
			{name: "duration is a JSON number", body: `{"duration":3600}`, offSpec: true,
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp}},
		}
		// Positive durations below the ledger's resolution: the document
		// allows the request (its pattern cannot express the bound) and
		// says it is answered with 400; the operator is not asked.
		for _, sub := range []struct{ name, duration string }{
			{"one nanosecond", "1ns"},
			{"half a microsecond", "+.5us"},
			{"just below a microsecond", "999ns"},
			{"just below a microsecond in microseconds", "0.999us"},
		} {
			cs = append(cs, testCase{name: sub.name, body: `{"duration":"` + sub.duration + `"}`, op: okOperator(),
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp}})
		}
		for _, bad := range []struct{ name, duration string }{
			{"duration missing", ""},
			{"duration without unit", "90"},
			{"duration zero", "0"},
			{"duration zero with unit", "0s"},
			{"duration zero with fraction", "0.0h"},
			{"duration negative", "-1h"},
			{"duration in days", "1d"},
			{"duration with a blank", "1h 30m"},
			{"duration in words", "one hour"},
		} {
			body := `{"duration":"` + bad.duration + `"}`
			if bad.duration == "" {
				body = `{}`
			}
			cs = append(cs, testCase{name: bad.name, body: body, offSpec: true,
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp}})
		}
		cs = append(cs, faultCases(r, 400, 429, 500, 503)...)
	case postPrune:
		sv, unknown := strconv.Quote(string(svParticipant)), strconv.Quote(string(ledger.NewParticipantID("nobody", fp("nobody"))))
		cs = []testCase{
			{name: "ok", body: `{"offset":9}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, `Prune("", 9)`}},
			{name: "validator participant named", body: `{"participant_id":"` + string(validatorPart) + `","offset":17}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, `Prune("` + string(validatorPart) + `", 17)`}},
			{name: "other participant up to its ledger end", body: `{"participant_id":` + sv + `,"offset":42}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, `Prune(` + sv + `, 42)`}},
			{name: "again at the pruned offset", body: `{"offset":5}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, `Prune("", 5)`}},
			{name: "unknown members are ignored", body: `{"offset":9,"force":true}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, `Prune("", 9)`}},
			{name: "offset after the ledger end", body: `{"offset":18}`, op: okOperator(),
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp, `Prune("", 18)`}},
			{name: "offset far after the ledger end", body: `{"offset":9223372036854775807}`, op: okOperator(),
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp, `Prune("", 9223372036854775807)`}},
			{name: "offset before the pruned offset", body: `{"offset":4}`, op: okOperator(),
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp, `Prune("", 4)`}},
			{name: "unknown participant", body: `{"participant_id":` + unknown + `,"offset":1}`, op: okOperator(),
				wantStatus: http.StatusNotFound, wantCalls: []string{isOp, `Prune(` + unknown + `, 1)`}},
			{name: "participant id malformed", body: `{"participant_id":"validator","offset":1}`, offSpec: true, op: okOperator(),
				wantStatus: http.StatusNotFound, wantCalls: []string{isOp, `Prune("validator", 1)`}},
		}
		for _, bad := range []struct{ name, body string }{
			{"offset missing", `{}`},
			{"offset zero", `{"offset":0}`},
			{"offset negative", `{"offset":-1}`},
			{"offset a string", `{"offset":"3"}`},
			{"offset fractional", `{"offset":1.5}`},
			{"offset null", `{"offset":null}`},
			{"participant id a number", `{"participant_id":7,"offset":1}`},
		} {
			cs = append(cs, testCase{name: bad.name, body: bad.body, offSpec: true, op: okOperator(),
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp}})
		}
		cs = append(cs, faultCases(r, 400, 404, 429, 500, 503)...)
	case postMigrate:
		inProgress := okOperator()
		inProgress.MigrateFunc = func(context.Context) (int64, error) {
			return 0, fault.New(fault.FailedPrecondition,
				"migration 1 has not started: it has no update of its own yet, so a new migration cannot start before it does")
		}
		cs = []testCase{
			{name: "ok", op: okOperator(), wantStatus: http.StatusOK, wantCalls: []string{isOp, "Migrate()"}},
			{name: "a body is ignored", body: `{"migration_id":7}`, op: okOperator(), wantStatus: http.StatusOK, wantCalls: []string{isOp, "Migrate()"}},
			{name: "migration in progress", op: inProgress, wantStatus: http.StatusBadRequest, wantCalls: []string{isOp, "Migrate()"}},
		}
		cs = append(cs, faultCases(r, 500, 503)...)
	case postSnapshot:
		cs = []testCase{{name: "ok", op: okOperator(), wantStatus: http.StatusOK, wantCalls: []string{isOp, "TakeNow()"}}}
		cs = append(cs, faultCases(r, 500, 503)...)
	case postSV:
		cs = []testCase{
			{name: "ok", op: okOperator(), wantStatus: http.StatusOK, wantCalls: []string{isOp, "AddSV()"}},
			{name: "a body is ignored", body: `{"name":"x"}`, op: okOperator(), wantStatus: http.StatusOK, wantCalls: []string{isOp, "AddSV()"}},
		}
		cs = append(cs, faultCases(r, 500, 503)...)
	case getHostings:
		cs = []testCase{{
			name: "ok: ordered by synchronizer and participant", op: okOperator(),
			wantStatus: http.StatusOK, wantCalls: []string{isOp, callsAfterAuth[r][0]},
		}, {
			name: "hosted nowhere: an empty list",
			op: fakeOperator{IsOperatorFunc: onlyOperator, HostingsFunc: func(context.Context, daml.Party) ([]ledger.Hosting, error) {
				return nil, nil
			}},
			wantStatus: http.StatusOK, wantCalls: []string{isOp, callsAfterAuth[r][0]},
		}}
		cs = append(cs, faultCases(r, 400, 500, 503)...)
	case postHosting:
		host := func(p ledger.ParticipantID, perm string) string {
			return fmt.Sprintf("HostParty(%q, %q, %q)", aliceParty, p, perm)
		}
		sv, val := strconv.Quote(string(svParticipant)), strconv.Quote(string(validatorPart))
		unknown := ledger.NewParticipantID("nobody", fp("nobody"))
		cs = []testCase{
			{name: "ok: added at submission by default", body: `{"participant_id":` + sv + `}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, host(svParticipant, "Submission")}},
			{name: "ok: added at observation", body: `{"participant_id":` + sv + `,"permission":"Observation"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, host(svParticipant, "Observation")}},
			{name: "ok: permission changed", body: `{"participant_id":` + val + `,"permission":"Confirmation"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, host(validatorPart, "Confirmation")}},
			{name: "ok: unchanged, no update", body: `{"participant_id":` + val + `,"permission":"Submission"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, host(validatorPart, "Submission")}},
			{name: "unknown members are ignored", body: `{"participant_id":` + sv + `,"synchronizer_id":"x::y"}`, op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, host(svParticipant, "Submission")}},
			{name: "unknown participant", body: `{"participant_id":"` + string(unknown) + `"}`, op: okOperator(),
				wantStatus: http.StatusNotFound, wantCalls: []string{isOp, host(unknown, "Submission")}},
			{name: "unknown party", body: `{"participant_id":` + sv + `}`, op: withHostParty(func(_ context.Context, party daml.Party, _ ledger.ParticipantID, _ ledger.Permission) (operator.HostingChange, error) {
				return operator.HostingChange{}, fault.WithCode(fault.NotFound, "PARTY_NOT_KNOWN_ON_LEDGER", "Party not known on ledger: %s", party)
			}), wantStatus: http.StatusNotFound, wantCalls: []string{isOp, host(svParticipant, "Submission")}},
		}
		for _, bad := range []struct{ name, body string }{
			{"participant id missing", `{"permission":"Observation"}`},
			{"participant id empty", `{"participant_id":""}`},
			{"participant id a number", `{"participant_id":7}`},
			{"permission unknown", `{"participant_id":` + sv + `,"permission":"Owner"}`},
			{"permission in lower case", `{"participant_id":` + sv + `,"permission":"observation"}`},
			{"permission as the ledger API names it", `{"participant_id":` + sv + `,"permission":"PARTICIPANT_PERMISSION_OBSERVATION"}`},
		} {
			cs = append(cs, testCase{name: bad.name, body: bad.body, offSpec: true, op: okOperator(),
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp}})
		}
		cs = append(cs, faultCases(r, 400, 404, 500, 503)...)
	case delHosting:
		cs = []testCase{
			{name: "ok: the other hosting stays", op: okOperator(),
				wantStatus: http.StatusOK, wantCalls: []string{isOp, callsAfterAuth[r][0]}},
			{name: "last hosting", op: withUnhostParty(func(_ context.Context, party daml.Party, p ledger.ParticipantID) (operator.HostingChange, error) {
				return operator.HostingChange{}, fault.New(fault.FailedPrecondition,
					"cannot revoke the last hosting of party %s (on participant %s): a party needs a hosting participant", party, p)
			}), wantStatus: http.StatusBadRequest, wantCalls: []string{isOp, callsAfterAuth[r][0]}},
			{name: "not hosted there", op: withUnhostParty(func(_ context.Context, party daml.Party, p ledger.ParticipantID) (operator.HostingChange, error) {
				return operator.HostingChange{}, fault.New(fault.NotFound, "party %s is not hosted on participant %s", party, p)
			}), wantStatus: http.StatusNotFound, wantCalls: []string{isOp, callsAfterAuth[r][0]}},
		}
		cs = append(cs, faultCases(r, 400, 404, 500, 503)...)
	case postSync:
		cs = []testCase{
			{name: "ok", body: okBody[r], op: okOperator(), wantStatus: http.StatusOK, wantCalls: []string{isOp, callsAfterAuth[r][0]}},
			{name: "alias with ::", body: `{"alias":"a::b"}`, op: okOperator(), wantStatus: http.StatusBadRequest,
				wantCalls: []string{isOp, `AddSynchronizer("a::b")`}},
		}
		for _, bad := range []struct{ name, body string }{
			{"alias missing", `{}`},
			{"alias empty", `{"alias":""}`},
			{"alias a number", `{"alias":7}`},
		} {
			cs = append(cs, testCase{name: bad.name, body: bad.body, offSpec: true, op: okOperator(),
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp}})
		}
		cs = append(cs, faultCases(r, 400, 500, 503)...)
	case postReassign:
		reassign := func(cid string, target ledger.SynchronizerID) string {
			return fmt.Sprintf("Reassign(%q, %q)", cid, target)
		}
		unknown := ledger.NewSynchronizerID("nowhere", fp("nowhere"))
		cs = []testCase{
			{name: "ok", body: okBody[r], op: okOperator(), wantStatus: http.StatusOK, wantCalls: []string{isOp, callsAfterAuth[r][0]}},
			{name: "already there", body: `{"contract_id":"` + string(amuletCID) + `","target_synchronizer_id":"` + string(syncID) + `"}`,
				op: okOperator(), wantStatus: http.StatusBadRequest, wantCalls: []string{isOp, reassign(string(amuletCID), syncID)}},
			{name: "unknown synchronizer", body: `{"contract_id":"` + string(amuletCID) + `","target_synchronizer_id":"` + string(unknown) + `"}`,
				op: okOperator(), wantStatus: http.StatusNotFound, wantCalls: []string{isOp, reassign(string(amuletCID), unknown)}},
			{name: "unknown contract", body: `{"contract_id":"00ab","target_synchronizer_id":"` + string(appSyncID) + `"}`,
				op: okOperator(), wantStatus: http.StatusNotFound, wantCalls: []string{isOp, reassign("00ab", appSyncID)}},
		}
		for _, bad := range []struct{ name, body string }{
			{"contract id missing", `{"target_synchronizer_id":"` + string(appSyncID) + `"}`},
			{"target missing", `{"contract_id":"00ab"}`},
			{"contract id empty", `{"contract_id":"","target_synchronizer_id":"` + string(appSyncID) + `"}`},
			{"target a number", `{"contract_id":"00ab","target_synchronizer_id":3}`},
		} {
			cs = append(cs, testCase{name: bad.name, body: bad.body, offSpec: true, op: okOperator(),
				wantStatus: http.StatusBadRequest, wantCalls: []string{isOp}})
		}
		cs = append(cs, faultCases(r, 400, 404, 500, 503)...)
	}
	if r.method == http.MethodPost && r != postSnapshot && r != postMigrate && r != postSV { // these take no body
		for _, m := range malformedCases() {
			m.offSpec, m.wantStatus, m.wantCalls = true, http.StatusBadRequest, []string{isOp}
			cs = append(cs, m)
		}
	}
	for _, a := range authCases(r) {
		if a.body == "" {
			a.body = okBody[r]
		}
		cs = append(cs, a)
	}
	for i := range cs {
		cs[i].route = r
		if cs[i].op.IsOperatorFunc == nil {
			cs[i].op.IsOperatorFunc = onlyOperator
		}
	}
	return cs
}

// hostingsPerSample answers as the topology of sampleNetwork would,
// out of order: the DSO party on both SV participants.
func hostingsPerSample(_ context.Context, p daml.Party) ([]ledger.Hosting, error) {
	if p != dsoParty {
		return nil, nil
	}
	sv2 := ledger.NewParticipantID("sv-2", fp("participant/sv-2"))
	return []ledger.Hosting{
		{Party: p, Participant: sv2, Synchronizer: syncID, Permission: ledger.PermissionConfirmation},
		{Party: p, Participant: svParticipant, Synchronizer: syncID, Permission: ledger.PermissionSubmission},
	}, nil
}

func invalidName() fakeOperator {
	return withCreateUser(func(_ context.Context, name, _ string) (*operator.UserInfo, error) {
		return nil, fault.New(fault.InvalidArgument, "invalid user id %q: use 1 to 128 characters among letters, digits and @^$.!`-#+'~_|:", name)
	})
}

func withCreateUser(fn func(context.Context, string, string) (*operator.UserInfo, error)) fakeOperator {
	op := okOperator()
	op.CreateUserFunc = fn
	return op
}

func withHostParty(fn func(context.Context, daml.Party, ledger.ParticipantID, ledger.Permission) (operator.HostingChange, error)) fakeOperator {
	op := okOperator()
	op.HostPartyFunc = fn
	return op
}

func withUnhostParty(fn func(context.Context, daml.Party, ledger.ParticipantID) (operator.HostingChange, error)) fakeOperator {
	op := okOperator()
	op.UnhostPartyFunc = fn
	return op
}

func withTap(fn func(context.Context, string, daml.Numeric) (daml.ContractID, error)) fakeOperator {
	op := okOperator()
	op.TapFunc = fn
	return op
}

// The OpenAPI document and validation.

// loadSpec reads the document as served, so that serving it is tested too.
var loadSpec = sync.OnceValues(func() (*apitest.Spec, error) {
	rec := httptest.NewRecorder()
	newMux(&fakeOperator{}, hs256).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, baseURL+"/openapi.yaml", nil))
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("GET /openapi.yaml: %d %s", rec.Code, rec.Body)
	}
	return apitest.LoadSpec(rec.Body.Bytes())
})

func mustSpec(t *testing.T) *apitest.Spec {
	t.Helper()
	s, err := loadSpec()
	if err != nil {
		t.Fatalf("OpenAPI document: %v", err)
	}
	return s
}

func newRequest(t *testing.T, method, path, authz, body string) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != "" || method == http.MethodPost {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, baseURL+path, rd)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	return req
}

func newMux(op *fakeOperator, a *web.Authenticator) *http.ServeMux {
	mux := http.NewServeMux()
	h := admin.New(op, a, op)
	h.Register(mux)
	admin.NewSaves(newFakeSaver(), h.Authorize).Register(mux)
	return mux
}

// The tests.

func TestOpenAPIDocumentIsValid(t *testing.T) {
	t.Parallel()
	s := mustSpec(t)
	if got := s.Doc.OpenAPI; !strings.HasPrefix(got, "3.0.") {
		t.Errorf("openapi = %q, want 3.0.x", got)
	}
	// The document describes exactly the routes the handler serves.
	var ops []string
	for path, item := range s.Doc.Paths.Map() {
		for method := range item.Operations() {
			ops = append(ops, method+" "+path)
		}
	}
	want := []string{"GET /openapi.yaml"}
	for _, r := range append(slices.Clone(operatorOnly), savesRoutes...) {
		want = append(want, r.method+" "+r.docPath())
		if sec := s.Doc.Paths.Value(r.docPath()).GetOperation(r.method).Security; sec != nil {
			t.Errorf("%s %s overrides the document's security; it needs the operator token", r.method, r.path)
		}
	}
	slices.Sort(ops)
	slices.Sort(want)
	if !slices.Equal(ops, want) {
		t.Errorf("the document's operations are %q, the handler serves %q", ops, want)
	}
	if sec := s.Doc.Paths.Value("/openapi.yaml").Get.Security; sec == nil || len(*sec) != 0 {
		t.Errorf("GET /openapi.yaml must declare security: [] (no token needed)")
	}
	if len(s.Doc.Security) != 1 || s.Doc.Components.SecuritySchemes["operatorToken"] == nil {
		t.Errorf("the document must require the operatorToken scheme by default")
	}

	// The document as served is the file in the repository.
	onDisk, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(onDisk)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(t.Context()); err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
}

func TestServeOpenAPI(t *testing.T) {
	t.Parallel()
	s := mustSpec(t)
	onDisk, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, authz := range []string{"", "Bearer not-a-jwt", "Basic eDp5"} {
		t.Run(fmt.Sprintf("Authorization %q", authz), func(t *testing.T) {
			t.Parallel()
			op := &fakeOperator{}
			req := newRequest(t, http.MethodGet, "/openapi.yaml", authz, "")
			rec := httptest.NewRecorder()
			newMux(op, hs256).ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d, want 200: %s", rec.Code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/yaml" {
				t.Errorf("Content-Type = %q, want application/yaml", ct)
			}
			if cl := rec.Header().Get("Content-Length"); cl != strconv.Itoa(len(onDisk)) {
				t.Errorf("Content-Length = %q, want %d", cl, len(onDisk))
			}
			if !bytes.Equal(rec.Body.Bytes(), onDisk) {
				t.Error("served document differs from openapi.yaml")
			}
			if calls := op.recorded(); len(calls) != 0 {
				t.Errorf("serving the document called the operator: %v", calls)
			}
			if err := s.Validate(t, newRequest(t, http.MethodGet, "/openapi.yaml", authz, ""), rec); err != nil {
				t.Errorf("request does not conform to the document: %v", err)
			}
		})
	}
}

func TestHandlers(t *testing.T) {
	t.Parallel()
	s := mustSpec(t)
	for _, r := range operatorOnly {
		t.Run(r.golden, func(t *testing.T) {
			t.Parallel()
			cases := routeCases(r)
			golden := apitest.OpenGolden(t, r.golden, *update)
			var (
				mu       sync.Mutex
				ran      int
				answered = map[int]bool{}
			)
			t.Run("cases", func(t *testing.T) {
				seen := map[string]bool{}
				for _, tt := range cases {
					if seen[tt.name] {
						t.Fatalf("duplicate case name %q", tt.name)
					}
					seen[tt.name] = true
					t.Run(tt.name, func(t *testing.T) {
						t.Parallel()
						authn := tt.authn
						if authn == nil {
							authn = hs256
						}
						authz := tt.auth
						if authz == nil {
							authz = asOperator
						}
						authHeader := authz(t)
						op := &tt.op
						rec := httptest.NewRecorder()
						newMux(op, authn).ServeHTTP(rec, newRequest(t, r.method, r.path, authHeader, tt.body))
						mu.Lock()
						ran++
						answered[rec.Code] = true
						mu.Unlock()

						if rec.Code != tt.wantStatus {
							t.Errorf("status = %d, want %d; body %s", rec.Code, tt.wantStatus, rec.Body)
						}
						if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
							t.Errorf("Content-Type = %q, want application/json", ct)
						}
						if got := op.recorded(); !slices.Equal(got, tt.wantCalls) {
							t.Errorf("operator calls = %q, want %q", got, tt.wantCalls)
						}
						golden.Check(t, tt.name, apitest.Entry{Status: rec.Code, Body: rec.Body.Bytes()})

						reqErr := s.Validate(t, newRequest(t, r.method, r.path, authHeader, tt.body), rec)
						switch {
						case tt.offSpec && reqErr == nil:
							t.Errorf("the document allows this request, but the case says it does not")
						case !tt.offSpec && reqErr != nil:
							t.Errorf("request does not conform to the document: %v", reqErr)
						}
					})
				}
			})
			// The checks over all cases only hold when -run selected them all.
			complete := ran == len(cases)
			golden.Finish(t, complete)
			if !complete {
				return
			}
			// Every status the document lists for the operation is one
			// the handler answers in some case, and the other way round
			// (strict response validation already refuses an undocumented
			// status, case by case).
			documented := documentedStatuses(t, s.Doc, r.method, r.docPath())
			got := slices.Sorted(maps.Keys(answered))
			if !slices.Equal(documented, got) {
				t.Errorf("%s %s: the document lists statuses %v, the cases answered %v", r.method, r.path, documented, got)
			}
		})
	}
}

func documentedStatuses(t *testing.T, doc *openapi3.T, method, path string) []int {
	t.Helper()
	item := doc.Paths.Value(path)
	if item == nil || item.GetOperation(method) == nil {
		t.Fatalf("the document has no operation %s %s", method, path)
	}
	var out []int
	for code := range item.GetOperation(method).Responses.Map() {
		n, err := strconv.Atoi(code)
		if err != nil {
			t.Errorf("%s %s: response %q is not a status code", method, path, code)
			continue
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func TestUndocumentedRoutesAreJSON404(t *testing.T) {
	t.Parallel()
	s := mustSpec(t)
	for _, tc := range []struct{ method, path string }{
		{http.MethodGet, "/nope"},
		{http.MethodGet, "/users"},
		{http.MethodPost, "/network"},
		{http.MethodDelete, "/clock"},
		{http.MethodGet, "/clock/advance"},
		{http.MethodPost, "/openapi.yaml"},
		{http.MethodGet, "/parties/" + string(aliceParty) + "/hostings/" + string(svParticipant)},
		{http.MethodPost, "/parties/" + string(aliceParty) + "/hostings/" + string(svParticipant)},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			t.Parallel()
			op := &fakeOperator{}
			req := newRequest(t, tc.method, tc.path, bearerFor(operatorUser)(t), "")
			if s.Describes(req) {
				t.Fatalf("the document describes %s %s; test it in TestHandlers", tc.method, tc.path)
			}
			rec := httptest.NewRecorder()
			newMux(op, hs256).ServeHTTP(rec, req)
			if rec.Code != http.StatusNotFound || rec.Header().Get("Content-Type") != "application/json" {
				t.Errorf("got %d %q, want a JSON 404", rec.Code, rec.Header().Get("Content-Type"))
			}
			if got := string(apitest.Compact(t, rec.Body.Bytes())); got != `{"error":"The requested resource could not be found."}` {
				t.Errorf("body = %s", got)
			}
			if calls := op.recorded(); len(calls) != 0 {
				t.Errorf("operator calls = %q, want none", calls)
			}
		})
	}
}
