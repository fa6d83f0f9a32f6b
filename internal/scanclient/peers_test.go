package scanclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/scanclient"
	"github.com/sandnet/sandnet/internal/testnet"
)

// historyEnv is a seeded network whose Scan history holds every kind of
// item: transactions with exercise trees (a transfer, taps), a move of a
// DSO contract to a second synchronizer (an unassignment and an
// assignment), and a hard migration (migration 1's import updates, then a
// tap of migration 1).
type historyEnv struct {
	*testnet.Net
	// other is the second synchronizer.
	other ledger.SynchronizerID
	// unassign and assign are the move's update ids.
	unassign, assign string
}

func openHistory(ctx context.Context, dir string) (*historyEnv, error) {
	n, err := testnet.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	h := &historyEnv{Net: n}
	if err := h.build(ctx); err != nil {
		n.Close()
		return nil, err
	}
	return h, nil
}

func (h *historyEnv) build(ctx context.Context) error {
	step := func() error {
		_, err := h.Ingester.Step(ctx)
		return err
	}
	if err := step(); err != nil {
		return err
	}
	alice, bob := h.Party("alice"), h.Party("bob")
	ac, err := splice.LoadAmuletContext(ctx, h.Network.Store(), h.Seeded.DSOParty, h.Network.Clock().Now())
	if err != nil {
		return err
	}
	holdings, err := splice.Holdings(ctx, h.Network.Store(), alice)
	if err != nil || len(holdings) == 0 {
		return fmt.Errorf("alice's holdings: %v (%d)", err, len(holdings))
	}
	if _, err := h.Network.Submit(ctx, ledger.Command{
		Participant: h.Seeded.Validator.Participant, UserID: "alice", ActAs: []daml.Party{alice, bob}, Disclosed: ac.Disclosed(),
		CommandID: "pay-bob",
		Run: func(tx *ledger.Tx) error {
			_, err := splice.TransferAmulet(tx, ac, alice, alice, []daml.ContractID{holdings[0].ID}, splice.Pay(bob, daml.MustNumeric("12.5")))
			return err
		},
	}); err != nil {
		return fmt.Errorf("pay bob: %w", err)
	}
	other, err := h.Network.AddSynchronizer(ctx, "other")
	if err != nil {
		return err
	}
	h.other = other.ID
	rounds, err := splice.Active[splice.OpenMiningRound](ctx, h.Network.Store(), h.Seeded.DSOParty)
	if err != nil || len(rounds) == 0 {
		return fmt.Errorf("open rounds: %v (%d)", err, len(rounds))
	}
	un, as, err := h.Network.Reassign(ctx, ledger.ReassignSpec{Contract: rounds[len(rounds)-1].ID, Target: other.ID, CommandID: "move-round"})
	if err != nil {
		return fmt.Errorf("move a round: %w", err)
	}
	h.unassign, h.assign = un.UpdateID, as.UpdateID
	if err := step(); err != nil {
		return err
	}
	if _, err := h.Network.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := step(); err != nil {
		return err
	}
	if _, err := splice.TapFor(ctx, h.Network, h.Seeded, "alice", alice, daml.MustNumeric("7.0")); err != nil {
		return fmt.Errorf("tap in migration 1: %w", err)
	}
	return step()
}

var historyShared = testnet.NewShared("scanclient-history", openHistory, (*historyEnv).Close)

func history(t testing.TB) *historyEnv {
	t.Helper()
	return historyShared.Get(t)
}

// post sends body to the Scan at base and returns the answer, which must
// be a 200.
func post(t testing.TB, base, path, body string) []byte {
	t.Helper()
	resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s %s: %d %s (%v)", path, body, resp.StatusCode, b, err)
	}
	return b
}

// items returns the items of a history answer as the Scan wrote them.
func items(t testing.TB, answer []byte) []json.RawMessage {
	t.Helper()
	var page struct {
		Transactions []json.RawMessage `json:"transactions"`
	}
	if err := json.Unmarshal(answer, &page); err != nil {
		t.Fatal(err)
	}
	return page.Transactions
}

// served is one item as a Scan served it, with its Daml values in
// protobuf_json and, where the endpoint offers the choice, in compact_json
// (nil otherwise).
type served struct {
	source   string
	version  int
	protobuf json.RawMessage
	compact  json.RawMessage
}

