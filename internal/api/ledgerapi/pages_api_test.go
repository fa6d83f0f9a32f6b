package ledgerapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
)

// acsPage is a decoded page of the active contracts.
type acsPage struct {
	ActiveContracts []json.RawMessage
	ActiveAtOffset  int64
	NextPageToken   *string
}

// updatesPage is a decoded page of updates.
type updatesPage struct {
	Updates                    []json.RawMessage
	LowestPageOffsetExclusive  int64
	HighestPageOffsetInclusive int64
	NextPageToken              *string
}

// withToken adds a page token to a request body (a JSON object).
func withToken(body string, token *string) string {
	if token == nil {
		return body
	}
	return body[:len(body)-1] + `,"pageToken":"` + *token + `"}`
}

// post serves a POST and decodes its 200 answer into out.
func post(t *testing.T, e *env, user, path, body string, out any) {
	t.Helper()
	rec := httptest.NewRecorder()
	e.handler(options{}).ServeHTTP(rec, newRequest(http.MethodPost, path, bearer(t, user), e.expand(body)))
	if rec.Code != http.StatusOK {
		t.Fatalf("%s: status %d: %s", path, rec.Code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
		t.Fatal(err)
	}
}

// compactAll compacts JSON elements, for comparing them.
func compactAll(t *testing.T, elems []json.RawMessage) []string {
	t.Helper()
	out := make([]string, len(elems))
	for i, e := range elems {
		var b bytes.Buffer
		if err := json.Compact(&b, e); err != nil {
			t.Fatal(err)
		}
		out[i] = b.String()
	}
	return out
}

// The paged reads: walked to the end, the pages of the active contracts
// and of the updates hold what the lists hold.
func TestPagedReads(t *testing.T) {
	t.Parallel()
	e := shared(t)
	s := mustSpec(t)
	golden := apitest.OpenGolden(t, "pages", *update)
	head, err := e.net.Store().Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	end := int64(head.Offsets[e.seeded.Validator.Participant])
	endS := strconv.FormatInt(end, 10)
	const (
		aliceEF  = `{"filtersByParty":{"{alice}":{}}}`
		aliceUF  = `{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersByParty":{"{alice}":{}}}},"includeReassignments":{"filtersByParty":{"{alice}":{}}}}`
		acsPath  = "/v2/state/active-contracts-page"
		updsPath = "/v2/updates/get-updates-page"
	)
	// acsWalk checks that the pages of two contracts, walked, are the
	// active contracts list at the page's offset.
	acsWalk := func(body string) func(t *testing.T, rec *httptest.ResponseRecorder) {
		return func(t *testing.T, rec *httptest.ResponseRecorder) {
			var page acsPage
			if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
				t.Fatal(err)
			}
			var got []json.RawMessage
			for {
				if len(page.ActiveContracts) > 2 {
					t.Fatalf("a page of %d contracts, want at most 2", len(page.ActiveContracts))
				}
				got = append(got, page.ActiveContracts...)
				if page.NextPageToken == nil {
					break
				}
				at := page.ActiveAtOffset
				// A fresh page each time: decoding into the old one
				// would reuse the raw elements got holds.
				var next acsPage
				post(t, e, "alice", acsPath, withToken(body, page.NextPageToken), &next)
				page = next
				if page.ActiveAtOffset != at {
					t.Fatalf("the next page is at %d, the first at %d", page.ActiveAtOffset, at)
				}
			}
			var want []json.RawMessage
			post(t, e, "alice", "/v2/state/active-contracts",
				`{"activeAtOffset":`+strconv.FormatInt(page.ActiveAtOffset, 10)+`,"eventFormat":`+aliceEF+`}`, &want)
			if g, w := compactAll(t, got), compactAll(t, want); !slices.Equal(g, w) || len(w) < 3 {
				t.Errorf("pages hold %d contracts, the list %d (want at least 3, the same)", len(g), len(w))
			}
		}
	}
	// updatesWalk checks that the pages of three updates, walked in the
	// request's order, are the updates list of the same range.
	updatesWalk := func(body, listBody string, descending bool) func(t *testing.T, rec *httptest.ResponseRecorder) {
		return func(t *testing.T, rec *httptest.ResponseRecorder) {
			var page updatesPage
			if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
				t.Fatal(err)
			}
			var got []json.RawMessage
			for len(page.Updates) > 0 {
				if len(page.Updates) > 3 {
					t.Fatalf("a page of %d updates, want at most 3", len(page.Updates))
				}
				got = append(got, page.Updates...)
				if page.NextPageToken == nil {
					break
				}
				var next updatesPage
				post(t, e, "alice", updsPath, withToken(body, page.NextPageToken), &next)
				page = next
			}
			var want []ledgerapi.JsGetUpdatesResponse
			post(t, e, "alice", "/v2/updates", listBody, &want)
			var w []json.RawMessage
			for _, u := range want {
				b, _ := json.Marshal(u)
				w = append(w, b)
			}
			if descending {
				slices.Reverse(w)
			}
			if g, w := compactAll(t, got), compactAll(t, w); !slices.Equal(g, w) || len(w) < 4 {
				t.Errorf("pages hold %d updates, the list %d (want at least 4, the same)", len(g), len(w))
			}
		}
	}
	acsTwo := `{"eventFormat":` + aliceEF + `,"maxPageSize":2}`
	updsAsc := `{"beginOffsetExclusive":0,"endOffsetInclusive":` + endS + `,"maxPageSize":3,"updateFormat":` + aliceUF + `}`
	updsDesc := `{"endOffsetInclusive":` + endS + `,"maxPageSize":3,"descendingOrder":true,"updateFormat":` + aliceUF + `}`
	list := `{"beginExclusive":0,"endInclusive":` + endS + `,"updateFormat":` + aliceUF + `}`
	steps := []step{
		{name: "acs page: walked", method: "POST", path: acsPath, user: "alice", status: 200, body: acsTwo, check: acsWalk(acsTwo)},
		{name: "acs page: at an offset", method: "POST", path: acsPath, user: "alice", status: 200,
			body: `{"activeAtOffset":` + strconv.FormatInt(end-2, 10) + `,"eventFormat":` + aliceEF + `}`},
		{name: "acs page: at 0", method: "POST", path: acsPath, user: "alice", status: 200, body: `{"activeAtOffset":0,"eventFormat":` + aliceEF + `}`},
		{name: "acs page: the deprecated GET with a body", method: "GET", path: acsPath, user: "alice", status: 200, body: `{"eventFormat":` + aliceEF + `,"maxPageSize":1}`},
		{name: "acs page: after the ledger end", method: "POST", path: acsPath, user: "alice", status: 400, code: "OFFSET_AFTER_LEDGER_END",
			body: `{"activeAtOffset":` + strconv.FormatInt(end+1, 10) + `,"eventFormat":` + aliceEF + `}`},
		{name: "acs page: a negative offset", method: "POST", path: acsPath, user: "alice", status: 400, code: "NEGATIVE_OFFSET", body: `{"activeAtOffset":-1,"eventFormat":` + aliceEF + `}`},
		{name: "acs page: a page size of 0", method: "POST", path: acsPath, user: "alice", status: 400, code: "INVALID_ARGUMENT", body: `{"eventFormat":` + aliceEF + `,"maxPageSize":0}`},
		{name: "acs page: a page size too large", method: "POST", path: acsPath, user: "alice", status: 400, code: "INVALID_ARGUMENT", body: `{"eventFormat":` + aliceEF + `,"maxPageSize":10001}`},
		{name: "acs page: no event format", method: "POST", path: acsPath, user: "alice", status: 400, code: "MISSING_FIELD", offSpec: true, body: `{}`},
		{name: "acs page: the next page in pages of another size", method: "POST", path: acsPath, user: "alice", status: 200,
			body: withToken(`{"eventFormat":`+aliceEF+`,"maxPageSize":3}`, firstToken(t, e, acsPath, acsTwo))},
		{name: "acs page: a token of another event format", method: "POST", path: acsPath, user: "alice", status: 400, code: "INVALID_ACS_PAGE_TOKEN",
			body: withToken(`{"eventFormat":{"filtersByParty":{"{alice}":{"cumulative":[{"identifierFilter":{"WildcardFilter":{"value":{"includeCreatedEventBlob":true}}}}]}}},"maxPageSize":2}`,
				firstToken(t, e, acsPath, acsTwo))},
		{name: "acs page: a token of another participant", method: "POST", path: "/sv/1" + acsPath, user: admin, status: 400, code: "INVALID_ACS_PAGE_TOKEN",
			opts: options{authNone: true}, body: withToken(acsTwo, firstToken(t, e, acsPath, acsTwo))},
		{name: "acs page: a token that is none", method: "POST", path: acsPath, user: "alice", status: 400, code: "INVALID_FIELD", body: withToken(acsTwo, ptr("e30="))},
		{name: "acs page: a token that is no base64", method: "POST", path: acsPath, user: "alice", status: 400, body: withToken(acsTwo, ptr("!!"))},
		{name: "acs page: reading as another party", method: "POST", path: acsPath, user: "alice", status: 403, body: `{"eventFormat":{"filtersByParty":{"{bob}":{}}}}`},

		{name: "updates page: ascending, walked", method: "POST", path: updsPath, user: "alice", status: 200, body: updsAsc, check: updatesWalk(updsAsc, list, false)},
		{name: "updates page: descending, walked", method: "POST", path: updsPath, user: "alice", status: 200, body: updsDesc, check: updatesWalk(updsDesc, list, true)},
		{name: "updates page: to the ledger end, polled", method: "POST", path: updsPath, user: "alice", status: 200,
			body: `{"beginOffsetExclusive":` + strconv.FormatInt(end-1, 10) + `,"updateFormat":` + aliceUF + `}`,
			check: func(t *testing.T, rec *httptest.ResponseRecorder) {
				var page updatesPage
				if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
					t.Fatal(err)
				}
				if page.NextPageToken == nil || page.HighestPageOffsetInclusive != end {
					t.Fatalf("the last page without an end must reach the ledger end and carry a token: %s", rec.Body)
				}
				// Polling at the ledger end gives an empty page, and a
				// token again.
				post(t, e, "alice", updsPath, withToken(`{"beginOffsetExclusive":`+strconv.FormatInt(end-1, 10)+`,"updateFormat":`+aliceUF+`}`, page.NextPageToken), &page)
				if len(page.Updates) != 0 || page.NextPageToken == nil || page.LowestPageOffsetExclusive != end {
					t.Errorf("polled page %+v", page)
				}
			}},
		{name: "updates page: the default bounds", method: "POST", path: updsPath, user: "alice", status: 200, body: `{"maxPageSize":2,"updateFormat":` + aliceUF + `}`},
		{name: "updates page: an end after the ledger end", method: "POST", path: updsPath, user: "alice", status: 400, code: "OFFSET_AFTER_LEDGER_END",
			body: `{"endOffsetInclusive":` + strconv.FormatInt(end+1, 10) + `,"updateFormat":` + aliceUF + `}`},
		{name: "updates page: an end of 0", method: "POST", path: updsPath, user: "alice", status: 400, code: "NON_POSITIVE_OFFSET", body: `{"endOffsetInclusive":0,"updateFormat":` + aliceUF + `}`},
		{name: "updates page: a negative begin", method: "POST", path: updsPath, user: "alice", status: 400, code: "NEGATIVE_OFFSET", body: `{"beginOffsetExclusive":-1,"updateFormat":` + aliceUF + `}`},
		{name: "updates page: a begin after the end", method: "POST", path: updsPath, user: "alice", status: 400, code: "INVALID_ARGUMENT",
			body: `{"beginOffsetExclusive":5,"endOffsetInclusive":4,"updateFormat":` + aliceUF + `}`},
		{name: "updates page: a page size too large", method: "POST", path: updsPath, user: "alice", status: 400, code: "INVALID_ARGUMENT", body: `{"maxPageSize":2001,"updateFormat":` + aliceUF + `}`},
		{name: "updates page: no format", method: "POST", path: updsPath, user: "alice", status: 400, code: "MISSING_FIELD", offSpec: true, body: `{}`},
		{name: "updates page: a token of another request", method: "POST", path: updsPath, user: "alice", status: 400, code: "INVALID_UPDATES_PAGE_TOKEN",
			body: withToken(`{"beginOffsetExclusive":0,"endOffsetInclusive":`+endS+`,"maxPageSize":4,"updateFormat":`+aliceUF+`}`, firstToken(t, e, updsPath, updsAsc))},
		{name: "updates page: reading as another party", method: "POST", path: updsPath, user: "alice", status: 403,
			body: `{"updateFormat":{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersByParty":{"{bob}":{}}}}}}`},
	}
	runSteps(t, e, s, golden, steps)
}

