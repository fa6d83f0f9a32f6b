package ledger_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// Round trips of the storage encoding over the transactions of a seeded
// Splice network on SQLite, and benchmarks of it against the JSON encoding
// it replaced (kept below, in the test only, for the comparison):
//
//	go test -run '^$' -bench 'BenchmarkEncoding' ./internal/ledger/

var (
	seededOnce sync.Once
	seededTxs  []*ledger.Transaction
	seededACS  []*ledger.Contract
	seededErr  error
)

// seededLedger seeds a Splice network on a SQLite store (once per test
// binary) and returns its transactions and active contracts as the store
// decoded them.
func seededLedger(tb testing.TB) ([]*ledger.Transaction, []*ledger.Contract) {
	tb.Helper()
	seededOnce.Do(func() { seededTxs, seededACS, seededErr = seed() })
	if seededErr != nil {
		tb.Fatal(seededErr)
	}
	return seededTxs, seededACS
}

func seed() ([]*ledger.Transaction, []*ledger.Contract, error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "sandnet-encoding-test")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir) // runs last, after the store is closed
	st, err := sqlitestore.OpenLedger(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	wall := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	net, err := ledger.Open(ctx, st, splice.NewRegistry(), ledger.Config{Seed: "encoding", Wall: func() time.Time { return wall }})
	if err != nil {
		return nil, nil, err
	}
	defer net.Close()
	if _, err := splice.Seed(ctx, net, splice.SeedConfig{}); err != nil {
		return nil, nil, fmt.Errorf("seed: %w", err)
	}
	parts, err := st.Participants(ctx)
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	var txs []*ledger.Transaction
	for _, p := range parts {
		ups, err := st.Updates(ctx, ledger.UpdateQuery{Participant: p.ID})
		if err != nil {
			return nil, nil, err
		}
		for _, u := range ups {
			if u.Transaction == nil {
				continue // topology: see TestEncodingTopologyRoundTrip
			}
			if !seen[u.Transaction.UpdateID] {
				seen[u.Transaction.UpdateID] = true
				txs = append(txs, u.Transaction)
			}
		}
	}
	acs, err := st.ActiveContracts(ctx, ledger.ContractFilter{})
	if err != nil {
		return nil, nil, err
	}
	if len(txs) == 0 || len(acs) == 0 {
		return nil, nil, fmt.Errorf("seeded network has %d transactions and %d contracts", len(txs), len(acs))
	}
	return txs, acs, nil
}

// cmpOpts compares transactions: Daml values with daml.Equal, and a nil
// slice equal to an empty one.
var cmpOpts = cmp.Options{
	cmp.Comparer(func(a, b daml.Numeric) bool { return a.Cmp(b) == 0 }),
	cmpopts.EquateEmpty(),
}

func TestEncodingRoundTripSeeded(t *testing.T) {
	txs, acs := seededLedger(t)
	creates, exercises := 0, 0
	for _, tx := range txs {
		b, err := ledger.EncodeTransaction(tx)
		if err != nil {
			t.Fatalf("encode %s: %v", tx.UpdateID, err)
		}
		got, err := ledger.DecodeTransaction(b)
		if err != nil {
			t.Fatalf("decode %s: %v", tx.UpdateID, err)
		}
		if diff := cmp.Diff(tx, got, cmpOpts); diff != "" {
			t.Fatalf("transaction %s changed (-want +got):\n%s", tx.UpdateID, diff)
		}
		for i := range tx.Events {
			e, g := &tx.Events[i], &got.Events[i]
			if e.Created != nil {
				creates++
				if !daml.Equal(e.Created.Argument, g.Created.Argument) {
					t.Fatalf("%s node %d: argument changed", tx.UpdateID, e.NodeID)
				}
			}
			if x := e.Exercised; x != nil {
				exercises++
				if !daml.Equal(x.ChoiceArgument, g.Exercised.ChoiceArgument) || !daml.Equal(x.ExerciseResult, g.Exercised.ExerciseResult) {
					t.Fatalf("%s node %d: exercise values changed", tx.UpdateID, e.NodeID)
				}
			}
		}
		// Stable: encoding the decoded transaction gives the same bytes.
		if b2, err := ledger.EncodeTransaction(got); err != nil || string(b2) != string(b) {
			t.Fatalf("%s: encoding not stable (%v)", tx.UpdateID, err)
		}
		if _, err := ledger.DecodeContract(b); err == nil {
			t.Fatalf("a transaction blob decoded as a contract")
		}
	}
	for _, c := range acs {
		b, err := ledger.EncodeContract(c)
		if err != nil {
			t.Fatalf("encode %s: %v", c.ID, err)
		}
		got, err := ledger.DecodeContract(b)
		if err != nil {
			t.Fatalf("decode %s: %v", c.ID, err)
		}
		if diff := cmp.Diff(c, got, cmpOpts); diff != "" {
			t.Fatalf("contract %s changed (-want +got):\n%s", c.ID, diff)
		}
	}
	if creates == 0 || exercises == 0 {
		t.Fatalf("seeded network has %d creates and %d exercises", creates, exercises)
	}
}