// allServed reads every item the history fixture's Scan serves: the whole
// v1 and v2 history in both encodings, updates-before of every migration
// and synchronizer, and migration 1's import updates.
func allServed(t testing.TB, h *historyEnv) []served {
	t.Helper()
	base := httptest.NewServer(h.ScanHandler)
	defer base.Close()
	root := base.URL + scanapi.Prefix
	var out []served
	for _, version := range []int{1, 2} {
		path := fmt.Sprintf("/v%d/updates", version)
		after := ""
		for {
			page := func(enc string) []json.RawMessage {
				return items(t, post(t, root, path, fmt.Sprintf(`{%s"page_size":50,"daml_value_encoding":%q}`, after, enc)))
			}
			pb, compact := page("protobuf_json"), page("compact_json")
			if len(pb) != len(compact) {
				t.Fatalf("%s: %d items in protobuf_json, %d in compact_json", path, len(pb), len(compact))
			}
			if len(pb) == 0 {
				break
			}
			for i := range pb {
				out = append(out, served{source: path, version: version, protobuf: pb[i], compact: compact[i]})
			}
			var last struct {
				MigrationID *int64 `json:"migration_id"`
				RecordTime  string `json:"record_time"`
				Event       *struct {
					MigrationID int64 `json:"migration_id"`
				} `json:"event"`
			}
			if err := json.Unmarshal(pb[len(pb)-1], &last); err != nil {
				t.Fatal(err)
			}
			m := int64(0)
			if last.MigrationID != nil {
				m = *last.MigrationID
			} else if last.Event != nil {
				m = last.Event.MigrationID
			}
			after = fmt.Sprintf(`"after":{"after_migration_id":%d,"after_record_time":%q},`, m, last.RecordTime)
		}
	}
	for _, m := range []int64{0, 1} {
		var info scanapi.MigrationInfoResponse
		if err := json.Unmarshal(post(t, root, "/v0/backfilling/migration-info", fmt.Sprintf(`{"migration_id":%d}`, m)), &info); err != nil {
			t.Fatal(err)
		}
		for _, r := range info.RecordTimeRange {
			before, err := daml.ParseTimestamp(r.Max)
			if err != nil {
				t.Fatal(err)
			}
			body := fmt.Sprintf(`{"migration_id":%d,"synchronizer_id":%q,"before":%q,"count":1000}`, m, r.SynchronizerID, (before + 1).MicrosString())
			for _, it := range items(t, post(t, root, "/v0/backfilling/updates-before", body)) {
				out = append(out, served{source: "updates-before", version: 1, protobuf: it})
			}
		}
	}
	for _, it := range items(t, post(t, root, "/v0/backfilling/import-updates", `{"migration_id":1,"after_update_id":"","limit":1000}`)) {
		out = append(out, served{source: "import-updates", version: 1, protobuf: it})
	}
	return out
}

// TestDecodeUpdateRoundTrip decodes every item a real Scan serves and
// renders it again through the Scan API's renderer: the result is the
// served item byte for byte, in protobuf_json and in compact_json, in v1,
// v2 and the backfilling reads. The history holds every kind of item.
func TestDecodeUpdateRoundTrip(t *testing.T) {
	t.Parallel()
	h := history(t)
	all := allServed(t, h)
	kinds := map[string]int{}
	for _, s := range all {
		u, err := scanclient.DecodeUpdate(s.protobuf)
		if err != nil {
			t.Errorf("%s: DecodeUpdate: %v\n%s", s.source, err, s.protobuf)
			continue
		}
		switch {
		case u.Reassignment != nil && u.Reassignment.Kind == ledger.Assigned:
			kinds["assignment"]++
		case u.Reassignment != nil:
			kinds["unassignment"]++
		case u.Import:
			kinds["import"]++
		default:
			kinds["transaction"]++
			for _, e := range u.Transaction.Events {
				if e.Exercised != nil && len(e.Exercised.Children) > 0 {
					kinds["exercise with children"]++
				}
			}
		}
		if (s.source == "import-updates") != u.Import {
			t.Errorf("%s: %s has Import %v", s.source, u.UpdateID(), u.Import)
		}
		if u.Offset != 0 || u.Created != nil || u.Archived != nil {
			t.Errorf("%s: %s has an offset or effects", s.source, u.UpdateID())
		}
		for enc, want := range map[string]json.RawMessage{"protobuf_json": s.protobuf, "compact_json": s.compact} {
			if want == nil {
				continue
			}
			codec, _ := daml.CodecByName(enc)
			got, err := scanapi.RenderUpdate(&u, s.version, codec)
			if err != nil {
				t.Errorf("%s: render %s: %v", s.source, u.UpdateID(), err)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s v%d %s: %s renders differently:\n got %s\nwant %s", s.source, s.version, enc, u.UpdateID(), got, want)
			}
		}
	}
	for _, k := range []string{"transaction", "exercise with children", "assignment", "unassignment", "import"} {
		if kinds[k] == 0 {
			t.Errorf("the history has no %s: %v", k, kinds)
		}
	}
	t.Logf("%d items: %v", len(all), kinds)
}