func ptr(s string) *string { return &s }

// firstToken returns the token of a request's first page.
func firstToken(t *testing.T, e *env, path, body string) *string {
	t.Helper()
	var page struct{ NextPageToken *string }
	post(t, e, "alice", path, body, &page)
	if page.NextPageToken == nil {
		t.Fatalf("%s %s: the first page has no token", path, body)
	}
	return page.NextPageToken
}

// Pages do not reach into the pruned part of the stream: without a lower
// bound they start at the pruned offset; with one below it they are
// refused.
func TestPagedReadsPruned(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	const prunedAt = 5
	if err := e.net.Prune(ctx, e.seeded.Validator.Participant, prunedAt); err != nil {
		t.Fatal(err)
	}
	const uf = `{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_LEDGER_EFFECTS","eventFormat":{"filtersForAnyParty":{}}}}`
	var page updatesPage
	post(t, e, userAnyReader, "/v2/updates/get-updates-page", `{"maxPageSize":1,"updateFormat":`+uf+`}`, &page)
	if page.LowestPageOffsetExclusive != prunedAt || len(page.Updates) != 1 {
		t.Fatalf("the first page starts at %d with %d updates, want the pruned offset %d", page.LowestPageOffsetExclusive, len(page.Updates), prunedAt)
	}
	var u ledgerapi.JsGetUpdateResponse
	if err := json.Unmarshal(page.Updates[0], &u); err != nil || u.Update.Transaction == nil || u.Update.Transaction.Value.Offset <= prunedAt {
		t.Errorf("the first update %s is not after the pruned offset", page.Updates[0])
	}
	rec := httptest.NewRecorder()
	e.handler(options{}).ServeHTTP(rec, newRequest(http.MethodPost, "/v2/updates/get-updates-page", bearer(t, userAnyReader),
		`{"beginOffsetExclusive":2,"updateFormat":`+uf+`}`))
	if rec.Code != http.StatusBadRequest || !bytes.Contains(rec.Body.Bytes(), []byte("PARTICIPANT_PRUNED_DATA_ACCESSED")) {
		t.Errorf("a begin before the pruned offset: %d %s", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	e.handler(options{}).ServeHTTP(rec, newRequest(http.MethodPost, "/v2/state/active-contracts-page", bearer(t, userAnyReader),
		`{"activeAtOffset":2,"eventFormat":{"filtersForAnyParty":{}}}`))
	if rec.Code != http.StatusBadRequest || !bytes.Contains(rec.Body.Bytes(), []byte("PARTICIPANT_PRUNED_DATA_ACCESSED")) {
		t.Errorf("a snapshot before the pruned offset: %d %s", rec.Code, rec.Body)
	}
}