func TestDecodeRejects(t *testing.T) {
	txs, _ := seededLedger(t)
	b, err := ledger.EncodeTransaction(txs[len(txs)-1])
	if err != nil {
		t.Fatal(err)
	}
	old, err := oldEncodeTransaction(txs[len(txs)-1])
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string][]byte{
		"empty": nil, "json": old, "truncated": b[:len(b)/2], "trailing": append(b[:len(b):len(b)], 0),
		"future format": append([]byte{9}, b[1:]...),
	} {
		if _, err := ledger.DecodeTransaction(in); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	// Every truncation fails cleanly.
	for n := range len(b) {
		if _, err := ledger.DecodeTransaction(b[:n]); err == nil {
			t.Fatalf("prefix of %d bytes decoded", n)
		}
	}
}

func FuzzDecodeTransaction(f *testing.F) {
	for _, tx := range fuzzSeedTxs(f) {
		b, err := ledger.EncodeTransaction(tx)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{1, 'T'})
	f.Fuzz(func(t *testing.T, data []byte) {
		tx, err := ledger.DecodeTransaction(data)
		if err != nil {
			return
		}
		b, err := ledger.EncodeTransaction(tx)
		if err != nil {
			return // e.g. a node both created and exercised is refused on the way in
		}
		got, err := ledger.DecodeTransaction(b)
		if err != nil {
			t.Fatalf("decode(encode(decode(x))): %v", err)
		}
		if diff := cmp.Diff(tx, got, cmpOpts); diff != "" {
			t.Fatalf("round trip changed the transaction:\n%s", diff)
		}
	})
}

func FuzzDecodeContract(f *testing.F) {
	_, acs := seededLedger(f)
	for _, c := range acs[:min(len(acs), 8)] {
		b, err := ledger.EncodeContract(c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, err := ledger.DecodeContract(data); err == nil {
			if _, err := ledger.EncodeContract(c); err != nil {
				t.Fatalf("a decoded contract does not encode: %v", err)
			}
		}
	})
}

// fuzzSeedTxs is a few seeded transactions of different shapes: the
// smallest, the largest and some in between.
func fuzzSeedTxs(tb testing.TB) []*ledger.Transaction {
	txs, _ := seededLedger(tb)
	step := max(1, len(txs)/8)
	var out []*ledger.Transaction
	for i := 0; i < len(txs); i += step {
		out = append(out, txs[i])
	}
	return out
}

// BenchmarkEncoding compares the binary storage encoding with the JSON
// one it replaced over every transaction of a seeded network: ns/op is per
// transaction, bytes/tx the mean blob size.
func BenchmarkEncoding(b *testing.B) {
	txs, _ := seededLedger(b)
	for _, impl := range []struct {
		name   string
		encode func(*ledger.Transaction) ([]byte, error)
		decode func([]byte) (*ledger.Transaction, error)
	}{
		{"binary", ledger.EncodeTransaction, ledger.DecodeTransaction},
		{"json", oldEncodeTransaction, oldDecodeTransaction},
	} {
		blobs := make([][]byte, len(txs))
		total := 0
		for i, tx := range txs {
			bl, err := impl.encode(tx)
			if err != nil {
				b.Fatal(err)
			}
			blobs[i] = bl
			total += len(bl)
		}
		b.Run(impl.name+"/encode", func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := impl.encode(txs[i%len(txs)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(total)/float64(len(txs)), "bytes/tx")
		})
		b.Run(impl.name+"/decode", func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := impl.decode(blobs[i%len(blobs)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(total)/float64(len(txs)), "bytes/tx")
		})
	}
}