// TestDecodeUpdateFields checks the decoded updates against the Scan's own
// (its store), on every field the wire carries.
func TestDecodeUpdateFields(t *testing.T) {
	t.Parallel()
	h := history(t)
	ctx := context.Background()
	for _, s := range allServed(t, h) {
		if s.version != 1 || s.source == "updates-before" {
			continue
		}
		got, err := scanclient.DecodeUpdate(s.protobuf)
		if err != nil {
			t.Fatal(err)
		}
		want, err := h.ScanStore.Update(ctx, got.UpdateID())
		if err != nil {
			t.Fatalf("%s: %v", got.UpdateID(), err)
		}
		if r := want.Reassignment; r != nil {
			g := got.Reassignment
			if g == nil || g.Kind != r.Kind || g.Source != r.Source || g.Target != r.Target || g.MigrationID != r.MigrationID ||
				g.RecordTime != r.RecordTime || g.UnassignID != r.UnassignID || g.Counter != r.Counter || g.Submitter != r.Submitter ||
				g.Contract.ID != r.Contract.ID {
				t.Errorf("%s: decoded %+v, want %+v", r.UpdateID, g, r)
			}
			if r.Kind == ledger.Assigned && !daml.Equal(g.Contract.Argument, r.Contract.Argument) {
				t.Errorf("%s: the assigned contract's argument differs", r.UpdateID)
			}
			continue
		}
		w, g := want.Transaction, got.Transaction
		if g.UpdateID != w.UpdateID || g.WorkflowID != w.WorkflowID || g.MigrationID != w.MigrationID || g.RecordTime != w.RecordTime ||
			g.EffectiveAt != w.EffectiveAt || g.Synchronizer != w.Synchronizer || len(g.Events) != len(w.Events) || len(g.Roots) != len(w.Roots) {
			t.Errorf("%s: decoded %+v, want %+v", w.UpdateID, g, w)
			continue
		}
		if got.Import != want.Import {
			t.Errorf("%s: Import %v, want %v", w.UpdateID, got.Import, want.Import)
		}
		// The node ids differ (the wire numbers the projection's nodes
		// afresh), the order of the nodes does not.
		for i := range w.Events {
			we, ge := &w.Events[i], &g.Events[i]
			switch {
			case we.Created != nil:
				c := ge.Created
				if c == nil || c.ID != we.Created.ID || c.Template != we.Created.Template || c.CreatedAt != we.Created.CreatedAt ||
					!daml.Equal(c.Argument, we.Created.Argument) || c.Synchronizer != we.Created.Synchronizer ||
					!sameParties(c.Signatories, we.Created.Signatories) || !sameParties(c.Observers, we.Created.Observers) {
					t.Errorf("%s: created event %d: %+v, want %+v", w.UpdateID, i, c, we.Created)
				}
				if !want.Import && (c.CreatedBy != w.UpdateID || c.MigrationID != w.MigrationID) {
					t.Errorf("%s: created event %d by %s in %d", w.UpdateID, i, c.CreatedBy, c.MigrationID)
				}
			case we.Exercised != nil:
				x, wx := ge.Exercised, we.Exercised
				if x == nil || x.ContractID != wx.ContractID || x.Template != wx.Template || x.Choice != wx.Choice ||
					x.Consuming != wx.Consuming || len(x.Children) != len(wx.Children) || !sameParties(x.ActingParties, wx.ActingParties) ||
					!daml.Equal(x.ChoiceArgument, orUnit(wx.ChoiceArgument)) || !daml.Equal(x.ExerciseResult, orUnit(wx.ExerciseResult)) ||
					!reflect.DeepEqual(x.Interface, wx.Interface) {
					t.Errorf("%s: exercised event %d: %+v, want %+v", w.UpdateID, i, x, wx)
				}
			}
		}
	}
}

