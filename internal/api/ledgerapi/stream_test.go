package ledgerapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/ledger"
)

// failingLedger fails every Updates call after the first ok ones.
type failingLedger struct {
	ledgerapi.Ledger
	ok    int32
	calls atomic.Int32
}

func (f *failingLedger) Updates(ctx context.Context, q ledger.UpdateQuery) ([]ledger.ParticipantUpdate, error) {
	if f.calls.Add(1) > f.ok {
		return nil, errors.New("the disk is on fire")
	}
	return f.Ledger.Updates(ctx, q)
}

// A store error before the first byte is an error response; after it, the
// connection is cut so that the client sees a truncated transfer, never a
// shorter list that looks complete.
func TestListStoreFailure(t *testing.T) {
	t.Parallel()
	e := shared(t)
	serve := func(t *testing.T, max int, query string) *http.Response {
		t.Helper()
		mux := http.NewServeMux()
		ledgerapi.New(ledgerapi.Config{
			Participant: e.seeded.Validator.Participant, ParticipantName: e.seeded.Validator.ParticipantName,
			Ledger:   &failingLedger{Ledger: ledgerapi.NetworkLedger(e.net), ok: 1},
			Registry: e.net.Registry(), Auth: &web.Authenticator{Verifier: verifier},
			// One byte: the response starts streaming at its first element.
			ListBufferBytes: 1, MaxListElements: max, Logger: discard,
		}).Register(mux, "")
		srv := httptest.NewServer(web.Chain(mux, web.Recover, web.TraceContext))
		t.Cleanup(srv.Close)
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v2/updates"+query, strings.NewReader(e.expand(aliceWildcard)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", bearer(t, "alice"))
		req.Header.Set("Content-Type", "application/json")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}

	t.Run("while counting, before the first byte", func(t *testing.T) {
		t.Parallel()
		// No limit, and a node limit shorter than the range: the 413 must
		// be ruled out by counting the rest of the range, which is the
		// second read.
		resp := serve(t, 3, "")
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("read the error: %v", err)
		}
		if resp.StatusCode != http.StatusInternalServerError {
			t.Fatalf("status %d, want 500: %s", resp.StatusCode, b)
		}
		var je ledgerapi.JsCantonError
		if err := json.Unmarshal(b, &je); err != nil {
			t.Fatalf("not a JsCantonError: %v: %s", err, b)
		}
	})
	t.Run("after the first byte", func(t *testing.T) {
		t.Parallel()
		// A limit within the node limit needs no count: the response
		// starts, and the second read fails.
		resp := serve(t, 3, "?limit=3")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d, want 200", resp.StatusCode)
		}
		b, err := io.ReadAll(resp.Body)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("read error %v, want io.ErrUnexpectedEOF; body %.300s", err, b)
		}
		if !strings.HasPrefix(string(b), "[{") {
			t.Errorf("body %.300s, want the start of the list", b)
		}
		if json.Valid(b) {
			t.Errorf("the truncated body is valid JSON: %s", b)
		}
	})
}