// The JSON encoding the store used before the binary one, kept for the
// benchmark's comparison and for TestDecodeRejects.

type jwTemplate struct {
	PackageID   string `json:"p"`
	Module      string `json:"m"`
	Entity      string `json:"e"`
	PackageName string `json:"n"`
}

type jwContract struct {
	ID           daml.ContractID       `json:"id"`
	Template     jwTemplate            `json:"t"`
	Argument     json.RawMessage       `json:"arg"`
	Signatories  []daml.Party          `json:"sig"`
	Observers    []daml.Party          `json:"obs"`
	CreatedAt    daml.Timestamp        `json:"at"`
	CreatedBy    string                `json:"by"`
	Synchronizer ledger.SynchronizerID `json:"sync"`
	MigrationID  int64                 `json:"mig"`
}

type jwExercised struct {
	ContractID     daml.ContractID  `json:"cid"`
	Template       jwTemplate       `json:"t"`
	Interface      *daml.Identifier `json:"if,omitempty"`
	Choice         string           `json:"ch"`
	ChoiceArgument json.RawMessage  `json:"arg"`
	ActingParties  []daml.Party     `json:"act"`
	Consuming      bool             `json:"cons"`
	Children       []int32          `json:"kids"`
	LastDescendant int32            `json:"last"`
	ExerciseResult json.RawMessage  `json:"res"`
	Stakeholders   []daml.Party     `json:"sh"`
}

type jwEvent struct {
	NodeID    int32        `json:"n"`
	Created   *jwContract  `json:"c,omitempty"`
	Exercised *jwExercised `json:"x,omitempty"`
	Witnesses []daml.Party `json:"w"`
}

type jwTransaction struct {
	UpdateID     string                `json:"u"`
	WorkflowID   string                `json:"wf,omitempty"`
	Submission   ledger.Submission     `json:"sub"`
	Synchronizer ledger.SynchronizerID `json:"sync"`
	MigrationID  int64                 `json:"mig"`
	RecordTime   daml.Timestamp        `json:"rt"`
	EffectiveAt  daml.Timestamp        `json:"at"`
	Events       []jwEvent             `json:"ev"`
	Roots        []int32               `json:"roots"`
	TraceContext ledger.TraceContext   `json:"tc"`
}

func toWireTemplate(t ledger.TemplateID) jwTemplate {
	return jwTemplate{t.PackageID, t.ModuleName, t.EntityName, t.PackageName}
}

func (w jwTemplate) template() ledger.TemplateID {
	return ledger.TemplateID{Identifier: daml.Identifier{PackageID: w.PackageID, ModuleName: w.Module, EntityName: w.Entity}, PackageName: w.PackageName}
}

func encodeValue(v daml.Value) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	return daml.ProtobufJSON.Encode(v)
}

func decodeValue(b json.RawMessage) (daml.Value, error) {
	if len(b) == 0 {
		return nil, nil
	}
	return daml.ProtobufJSON.Decode(b, nil)
}

func toWireContract(c *ledger.Contract) (*jwContract, error) {
	arg, err := encodeValue(c.Argument)
	if err != nil {
		return nil, err
	}
	return &jwContract{
		ID: c.ID, Template: toWireTemplate(c.Template), Argument: arg,
		Signatories: c.Signatories, Observers: c.Observers, CreatedAt: c.CreatedAt,
		CreatedBy: c.CreatedBy, Synchronizer: c.Synchronizer, MigrationID: c.MigrationID,
	}, nil
}

func (w *jwContract) contract() (*ledger.Contract, error) {
	v, err := decodeValue(w.Argument)
	if err != nil {
		return nil, err
	}
	rec, ok := v.(*daml.Record)
	if !ok {
		return nil, fmt.Errorf("contract %s: argument is not a record", w.ID)
	}
	return &ledger.Contract{
		ID: w.ID, Template: w.Template.template(), Argument: rec,
		Signatories: w.Signatories, Observers: w.Observers, CreatedAt: w.CreatedAt,
		CreatedBy: w.CreatedBy, Synchronizer: w.Synchronizer, MigrationID: w.MigrationID,
	}, nil
}