// sameParties reports whether a and b hold the same parties: the Scan
// sorts them.
func sameParties(a, b []daml.Party) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// orUnit is v, or Unit for none: the Scan renders a missing value as Unit.
func orUnit(v daml.Value) daml.Value {
	if v == nil {
		return daml.Unit{}
	}
	return v
}

// TestDecodeUpdateInterface round-trips an exercise through an interface,
// which the fixture's history has none of.
func TestDecodeUpdateInterface(t *testing.T) {
	t.Parallel()
	iface := daml.Identifier{PackageID: "pkg", ModuleName: "Splice.Api.Token.HoldingV1", EntityName: "Holding"}
	tpl := ledger.TemplateID{Identifier: daml.Identifier{PackageID: "pkg2", ModuleName: "Splice.Amulet", EntityName: "Amulet"}, PackageName: "splice-amulet"}
	u := scan.Update{Transaction: &ledger.Transaction{
		UpdateID: "1220ab", MigrationID: 3, Synchronizer: "global-domain::1220cd", WorkflowID: "wf",
		RecordTime: 1_700_000_000_000_001, EffectiveAt: 1_700_000_000_000_000,
		Roots: []int32{0},
		Events: []ledger.Event{
			{NodeID: 0, Exercised: &ledger.Exercised{
				ContractID: "00aa", Template: tpl, Interface: &iface, Choice: "Holding_Fetch", ActingParties: []daml.Party{"b::1", "a::1"},
				ChoiceArgument: &daml.Record{Fields: []daml.Field{{Label: "x", Value: daml.Text("y")}}}, ExerciseResult: daml.Int64(7),
				Children: []int32{1},
			}},
			{NodeID: 1, Created: &ledger.Contract{
				ID: "00bb", Template: tpl, Argument: &daml.Record{Fields: []daml.Field{{Label: "owner", Value: daml.Party("a::1")}}},
				Signatories: []daml.Party{"a::1"}, Observers: []daml.Party{}, CreatedAt: 1_700_000_000_000_000,
			}},
		},
	}}
	for _, version := range []int{1, 2} {
		first, err := scanapi.RenderUpdate(&u, version, daml.ProtobufJSON)
		if err != nil {
			t.Fatal(err)
		}
		got, err := scanclient.DecodeUpdate(first)
		if err != nil {
			t.Fatal(err)
		}
		x := got.Transaction.Events[0].Exercised
		if x.Interface == nil || *x.Interface != iface || x.LastDescendant != 1 {
			t.Errorf("v%d: interface %v, last descendant %d; want %v and 1", version, x.Interface, x.LastDescendant, iface)
		}
		again, err := scanapi.RenderUpdate(&got, version, daml.ProtobufJSON)
		if err != nil || !bytes.Equal(again, first) {
			t.Errorf("v%d: rendered again %s (%v), want %s", version, again, err, first)
		}
	}
}

