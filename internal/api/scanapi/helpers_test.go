package scanapi_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scan"
	"github.com/sandnet/sandnet/internal/testnet"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// baseURL is where requests are addressed: the document's server.
const baseURL = "http://127.0.0.1:7575" + scanapi.Prefix

// env is a seeded network on SQLite with SV 1's Scan ingested and
// snapshotted.
type env struct {
	*testnet.Net
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

// openEnv seeds a network, has alice pay bob and offer bob a transfer,
// moves ledger time past the first snapshot boundary and has SV 1's Scan
// ingest it all and take its snapshots.
func openEnv(ctx context.Context, dir string) (*env, error) {
	n, err := testnet.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	e := &env{Net: n}
	if err := e.build(ctx); err != nil {
		n.Close()
		return nil, err
	}
	return e, nil
}

func (e *env) build(ctx context.Context) error {
	alice, bob := e.Party("alice"), e.Party("bob")
	v := e.Seeded.Validator
	ac, err := splice.LoadAmuletContext(ctx, e.Network.Store(), e.Seeded.DSOParty, e.Network.Clock().Now())
	if err != nil {
		return err
	}
	holdings, err := splice.Holdings(ctx, e.Network.Store(), alice)
	if err != nil || len(holdings) == 0 {
		return fmt.Errorf("alice's holdings: %v (%d)", err, len(holdings))
	}
	tx, err := e.Network.Submit(ctx, ledger.Command{
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
	installs, err := splice.Active[splice.WalletAppInstall](ctx, e.Network.Store(), "")
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
	tx, err = e.Network.Submit(ctx, ledger.Command{
		Participant: v.Participant, UserID: v.OperatorUser, ActAs: []daml.Party{v.Party}, CommandID: "offer-bob",
		Run: func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[splice.WalletCreateTransferOfferResult](tx, aliceInstall, "WalletAppInstall_CreateTransferOffer", splice.WalletCreateTransferOffer{
				Receiver: bob, Amount: splice.Amulets(daml.MustNumeric("3.0")), Description: "lunch",
				ExpiresAt: e.Network.Clock().Now() + daml.Timestamp(time.Hour.Microseconds()), TrackingID: "track-1",
			})
			return err
		},
	})
	if err != nil {
		return fmt.Errorf("offer bob: %w", err)
	}
	e.private = append(e.private, splice.CreatedIn(tx, splice.TransferOffer{}.TemplateID())...)

	ing, snaps := e.Ingester, &scan.Snapshotter{Store: e.ScanStore}
	if _, err := ing.Step(ctx); err != nil {
		return err
	}
	// Past the 12:00 boundary: a scheduled snapshot there.
	if _, err := e.Network.AdvanceClock(ctx, 3*time.Hour+time.Minute); err != nil {
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
	return nil
}

// sharedEnv is one network that no test changes.
var sharedEnv = testnet.NewShared("scanapi", openEnv, (*env).Close)

func TestMain(m *testing.M) {
	code := m.Run()
	sharedEnv.Close()
	sharedHoldings.Close()
	os.Exit(code)
}

func shared(t testing.TB) *env {
	t.Helper()
	return sharedEnv.Get(t)
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
