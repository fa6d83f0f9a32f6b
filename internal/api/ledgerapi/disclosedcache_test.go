package ledgerapi_test

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// TestDisclosedCache prepares with the same disclosed contracts again
// and again on one handler, so that the later requests find them in the
// handler's cache of checked contracts, and checks that a cached blob is
// still refused with ids it does not match, and that a forged blob is
// refused before and after the real one is cached.
func TestDisclosedCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	x := e.onboard(t, "cached")
	h := e.handler(options{})
	ac, err := splice.LoadAmuletContext(t.Context(), e.net.Store(), e.seeded.DSOParty, e.net.Clock().Now())
	if err != nil {
		t.Fatal(err)
	}
	rules := ac.AmuletRules.Contract
	blobOf := func(c *ledger.Contract) string {
		b, err := ledger.EncodeContract(c)
		if err != nil {
			t.Fatal(err)
		}
		return base64.StdEncoding.EncodeToString(b)
	}
	// forged is the AmuletRules with one more observer: the same id and
	// template, not the stored contract.
	forgedC := *rules
	forgedC.Observers = append([]daml.Party{daml.Party(x.party)}, rules.Observers...)
	forged := blobOf(&forgedC)
	// body is the tap with the DSO's contracts disclosed, the rules as
	// rulesID and rulesBlob give them.
	body := func(commandID, rulesID, rulesBlob string) string {
		var ds []string
		for _, c := range ac.Disclosed() {
			id, blob := string(c.ID), blobOf(c)
			if c.ID == rules.ID {
				id, blob = rulesID, rulesBlob
			}
			ds = append(ds, `{"contractId":"`+id+`","templateId":"`+c.Template.Identifier.String()+
				`","createdEventBlob":"`+blob+`","synchronizerId":""}`)
		}
		return `{"commands":[{"ExerciseCommand":{"templateId":"#splice-amulet:Splice.AmuletRules:AmuletRules","contractId":"` +
			string(rules.ID) + `","choice":"AmuletRules_DevNet_Tap","choiceArgument":{"receiver":"` + x.party +
			`","amount":"1.0","openRound":"` + string(ac.OpenRound.ID) + `"}}}],"commandId":"` + commandID +
			`","actAs":["` + x.party + `"],"disclosedContracts":[` + strings.Join(ds, ",") + `]}`
	}
	prepare := func(body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, newRequest(http.MethodPost, "/v2/interactive-submission/prepare", bearer(t, "alice"), body))
		return rec
	}
	steps := []struct {
		name, rulesID, rulesBlob string
		status                   int
		want                     string
	}{
		{"forged, nothing cached", string(rules.ID), forged, 400, "the blob is not a contract of this ledger"},
		{"real, checked", string(rules.ID), blobOf(rules), 200, `"preparedTransactionHash"`},
		{"real, cached", string(rules.ID), blobOf(rules), 200, `"preparedTransactionHash"`},
		{"real, no id given", "", blobOf(rules), 200, `"preparedTransactionHash"`},
		{"cached, another id", string(ac.OpenRound.ID), blobOf(rules), 400, "Mismatch between DisclosedContract.contract_id"},
		{"forged, real cached", string(rules.ID), forged, 400, "the blob is not a contract of this ledger"},
	}
	for i, s := range steps {
		rec := prepare(body("cached-"+string(rune('a'+i)), s.rulesID, s.rulesBlob))
		if rec.Code != s.status || !strings.Contains(rec.Body.String(), s.want) {
			t.Errorf("%s: %d %s, want %d with %q", s.name, rec.Code, rec.Body, s.status, s.want)
		}
	}
}