// EncodeContract serialises a contract for storage.
func oldEncodeContract(c *ledger.Contract) ([]byte, error) {
	w, err := toWireContract(c)
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// DecodeContract reverses [EncodeContract].
func oldDecodeContract(b []byte) (*ledger.Contract, error) {
	var w jwContract
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("decode contract: %w", err)
	}
	return w.contract()
}

// EncodeTransaction serialises a transaction for storage.
func oldEncodeTransaction(t *ledger.Transaction) ([]byte, error) {
	w := jwTransaction{
		UpdateID: t.UpdateID, WorkflowID: t.WorkflowID, Submission: t.Submission,
		Synchronizer: t.Synchronizer, MigrationID: t.MigrationID, RecordTime: t.RecordTime,
		EffectiveAt: t.EffectiveAt, Roots: t.Roots, TraceContext: t.TraceContext,
		Events: make([]jwEvent, len(t.Events)),
	}
	for i := range t.Events {
		e := &t.Events[i]
		we := jwEvent{NodeID: e.NodeID, Witnesses: e.Witnesses}
		if e.Created != nil {
			c, err := toWireContract(e.Created)
			if err != nil {
				return nil, err
			}
			we.Created = c
		}
		if x := e.Exercised; x != nil {
			arg, err := encodeValue(x.ChoiceArgument)
			if err != nil {
				return nil, err
			}
			res, err := encodeValue(x.ExerciseResult)
			if err != nil {
				return nil, err
			}
			we.Exercised = &jwExercised{
				ContractID: x.ContractID, Template: toWireTemplate(x.Template), Interface: x.Interface,
				Choice: x.Choice, ChoiceArgument: arg, ActingParties: x.ActingParties,
				Consuming: x.Consuming, Children: x.Children, LastDescendant: x.LastDescendant,
				ExerciseResult: res, Stakeholders: x.Stakeholders,
			}
		}
		w.Events[i] = we
	}
	return json.Marshal(&w)
}

// DecodeTransaction reverses [EncodeTransaction].
func oldDecodeTransaction(b []byte) (*ledger.Transaction, error) {
	var w jwTransaction
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("decode transaction: %w", err)
	}
	t := &ledger.Transaction{
		UpdateID: w.UpdateID, WorkflowID: w.WorkflowID, Submission: w.Submission,
		Synchronizer: w.Synchronizer, MigrationID: w.MigrationID, RecordTime: w.RecordTime,
		EffectiveAt: w.EffectiveAt, Roots: w.Roots, TraceContext: w.TraceContext,
		Events: make([]ledger.Event, len(w.Events)),
	}
	for i, we := range w.Events {
		e := ledger.Event{NodeID: we.NodeID, Witnesses: we.Witnesses}
		if we.Created != nil {
			c, err := we.Created.contract()
			if err != nil {
				return nil, err
			}
			e.Created = c
		}
		if x := we.Exercised; x != nil {
			arg, err := decodeValue(x.ChoiceArgument)
			if err != nil {
				return nil, err
			}
			res, err := decodeValue(x.ExerciseResult)
			if err != nil {
				return nil, err
			}
			e.Exercised = &ledger.Exercised{
				ContractID: x.ContractID, Template: x.Template.template(), Interface: x.Interface,
				Choice: x.Choice, ChoiceArgument: arg, ActingParties: x.ActingParties,
				Consuming: x.Consuming, Children: x.Children, LastDescendant: x.LastDescendant,
				ExerciseResult: res, Stakeholders: x.Stakeholders,
			}
		}
		t.Events[i] = e
	}
	return t, nil
}