// TestDecodeUpdateRefuses checks that malformed items are refused.
func TestDecodeUpdateRefuses(t *testing.T) {
	t.Parallel()
	const ok = `{"update_id":"u","migration_id":0,"workflow_id":"","record_time":"2026-01-05T09:00:00.000000Z","synchronizer_id":"s::1","effective_at":"2026-01-05T09:00:00Z","root_event_ids":["u:0"],"events_by_id":{"u:0":%s}}`
	const created = `{"event_type":"created_event","event_id":"%s","contract_id":"00","template_id":"p:M:T","package_name":"p","create_arguments":{"record":{}},"created_at":"2026-01-05T09:00:00Z","signatories":[],"observers":[]}`
	if _, err := scanclient.DecodeUpdate([]byte(fmt.Sprintf(ok, fmt.Sprintf(created, "u:0")))); err != nil {
		t.Fatalf("the well-formed item: %v", err)
	}
	tests := []struct{ name, item string }{
		{"not JSON", `{`},
		{"not an object", `[]`},
		{"no update id", `{"record_time":"2026-01-05T09:00:00Z"}`},
		{"bad record time", `{"update_id":"u","record_time":"yesterday"}`},
		{"no migration id", `{"update_id":"u","record_time":"2026-01-05T09:00:00Z","synchronizer_id":"s","effective_at":"2026-01-05T09:00:00Z","root_event_ids":[],"events_by_id":{}}`},
		{"event id not under its key", fmt.Sprintf(ok, fmt.Sprintf(created, "u:1"))},
		{"compact_json arguments", fmt.Sprintf(ok, strings.Replace(fmt.Sprintf(created, "u:0"), `{"record":{}}`, `{"owner":"a::1"}`, 1))},
		{"arguments not a record", fmt.Sprintf(ok, strings.Replace(fmt.Sprintf(created, "u:0"), `{"record":{}}`, `{"int64":"1"}`, 1))},
		{"unknown event type", fmt.Sprintf(ok, strings.Replace(fmt.Sprintf(created, "u:0"), "created_event", "archived_event", 1))},
		{"bad template id", fmt.Sprintf(ok, strings.Replace(fmt.Sprintf(created, "u:0"), "p:M:T", "p:M", 1))},
		{"root not an event", strings.Replace(fmt.Sprintf(ok, fmt.Sprintf(created, "u:0")), `["u:0"]`, `["u:1"]`, 1)},
		{"root twice", strings.Replace(fmt.Sprintf(ok, fmt.Sprintf(created, "u:0")), `["u:0"]`, `["u:0","u:0"]`, 1)},
		{"unreachable event", strings.Replace(fmt.Sprintf(ok, fmt.Sprintf(created, "u:0")), `["u:0"]`, `[]`, 1)},
		{"leading zero", strings.ReplaceAll(fmt.Sprintf(ok, fmt.Sprintf(created, "u:0")), `u:0`, `u:00`)},
		{"a cycle", fmt.Sprintf(ok, `{"event_type":"exercised_event","event_id":"u:0","contract_id":"00","template_id":"p:M:T","package_name":"p","choice":"C","choice_argument":{"unit":{}},"child_event_ids":["u:0"],"exercise_result":{"unit":{}},"consuming":false,"acting_parties":[]}`)},
		{"reassignment without counter", `{"update_id":"u","offset":"1","record_time":"2026-01-05T09:00:00.000000Z","event":{"submitter":"a","source_synchronizer":"s","target_synchronizer":"t","migration_id":0,"unassign_id":"x","contract_id":"00"}}`},
		{"reassignment with neither", `{"update_id":"u","offset":"1","record_time":"2026-01-05T09:00:00.000000Z","event":{"submitter":"a","source_synchronizer":"s","target_synchronizer":"t","migration_id":0,"unassign_id":"x","reassignment_counter":1}}`},
		{"null event", `{"update_id":"u","record_time":"2026-01-05T09:00:00.000000Z","event":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if u, err := scanclient.DecodeUpdate([]byte(tt.item)); err == nil {
				t.Errorf("DecodeUpdate(%s) = %+v, want an error", tt.item, u)
			}
		})
	}
}

// FuzzDecodeUpdate decodes arbitrary items, seeded with a real history's:
// it must never panic, and an item it decodes renders, and decodes and
// renders again to the same bytes.
func FuzzDecodeUpdate(f *testing.F) {
	for _, s := range allServed(f, history(f)) {
		f.Add([]byte(s.protobuf))
	}
	f.Add([]byte(`{"update_id":"u","record_time":"0001-01-01T00:00:00Z","migration_id":1,"synchronizer_id":"s","effective_at":"2026-01-05T09:00:00Z","root_event_ids":[],"events_by_id":{}}`))
	f.Fuzz(func(t *testing.T, item []byte) {
		u, err := scanclient.DecodeUpdate(item)
		if err != nil {
			return
		}
		first, err := scanapi.RenderUpdate(&u, 1, daml.ProtobufJSON)
		if err != nil {
			t.Fatalf("render the decoded %s: %v", item, err)
		}
		again, err := scanclient.DecodeUpdate(first)
		if err != nil {
			t.Fatalf("decode the rendered %s: %v", first, err)
		}
		second, err := scanapi.RenderUpdate(&again, 1, daml.ProtobufJSON)
		if err != nil || !bytes.Equal(first, second) {
			t.Fatalf("rendered once %s, twice %s (%v)", first, second, err)
		}
	})
}
