package ledgerapi_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/ledger"
)

// staleHeadLedger reports a ledger end one behind the real one, as if
// a commit landed between the request's read of the ledger end and its
// checkpoint.
type staleHeadLedger struct {
	ledgerapi.Ledger
	participant ledger.ParticipantID
}

func (l staleHeadLedger) Head(ctx context.Context) (ledger.Head, error) {
	h, err := l.Ledger.Head(ctx)
	if err != nil {
		return h, err
	}
	offsets := make(map[ledger.ParticipantID]ledger.Offset, len(h.Offsets))
	for p, o := range h.Offsets {
		offsets[p] = o
	}
	offsets[l.participant]--
	h.Offsets = offsets
	return h, nil
}

// An open-ended list whose ledger end moved before its checkpoint reads
// up to the end the watermark belongs to, then checkpoints there: the
// answer is the one an up-to-date ledger end gives.
func TestCheckpointFollowsTheWatermark(t *testing.T) {
	t.Parallel()
	e := shared(t)
	v := e.seeded.Validator.Participant
	body := e.expand(`{"beginExclusive":10,"filter":{"filtersByParty":{"{alice}":{}}}}`)
	serve := func(led ledgerapi.Ledger) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		e.handlerOn(led, options{}).ServeHTTP(rec, newRequest(http.MethodPost, "/v2/updates?stream_idle_timeout_ms=0", "", body))
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		return rec
	}
	fresh := serve(ledgerapi.NetworkLedger(e.net))
	stale := serve(staleHeadLedger{Ledger: ledgerapi.NetworkLedger(e.net), participant: v})
	if !bytes.Equal(fresh.Body.Bytes(), stale.Body.Bytes()) {
		t.Errorf("with a stale ledger end:\n%s\nwant\n%s", stale.Body, fresh.Body)
	}
	checkCheckpointAt(15)(t, e, stale)
}