func TestEncodingTopologyRoundTrip(t *testing.T) {
	tt := &ledger.TopologyTransaction{
		UpdateID: "1220ab", Synchronizer: "global-domain::1220cd", MigrationID: 2, RecordTime: 1767603600000001,
		Events: []ledger.TopologyEvent{
			{Kind: ledger.AuthorizationAdded, Party: "alice::1220ef", Participant: "PAR::p1::1220ef", Permission: ledger.PermissionSubmission},
			{Kind: ledger.AuthorizationChanged, Party: "alice::1220ef", Participant: "PAR::p2::1220ef", Permission: ledger.PermissionObservation},
			{Kind: ledger.AuthorizationRevoked, Party: "bob::1220ef", Participant: "PAR::p1::1220ef"},
		},
	}
	b, err := ledger.EncodeTopologyTransaction(tt)
	if err != nil {
		t.Fatal(err)
	}
	if !ledger.IsTopologyBlob(b) {
		t.Error("IsTopologyBlob = false for a topology blob")
	}
	u, err := ledger.DecodeUpdate(b)
	if err != nil || u.Transaction != nil || u.Reassignment != nil {
		t.Fatalf("DecodeUpdate = %+v, %v", u, err)
	}
	got := u.Topology
	if d := cmp.Diff(tt, got); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
	// A topology blob is not a transaction, and the other way round.
	if _, err := ledger.DecodeTransaction(b); err == nil {
		t.Error("a topology blob decoded as a transaction")
	}
	txb, err := ledger.EncodeTransaction(&ledger.Transaction{UpdateID: "1220ab"})
	if err != nil {
		t.Fatal(err)
	}
	if ledger.IsTopologyBlob(txb) {
		t.Error("IsTopologyBlob = true for a transaction blob")
	}
	if _, err := ledger.DecodeTopologyTransaction(txb); err == nil {
		t.Error("a transaction blob decoded as a topology transaction")
	}
	// Truncations and a bad event kind are refused, never panic.
	for i := range len(b) {
		if _, err := ledger.DecodeTopologyTransaction(b[:i]); err == nil {
			t.Errorf("a blob cut at %d bytes decoded", i)
		}
	}
	bad := slices.Clone(tt.Events)
	bad[0].Kind = 9
	if _, err := ledger.EncodeTopologyTransaction(&ledger.TopologyTransaction{UpdateID: "x", Events: bad}); err == nil {
		t.Error("an unknown event kind encoded")
	}
}

// TestDecodeUpdateSharedMatches checks that the decoder the ledger API's
// hot path uses (strings shared with one copy of the record) gives exactly
// what the plain decoder gives, and that the results do not alias the
// input buffer, which the store reuses for the next row.
func TestDecodeUpdateSharedMatches(t *testing.T) {
	t.Parallel()
	txs, _ := seededLedger(t)
	for _, tx := range txs {
		b, err := ledger.EncodeTransaction(tx)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ledger.DecodeUpdate(b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ledger.DecodeUpdateShared(b)
		if err != nil || got.Topology != nil || got.Reassignment != nil {
			t.Fatalf("%s: %+v, err %v", tx.UpdateID, got, err)
		}
		for i := range b {
			b[i] = 0 // the store's buffer is reused for the next row
		}
		if diff := cmp.Diff(want, got, cmpOpts); diff != "" {
			t.Fatalf("%s: shared decoding differs (-plain +shared):\n%s", tx.UpdateID, diff)
		}
	}
	for _, bad := range [][]byte{nil, {0}, []byte(`{"u":"x"}`)} {
		if _, err := ledger.DecodeUpdateShared(bad); err == nil {
			t.Errorf("DecodeUpdateShared(%q) accepted", bad)
		}
	}
}

// TestEncodingExternalHash checks the field added after the format was
// fixed: a transaction executed from an interactive submission keeps the
// hash its party signed, and one without it encodes as before.
func TestEncodingExternalHash(t *testing.T) {
	t.Parallel()
	txs, _ := seededLedger(t)
	tx := *txs[len(txs)-1]
	plain, err := ledger.EncodeTransaction(&tx)
	if err != nil {
		t.Fatal(err)
	}
	tx.ExternalHash = []byte{0x01, 0x02, 0xfe}
	signed, err := ledger.EncodeTransaction(&tx)
	if err != nil {
		t.Fatal(err)
	}
	if string(signed[:len(plain)]) != string(plain) {
		t.Fatal("the hash changed the encoding of the fields before it")
	}
	got, err := ledger.DecodeTransaction(signed)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&tx, got, cmpOpts); diff != "" {
		t.Fatalf("transaction changed (-want +got):\n%s", diff)
	}
	if got, err := ledger.DecodeTransaction(plain); err != nil || got.ExternalHash != nil {
		t.Fatalf("without the hash: %v, %x", err, got.ExternalHash)
	}
}
