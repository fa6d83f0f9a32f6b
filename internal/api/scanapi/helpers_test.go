package scanapi_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// epoch is the pinned wall clock, so that ids and times are reproducible.
var epoch = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// baseURL is where requests are addressed: the document's server.
const baseURL = "http://127.0.0.1:7575" + scanapi.Prefix

// env is a seeded network on SQLite with SV 1's Scan ingested and
// snapshotted.
type env struct {
	net     *ledger.Network
	ledger  io.Closer
	seeded  *splice.Seeded
	store   *sqlitestore.Scan
	svc     *scan.Service
	handler http.Handler
	// snapshot is the snapshot taken at the end of the fixture.
	snapshot scan.Snapshot
	// scheduled is the snapshot at the first 3-hour boundary.
	scheduled scan.Snapshot
	// private are contracts no Scan may show: the users' wallet installs
	// and a transfer offer between them.
	private []daml.ContractID
	// transfer is the update of a direct transfer from alice to bob.
	transfer string
}

func (e *env) close() {
	e.store.Close()
	e.net.Close()
	e.ledger.Close()
}

func (e *env) party(user string) daml.Party {
	u, ok := e.seeded.User(user)
	if !ok {
		panic("no seeded user " + user)
	}
	return u.Party
}

// openEnv seeds a network, has alice pay bob and offer bob a transfer,
// moves ledger time past the first snapshot boundary and has SV 1's Scan
// ingest it all and take its snapshots.
func openEnv(ctx context.Context, dir string) (*env, error) {
	lst, err := sqlitestore.OpenLedger(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		return nil, err
	}
	net, err := ledger.Open(ctx, lst, splice.NewRegistry(), ledger.Config{Seed: "test", Wall: func() time.Time { return epoch }})
	if err != nil {
		lst.Close()
		return nil, err
	}
	sst, err := sqlitestore.OpenScan(ctx, filepath.Join(dir, "scan.db"))
	if err != nil {
		net.Close()
		lst.Close()
		return nil, err
	}
	e := &env{net: net, ledger: lst, store: sst}
	if err := e.build(ctx); err != nil {
		e.close()
		return nil, err
	}
	return e, nil
}

