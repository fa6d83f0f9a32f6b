package builtin_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/builtin"
	"github.com/sandnet/sandnet/internal/ledger/ping"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// env is a network running the built-in packages on SQLite: p1 hosts
// alice, bob and the dso party, p2 hosts carol.
type env struct {
	net                    *ledger.Network
	p1, p2                 ledger.ParticipantID
	alice, bob, carol, dso daml.Party
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitestore.OpenLedger(ctx, filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	net, err := ledger.Open(ctx, st, builtin.NewRegistry(), ledger.Config{Seed: "builtin-" + t.Name(),
		Wall: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { net.Close() })
	e := &env{net: net}
	for _, p := range []struct {
		name string
		id   *ledger.ParticipantID
	}{{"p1", &e.p1}, {"p2", &e.p2}} {
		part, err := net.AddParticipant(ctx, p.name)
		if err != nil {
			t.Fatal(err)
		}
		*p.id = part.ID
	}
	if _, err := net.AddSynchronizer(ctx, "global-domain"); err != nil {
		t.Fatal(err)
	}
	alloc := func(hint string, on ledger.ParticipantID) daml.Party {
		p, err := net.AllocateParty(ctx, ledger.PartySpec{Hint: hint, Hosts: []ledger.Hosting{{Participant: on}}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	e.alice, e.bob, e.dso, e.carol = alloc("alice", e.p1), alloc("bob", e.p1), alloc("dso", e.p1), alloc("carol", e.p2)
	return e
}

// submit runs value-level commands as actAs on p.
func (e *env) submit(p ledger.ParticipantID, actAs []daml.Party, cmds ...ledger.APICommand) (*ledger.Transaction, error) {
	return e.net.Submit(context.Background(), ledger.Command{Participant: p, ActAs: actAs, Run: ledger.RunCommands(cmds)})
}

var (
	pingByName = daml.Identifier{PackageID: "#" + ping.Package.Name, ModuleName: "Canton.Internal.Ping", EntityName: "Ping"}
	pingByID   = ping.TemplateID.Identifier
)

// pingArg is a Ping payload as a client sends it: labels, no identifier.
func pingArg(id string, initiator, responder daml.Party) daml.Value {
	return &daml.Record{Fields: []daml.Field{
		{Label: "id", Value: daml.Text(id)}, {Label: "initiator", Value: initiator}, {Label: "responder", Value: responder},
	}}
}

func emptyRecord() daml.Value { return &daml.Record{} }

func TestResolve(t *testing.T) {
	t.Parallel()
	reg := builtin.NewRegistry()
	holdingByName := daml.Identifier{PackageID: "#" + splice.PackageTokenHolding.Name, ModuleName: "Splice.Api.Token.HoldingV1", EntityName: "Holding"}
	unknownPkg := daml.Identifier{PackageID: strings.Repeat("ab", 32), ModuleName: "Canton.Internal.Ping", EntityName: "Ping"}
	unknownName := daml.Identifier{PackageID: "#no-such-package", ModuleName: "Canton.Internal.Ping", EntityName: "Ping"}
	unknownEntity := daml.Identifier{PackageID: ping.Package.ID, ModuleName: "Canton.Internal.Ping", EntityName: "Pong"}
	tests := []struct {
		name      string
		ref       daml.Identifier
		choice    string // empty: resolve the template (a create)
		wantID    daml.Identifier
		iface     bool
		consuming bool
		argType   string
		wantCode  string
		wantMsg   string
	}{
		{name: "template by id", ref: pingByID, wantID: pingByID, argType: "Record Canton.Internal.Ping:Ping"},
		{name: "template by name", ref: pingByName, wantID: pingByID, argType: "Record Canton.Internal.Ping:Ping"},
		{name: "choice by name", ref: pingByName, choice: "AbortPing", wantID: pingByID, consuming: true, argType: "Record Canton.Internal.Ping:AbortPing"},
		{name: "empty-record choice", ref: pingByID, choice: "Respond", wantID: pingByID, consuming: true, argType: "Record Canton.Internal.Ping:Respond"},
		{name: "archive", ref: pingByID, choice: "Archive", wantID: pingByID, consuming: true, argType: "Unit"},
		{name: "interface by id", ref: splice.HoldingInterface, choice: "Archive", wantID: splice.HoldingInterface, iface: true, consuming: true, argType: "Unit"},
		{name: "interface by name", ref: holdingByName, choice: "Archive", wantID: splice.HoldingInterface, iface: true, consuming: true, argType: "Unit"},
		{name: "interface is no template", ref: holdingByName, wantCode: ledger.CodeTemplatesNotFound,
			wantMsg: "Templates do not exist: [" + splice.HoldingInterface.String() + "]."},
		{name: "unknown package id", ref: unknownPkg, wantCode: ledger.CodeTemplatesNotFound, wantMsg: "Templates do not exist: [" + unknownPkg.String() + "]."},
		{name: "unknown package id, exercise", ref: unknownPkg, choice: "Respond", wantCode: ledger.CodeTemplatesNotFound},
		{name: "unknown package name", ref: unknownName, wantCode: ledger.CodeTemplatesNotFound, wantMsg: "Templates do not exist: [#no-such-package:Canton.Internal.Ping:Ping]."},
		{name: "unknown template", ref: unknownEntity, wantCode: ledger.CodeTemplatesNotFound},
		{name: "unknown template, exercise", ref: unknownEntity, choice: "Respond", wantCode: ledger.CodeInvalidArgument,
			wantMsg: "The submitted request has invalid arguments: Invalid template:" + unknownEntity.String() + " or choice:Respond"},
		{name: "unknown choice", ref: pingByName, choice: "Pong", wantCode: ledger.CodeInvalidArgument,
			wantMsg: "The submitted request has invalid arguments: Invalid template:" + pingByID.String() + " or choice:Pong"},
		{name: "template choice through interface", ref: splice.HoldingInterface, choice: "LockedAmulet_Unlock", wantCode: ledger.CodeInvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var (
				id        daml.Identifier
				arg       *daml.Type
				iface     bool
				consuming bool
				err       error
			)
			if tc.choice == "" {
				var tt *ledger.TemplateType
				if tt, err = reg.ResolveTemplate(tc.ref); err == nil {
					id, arg = tt.ID.Identifier, tt.Payload
				}
			} else {
				var rc *ledger.ResolvedChoice
				if rc, err = reg.ResolveChoice(tc.ref, tc.choice); err == nil {
					id, arg, iface, consuming = rc.ID(), rc.Choice.Argument, rc.Interface != nil, rc.Choice.Consuming
				}
			}
			if tc.wantCode != "" {
				checkFault(t, err, tc.wantCode, tc.wantMsg)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if id != tc.wantID || iface != tc.iface || consuming != tc.consuming || arg.String() != tc.argType {
				t.Errorf("resolved %s (interface %v, consuming %v, argument %s), want %s (%v, %v, %s)",
					id, iface, consuming, arg, tc.wantID, tc.iface, tc.consuming, tc.argType)
			}
		})
	}
	// The Holding interface has its view type and the Archive choice.
	holding, ok := reg.InterfaceType(splice.HoldingInterface)
	if !ok || holding.View == nil || holding.View.String() != "Record Splice.Api.Token.HoldingV1:HoldingView" ||
		holding.PackageName != splice.PackageTokenHolding.Name {
		t.Errorf("Holding = %+v", holding)
	}
	// No built-in template has a key.
	_, err := reg.ResolveKey(pingByName)
	checkFault(t, err, ledger.CodeTemplatesNotFound, "Templates do not exist: ["+pingByID.String()+"].")
}

func checkFault(t *testing.T, err error, code, msg string) {
	t.Helper()
	f, ok := fault.As(err)
	if !ok {
		t.Fatalf("err = %v, want a fault with code %s", err, code)
	}
	if f.Code != code {
		t.Errorf("code = %s (%v), want %s", f.Code, err, code)
	}
	wantKind := map[string]fault.Kind{
		ledger.CodeTemplatesNotFound: fault.NotFound, ledger.CodeInvalidArgument: fault.InvalidArgument,
		ledger.CodePreprocessingFailed: fault.InvalidArgument, ledger.CodeAuthorization: fault.InvalidArgument,
		"CONTRACT_NOT_FOUND": fault.NotFound, "WRONGLY_TYPED_CONTRACT": fault.DamlPrecondition,
		"CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE": fault.DamlPrecondition,
	}[code]
	if f.Kind != wantKind {
		t.Errorf("kind = %v, want %v", f.Kind, wantKind)
	}
	if msg != "" && f.Message != msg {
		t.Errorf("message = %q, want %q", f.Message, msg)
	}
}

func TestPingThroughValueCommands(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	create := func(id string) daml.ContractID {
		t.Helper()
		tr, err := e.submit(e.p1, []daml.Party{e.alice}, ledger.APICommand{Create: &ledger.CreateCommand{Template: pingByName, Argument: pingArg(id, e.alice, e.bob)}})
		if err != nil {
			t.Fatal(err)
		}
		c := tr.Created()[0]
		if c.Template != ping.TemplateID || !equalParties(c.Signatories, e.alice) || !equalParties(c.Observers, e.bob) {
			t.Fatalf("created %+v", c)
		}
		if got := c.Argument.Get("id"); got != daml.Text(id) {
			t.Errorf("payload id = %v", got)
		}
		return c.ID
	}
	exercise := func(actAs daml.Party, ref daml.Identifier, cid daml.ContractID, choice string, arg daml.Value) (*ledger.Transaction, error) {
		return e.submit(e.p1, []daml.Party{actAs}, ledger.APICommand{Exercise: &ledger.ExerciseCommand{Template: ref, ContractID: cid, Choice: choice, Argument: arg}})
	}
	archived := func(cid daml.ContractID) {
		t.Helper()
		if _, active, err := e.net.Store().Contract(context.Background(), cid); err != nil || active {
			t.Errorf("contract %s: active %v, err %v", cid, active, err)
		}
	}

	// Respond: the responder answers; the ping is consumed.
	first := create("ping-1")
	if _, err := exercise(e.alice, pingByID, first, "Respond", emptyRecord()); err != nil {
		checkFault(t, err, ledger.CodeAuthorization, "")
	} else {
		t.Error("the initiator responded to its own ping")
	}
	tr, err := exercise(e.bob, pingByName, first, "Respond", emptyRecord())
	if err != nil {
		t.Fatal(err)
	}
	x := tr.Events[0].Exercised
	if x == nil || x.Choice != "Respond" || !x.Consuming || !equalParties(x.ActingParties, e.bob) || x.ExerciseResult != (daml.Unit{}) {
		t.Fatalf("exercise = %+v", x)
	}
	archived(first)

	// AbortPing: the party the argument names aborts.
	second := create("ping-2")
	abort := func(p daml.Party) daml.Value {
		return &daml.Record{Fields: []daml.Field{{Label: "anyone", Value: p}}}
	}
	if _, err := exercise(e.bob, pingByID, second, "AbortPing", abort(e.alice)); err == nil {
		t.Error("bob aborted a ping naming alice")
	} else {
		checkFault(t, err, ledger.CodeAuthorization, "")
	}
	if _, err := exercise(e.alice, pingByID, second, "AbortPing", abort(e.alice)); err != nil {
		t.Fatal(err)
	}
	archived(second)

	// CreateAndExercise in one transaction, acting as both parties.
	tr, err = e.submit(e.p1, []daml.Party{e.alice, e.bob}, ledger.APICommand{CreateAndExercise: &ledger.CreateAndExerciseCommand{
		Template: pingByName, CreateArgument: pingArg("ping-3", e.alice, e.bob), Choice: "Respond", ChoiceArgument: emptyRecord()}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Events) != 2 || tr.Events[0].Created == nil || tr.Events[1].Exercised == nil ||
		tr.Events[1].Exercised.ContractID != tr.Events[0].Created.ID {
		t.Errorf("create-and-exercise tree = %+v", tr.Events)
	}
}

func TestValueCommandFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tr, err := e.submit(e.p1, []daml.Party{e.alice}, ledger.APICommand{Create: &ledger.CreateCommand{Template: pingByID, Argument: pingArg("p", e.alice, e.carol)}})
	if err != nil {
		t.Fatal(err)
	}
	cid := tr.Created()[0].ID
	missingResponder := &daml.Record{Fields: []daml.Field{{Label: "id", Value: daml.Text("x")}, {Label: "initiator", Value: e.alice}}}
	tests := []struct {
		name  string
		on    ledger.ParticipantID
		actAs daml.Party
		cmd   ledger.APICommand
		code  string
		msg   string
	}{
		{"non-signatory creates", e.p1, e.bob,
			ledger.APICommand{Create: &ledger.CreateCommand{Template: pingByID, Argument: pingArg("x", e.alice, e.bob)}}, ledger.CodeAuthorization, ""},
		{"non-controller exercises", e.p1, e.alice,
			ledger.APICommand{Exercise: &ledger.ExerciseCommand{Template: pingByID, ContractID: cid, Choice: "Respond", Argument: emptyRecord()}}, ledger.CodeAuthorization, ""},
		{"non-stakeholder exercises", e.p1, e.bob,
			ledger.APICommand{Exercise: &ledger.ExerciseCommand{Template: pingByID, ContractID: cid, Choice: "AbortPing",
				Argument: &daml.Record{Fields: []daml.Field{{Label: "anyone", Value: e.bob}}}}}, "CONTRACT_NOT_FOUND", ""},
		{"payload of the wrong shape", e.p1, e.alice,
			ledger.APICommand{Create: &ledger.CreateCommand{Template: pingByID, Argument: daml.Text("ping")}}, ledger.CodePreprocessingFailed, ""},
		{"payload missing a field", e.p1, e.alice,
			ledger.APICommand{Create: &ledger.CreateCommand{Template: pingByID, Argument: missingResponder}}, ledger.CodePreprocessingFailed, ""},
		{"choice argument of the wrong type", e.p1, e.alice,
			ledger.APICommand{Exercise: &ledger.ExerciseCommand{Template: pingByID, ContractID: cid, Choice: "AbortPing",
				Argument: &daml.Record{Fields: []daml.Field{{Label: "anyone", Value: daml.Int64(1)}}}}}, ledger.CodePreprocessingFailed, ""},
		{"unknown choice", e.p1, e.alice,
			ledger.APICommand{Exercise: &ledger.ExerciseCommand{Template: pingByID, ContractID: cid, Choice: "Pong", Argument: emptyRecord()}}, ledger.CodeInvalidArgument, ""},
		{"contract of another template", e.p1, e.alice,
			ledger.APICommand{Exercise: &ledger.ExerciseCommand{Template: splice.PackageAmulet.Identifier("Splice.Amulet", "Amulet"), ContractID: cid,
				Choice: "Archive", Argument: daml.Unit{}}}, "WRONGLY_TYPED_CONTRACT", ""},
		{"contract not implementing the interface", e.p1, e.alice,
			ledger.APICommand{Exercise: &ledger.ExerciseCommand{Template: splice.HoldingInterface, ContractID: cid,
				Choice: "Archive", Argument: daml.Unit{}}}, "CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE", ""},
		{"exercise by key", e.p1, e.alice,
			ledger.APICommand{ExerciseByKey: &ledger.ExerciseByKeyCommand{Template: pingByName, ContractKey: daml.Text("k"), Choice: "Respond", ChoiceArgument: emptyRecord()}},
			ledger.CodeTemplatesNotFound, "Templates do not exist: [" + pingByID.String() + "]."},
		{"create-and-exercise of an unknown choice", e.p1, e.alice,
			ledger.APICommand{CreateAndExercise: &ledger.CreateAndExerciseCommand{Template: pingByID, CreateArgument: pingArg("y", e.alice, e.bob), Choice: "Pong", ChoiceArgument: emptyRecord()}},
			ledger.CodeInvalidArgument, ""},
		{"no command", e.p1, e.alice, ledger.APICommand{}, ledger.CodeInvalidArgument, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := e.submit(tc.on, []daml.Party{tc.actAs}, tc.cmd)
			checkFault(t, err, tc.code, tc.msg)
		})
	}
	// Nothing was committed by the failures: the ping is still active.
	if _, active, err := e.net.Store().Contract(context.Background(), cid); err != nil || !active {
		t.Errorf("ping: active %v, err %v", active, err)
	}
}

// TestInterfaceChoice exercises Archive through the token standard's
// Holding interface on an Amulet: the template's own Archive runs and the
// exercise records the interface.
func TestInterfaceChoice(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	amulet := splice.Amulet{DSO: e.dso, Owner: e.alice, Amount: splice.ExpiringAmount{
		InitialAmount: daml.MustNumeric("10"), CreatedAt: splice.Round{Number: 1}, RatePerRound: splice.RatePerRound{Rate: daml.MustNumeric("0.0001")}}}
	arg, err := daml.FromGo(amulet)
	if err != nil {
		t.Fatal(err)
	}
	byName := daml.Identifier{PackageID: "#" + splice.PackageAmulet.Name, ModuleName: "Splice.Amulet", EntityName: "Amulet"}
	tr, err := e.submit(e.p1, []daml.Party{e.dso, e.alice}, ledger.APICommand{Create: &ledger.CreateCommand{Template: byName, Argument: arg}})
	if err != nil {
		t.Fatal(err)
	}
	cid := tr.Created()[0].ID
	tr, err = e.submit(e.p1, []daml.Party{e.dso, e.alice}, ledger.APICommand{Exercise: &ledger.ExerciseCommand{
		Template:   daml.Identifier{PackageID: "#" + splice.PackageTokenHolding.Name, ModuleName: "Splice.Api.Token.HoldingV1", EntityName: "Holding"},
		ContractID: cid, Choice: "Archive", Argument: daml.Unit{}}})
	if err != nil {
		t.Fatal(err)
	}
	x := tr.Events[0].Exercised
	if x.Interface == nil || *x.Interface != splice.HoldingInterface || x.Template.Identifier != amulet.TemplateID().Identifier || !x.Consuming {
		t.Errorf("exercise = %+v", x)
	}
}

func equalParties(got []daml.Party, want ...daml.Party) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}