func (e *env) build(ctx context.Context) error {
	var err error
	if e.seeded, err = splice.Seed(ctx, e.net, splice.SeedConfig{}); err != nil {
		return err
	}
	alice, bob := e.party("alice"), e.party("bob")
	v := e.seeded.Validator
	ac, err := splice.LoadAmuletContext(ctx, e.net.Store(), e.seeded.DSOParty, e.net.Clock().Now())
	if err != nil {
		return err
	}
	holdings, err := splice.Holdings(ctx, e.net.Store(), alice)
	if err != nil || len(holdings) == 0 {
		return fmt.Errorf("alice's holdings: %v (%d)", err, len(holdings))
	}
	tx, err := e.net.Submit(ctx, ledger.Command{
		Participant: v.Participant, UserID: "alice", ActAs: []daml.Party{alice, bob}, Disclosed: ac.Disclosed(),
		CommandID: "pay-bob",
		Run: func(tx *ledger.Tx) error {
			_, err := splice.TransferAmulet(tx, ac, alice, alice, []daml.ContractID{holdings[0].ID}, splice.Pay(bob, daml.MustNumeric("12.5")))
			return err
		},
	})
	if err != nil {
		return fmt.Errorf("pay bob: %w", err)
	}
	e.transfer = tx.UpdateID
	installs, err := splice.Active[splice.WalletAppInstall](ctx, e.net.Store(), "")
	if err != nil {
		return err
	}
	var aliceInstall daml.ContractID
	for _, in := range installs {
		e.private = append(e.private, in.ID)
		if in.Payload.EndUserParty == alice {
			aliceInstall = in.ID
		}
	}
	tx, err = e.net.Submit(ctx, ledger.Command{
		Participant: v.Participant, UserID: v.OperatorUser, ActAs: []daml.Party{v.Party}, CommandID: "offer-bob",
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[splice.WalletCreateTransferOfferResult](tx, aliceInstall, "WalletAppInstall_CreateTransferOffer", splice.WalletCreateTransferOffer{
				Receiver: bob, Amount: splice.Amulets(daml.MustNumeric("3.0")), Description: "lunch",
				ExpiresAt: e.net.Clock().Now() + daml.Timestamp(time.Hour.Microseconds()), TrackingID: "track-1",
			})
			return err
		},
	})
	if err != nil {
		return fmt.Errorf("offer bob: %w", err)
	}
	e.private = append(e.private, splice.CreatedIn(tx, splice.TransferOffer{}.TemplateID())...)

	sv := e.seeded.SVs[0]
	src := &scan.NetworkSource{Network: e.net, Participant: sv.Participant, DSO: e.seeded.DSOParty}
	e.svc = &scan.Service{
		Config: scan.Config{DSO: e.seeded.DSOParty, SV: sv.Party, SVName: sv.Name, AnsAcronym: e.seeded.AnsAcronym},
		Store:  e.store, Source: src,
	}
	ing := &scan.Ingester{Source: src, Store: e.store}
	snaps := &scan.Snapshotter{Store: e.store}
	if _, err := ing.Step(ctx); err != nil {
		return err
	}
	// Past the 12:00 boundary: a scheduled snapshot there.
	if _, err := e.net.AdvanceClock(ctx, 3*time.Hour+time.Minute); err != nil {
		return err
	}
	if _, err := ing.Step(ctx); err != nil {
		return err
	}
	taken, err := snaps.Step(ctx)
	if err != nil {
		return err
	}
	if len(taken) != 1 {
		return fmt.Errorf("want one scheduled snapshot, got %v", taken)
	}
	e.scheduled = taken[0]
	if e.snapshot, err = snaps.TakeNow(ctx); err != nil {
		return err
	}
	mux := http.NewServeMux()
	scanapi.New(scanapi.Config{Service: e.svc, Registry: e.net.Registry(), Logger: slog.New(slog.DiscardHandler), SVUser: sv.OperatorUser}).Register(mux, scanapi.Prefix)
	e.handler = mux
	return nil
}

var sharedDir string

// sharedEnv is one network that no test changes.
var sharedEnv = sync.OnceValues(func() (*env, error) {
	dir, err := os.MkdirTemp("", "scanapi-test-")
	if err != nil {
		return nil, err
	}
	sharedDir = dir
	return openEnv(context.Background(), dir)
})

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedDir != "" {
		if e, err := sharedEnv(); err == nil {
			e.close()
		}
		os.RemoveAll(sharedDir)
	}
	os.Exit(code)
}

func shared(t testing.TB) *env {
	t.Helper()
	e, err := sharedEnv()
	if err != nil {
		t.Fatalf("shared network: %v", err)
	}
	return e
}

var specOnce = sync.OnceValues(func() (*apitest.Spec, error) { return apitest.LoadSpec(scanapi.OpenAPI()) })

func spec(t testing.TB) *apitest.Spec {
	t.Helper()
	s, err := specOnce()
	if err != nil {
		t.Fatalf("OpenAPI document: %v", err)
	}
	return s
}

func newRequest(method, path, body string) *http.Request {
	var rd io.Reader
	if body != "" {
		rd = bytes.NewBufferString(body)
	}
	req := httptest.NewRequest(method, baseURL+path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// do serves a request and validates the exchange against the document.
// The response must always conform; a request the document does not
// allow is an error unless offSpec is set (the case sends it on purpose).
func do(t *testing.T, h http.Handler, method, path, body string, offSpec bool) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, newRequest(method, path, body))
	reqErr := spec(t).Validate(t, newRequest(method, path, body), rec)
	if reqErr != nil && !offSpec {
		t.Errorf("request does not conform to the document: %v", reqErr)
	}
	return rec
}

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }
