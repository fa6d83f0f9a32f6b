package ledgerapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
)

// pingTemplate is Canton's built-in ping template, in package-name form.
const pingTemplate = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"

// createPing is a JsCommands creating a Ping from initiator to responder.
func createPing(commandID, actAs, initiator, responder string) string {
	return `{"commands":[{"CreateCommand":{"templateId":"` + pingTemplate + `","createArguments":{"id":"` + commandID + `","initiator":"` + initiator + `","responder":"` + responder + `"}}}],` +
		`"commandId":"` + commandID + `","actAs":["` + actAs + `"]}`
}

// exercise is a JsCommands exercising a choice.
func exercise(commandID, actAs, template, cid, choice, arg string) string {
	return `{"commands":[{"ExerciseCommand":{"templateId":"` + template + `","contractId":"` + cid + `","choice":"` + choice + `","choiceArgument":` + arg + `}}],` +
		`"commandId":"` + commandID + `","actAs":["` + actAs + `"]}`
}

// post serves a POST as the validator participant's API and returns the
// recorder.
func (e *env) post(t testing.TB, o options, path, user, body string) *httptest.ResponseRecorder {
	t.Helper()
	authz := ""
	if user != "" {
		authz = bearer(t, user)
	}
	rec := httptest.NewRecorder()
	e.handler(o).ServeHTTP(rec, newRequest(http.MethodPost, path, authz, body))
	return rec
}

// createdPing creates a Ping from alice to bob through the API and returns
// its contract id.
func (e *env) createdPing(t testing.TB, commandID string) string {
	t.Helper()
	rec := e.post(t, options{}, "/v2/commands/submit-and-wait-for-transaction", "alice",
		`{"commands":`+e.expand(createPing(commandID, "{alice}", "{alice}", "{bob}"))+`}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("create a ping: %d %s", rec.Code, rec.Body)
	}
	return createdID(t, rec)
}

// TestSubmitAndWait submits commands of every kind, as allowed and
// refused, each case on a network of its own: the status, Canton's error
// code, the golden response and its conformance to the document.
func TestSubmitAndWait(t *testing.T) {
	t.Parallel()
	s := mustSpec(t)
	golden := apitest.OpenGolden(t, "commands", *update)
	type ids map[string]string
	cases := []struct {
		name   string
		path   string
		user   string
		opts   options
		setup  func(t *testing.T, e *env) ids
		body   string
		status int
		code   string
	}{
		{name: "create a ping", path: "/v2/commands/submit-and-wait", user: "alice",
			body: createPing("c1", "{alice}", "{alice}", "{bob}"), status: 200},
		{name: "create a ping, package-id form", path: "/v2/commands/submit-and-wait", user: "alice",
			body: strings.Replace(createPing("c1", "{alice}", "{alice}", "{bob}"), pingTemplate,
				"de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54:Canton.Internal.Ping:Ping", 1), status: 200},
		{name: "create a ping for the transaction", path: "/v2/commands/submit-and-wait-for-transaction", user: "alice",
			body: `{"commands":` + createPing("c1", "{alice}", "{alice}", "{bob}") + `}`, status: 200},
		{name: "create a ping for the transaction in a format", path: "/v2/commands/submit-and-wait-for-transaction", user: "alice",
			body: `{"commands":` + createPing("c1", "{alice}", "{alice}", "{bob}") + `,"transactionFormat":{"eventFormat":{"filtersByParty":{"{alice}":{"cumulative":[]}},"verbose":false},"transactionShape":"TRANSACTION_SHAPE_LEDGER_EFFECTS"}}`, status: 200},
		{name: "a format that selects nothing", path: "/v2/commands/submit-and-wait-for-transaction", user: "alice",
			body: `{"commands":` + createPing("c1", "{alice}", "{alice}", "{bob}") + `,"transactionFormat":{"eventFormat":{"filtersByParty":{"{alice}":{"cumulative":[{"identifierFilter":{"TemplateFilter":{"value":{"templateId":"#splice-amulet:Splice.Amulet:Amulet","includeCreatedEventBlob":false}}}}]}}},"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA"}}`, status: 200},
		// Canton's observers never contain a signatory: a ping to oneself
		// has the initiator as signatory and no observer.
		{name: "create a ping to oneself", path: "/v2/commands/submit-and-wait-for-transaction", user: "alice",
			body: `{"commands":` + createPing("c1", "{alice}", "{alice}", "{alice}") + `,"transactionFormat":{"eventFormat":{"filtersByParty":{"{alice}":{"cumulative":[]}},"verbose":true},"transactionShape":"TRANSACTION_SHAPE_LEDGER_EFFECTS"}}`, status: 200},
		{name: "create a ping for the tree", path: "/v2/commands/submit-and-wait-for-transaction-tree", user: "alice",
			body: createPing("c1", "{alice}", "{alice}", "{bob}"), status: 200},
		{name: "respond to a ping", path: "/v2/commands/submit-and-wait-for-transaction", user: "bob",
			setup: func(t *testing.T, e *env) ids { return ids{"{ping}": e.createdPing(t, "p")} },
			body:  `{"commands":` + exercise("c2", "{bob}", pingTemplate, "{ping}", "Respond", `{}`) + `}`, status: 200},
		{name: "abort a ping", path: "/v2/commands/submit-and-wait-for-transaction-tree", user: "bob",
			setup: func(t *testing.T, e *env) ids { return ids{"{ping}": e.createdPing(t, "p")} },
			body:  exercise("c2", "{bob}", pingTemplate, "{ping}", "AbortPing", `{"anyone":"{bob}"}`), status: 200},
		{name: "create and exercise", path: "/v2/commands/submit-and-wait-for-transaction-tree", user: "alice",
			body: `{"commands":[{"CreateAndExerciseCommand":{"templateId":"` + pingTemplate + `","createArguments":{"id":"x","initiator":"{alice}","responder":"{alice}"},"choice":"Respond","choiceArgument":{}}}],"commandId":"c3","actAs":["{alice}"]}`, status: 200},
		{name: "without authentication the user is named", path: "/v2/commands/submit-and-wait", opts: options{authNone: true},
			body: strings.Replace(createPing("c1", "{alice}", "{alice}", "{bob}"), `"commandId"`, `"userId":"alice","commandId"`, 1), status: 200},

		{name: "a duplicate command", path: "/v2/commands/submit-and-wait", user: "alice",
			setup: func(t *testing.T, e *env) ids {
				if rec := e.post(t, options{}, "/v2/commands/submit-and-wait", "alice", e.expand(createPing("dup", "{alice}", "{alice}", "{bob}"))); rec.Code != 200 {
					t.Fatalf("first submission: %d %s", rec.Code, rec.Body)
				}
				return nil
			},
			body: createPing("dup", "{alice}", "{alice}", "{bob}"), status: 409, code: "DUPLICATE_COMMAND"},
		{name: "a duplicate outside its deduplication offset", path: "/v2/commands/submit-and-wait", user: "alice",
			setup: func(t *testing.T, e *env) ids {
				rec := e.post(t, options{}, "/v2/commands/submit-and-wait", "alice", e.expand(createPing("dup", "{alice}", "{alice}", "{bob}")))
				var first ledgerapi.SubmitAndWaitResponse
				if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &first) != nil {
					t.Fatalf("first submission: %d %s", rec.Code, rec.Body)
				}
				return ids{"{first}": strconv.FormatInt(first.CompletionOffset, 10)}
			},
			body: strings.Replace(createPing("dup", "{alice}", "{alice}", "{bob}"), `"actAs"`, `"deduplicationPeriod":{"DeduplicationOffset":{"value":{first}}},"actAs"`, 1), status: 200},
		{name: "a negative deduplication offset", path: "/v2/commands/submit-and-wait", user: "alice",
			body: strings.Replace(createPing("c1", "{alice}", "{alice}", "{bob}"), `"actAs"`, `"deduplicationPeriod":{"DeduplicationOffset":{"value":-1}},"actAs"`, 1), status: 400, code: "NEGATIVE_OFFSET"},

		{name: "submit asynchronously", path: "/v2/commands/async/submit", user: "alice",
			body: createPing("c1", "{alice}", "{alice}", "{bob}"), status: 200},
		{name: "submit asynchronously, refused at interpretation", path: "/v2/commands/async/submit", user: "alice",
			body: createPing("c1", "{alice}", "{bob}", "{alice}"), status: 400, code: "DAML_AUTHORIZATION_ERROR"},

		{name: "a minimum ledger time ahead", path: "/v2/commands/submit-and-wait-for-transaction", user: "alice",
			body: `{"commands":` + strings.Replace(createPing("c1", "{alice}", "{alice}", "{bob}"), `"actAs"`, `"minLedgerTimeRel":{"seconds":30},"actAs"`, 1) + `}`, status: 200},
		{name: "a minimum ledger time passed", path: "/v2/commands/submit-and-wait-for-transaction", user: "alice",
			body: `{"commands":` + strings.Replace(createPing("c1", "{alice}", "{alice}", "{bob}"), `"actAs"`, `"minLedgerTimeAbs":"2020-01-01T00:00:00Z","actAs"`, 1) + `}`, status: 200},
		{name: "both minimum ledger times", path: "/v2/commands/submit-and-wait", user: "alice",
			body: strings.Replace(createPing("c1", "{alice}", "{alice}", "{bob}"), `"actAs"`, `"minLedgerTimeAbs":"2020-01-01T00:00:00Z","minLedgerTimeRel":{"seconds":1},"actAs"`, 1), status: 400, code: "INVALID_ARGUMENT"},

		// Refusals before interpretation.
		{name: "malformed JSON", path: "/v2/commands/submit-and-wait", user: "alice", body: `{"commands":`, status: 400},
		{name: "a command of two kinds", path: "/v2/commands/submit-and-wait", user: "alice",
			body: `{"commands":[{"CreateCommand":{"templateId":"x:y:z","createArguments":{}},"ExerciseCommand":{"templateId":"x:y:z","contractId":"00","choice":"c","choiceArgument":{}}}],"commandId":"c","actAs":["{alice}"]}`, status: 400},
		{name: "no commands", path: "/v2/commands/submit-and-wait", user: "alice",
			body: `{"commands":[],"commandId":"c","actAs":["{alice}"]}`, status: 400, code: "MISSING_FIELD"},
		{name: "no command id", path: "/v2/commands/submit-and-wait", user: "alice",
			body: createPing("", "{alice}", "{alice}", "{bob}"), status: 400, code: "MISSING_FIELD"},
		{name: "a command id with a bad character", path: "/v2/commands/submit-and-wait", user: "alice",
			body: createPing("a$b", "{alice}", "{alice}", "{bob}"), status: 400, code: "INVALID_FIELD"},
		{name: "no actAs", path: "/v2/commands/submit-and-wait", user: "alice",
			body: strings.Replace(createPing("c1", "{alice}", "{alice}", "{bob}"), `"actAs":["{alice}"]`, `"actAs":[]`, 1), status: 400, code: "MISSING_FIELD"},
		{name: "without authentication and without a user", path: "/v2/commands/submit-and-wait", opts: options{authNone: true},
			body: createPing("c1", "{alice}", "{alice}", "{bob}"), status: 400, code: "MISSING_FIELD"},
		{name: "another user than the token's", path: "/v2/commands/submit-and-wait", user: "alice",
			body: strings.Replace(createPing("c1", "{alice}", "{alice}", "{bob}"), `"commandId"`, `"userId":"bob","commandId"`, 1), status: 403},
		{name: "acting without the right", path: "/v2/commands/submit-and-wait", user: "bob",
			body: createPing("c1", "{alice}", "{alice}", "{bob}"), status: 403},
		{name: "reading without the right", path: "/v2/commands/submit-and-wait", user: "alice",
			body: strings.Replace(createPing("c1", "{alice}", "{alice}", "{bob}"), `"actAs"`, `"readAs":["{bob}"],"actAs"`, 1), status: 403},
		{name: "a reader may not act", path: "/v2/commands/submit-and-wait", user: userReader,
			body: createPing("c1", "{alice}", "{alice}", "{bob}"), status: 403},

		// Refusals of the command layer.
		{name: "an unknown template", path: "/v2/commands/submit-and-wait", user: "alice",
			body: strings.Replace(createPing("c1", "{alice}", "{alice}", "{bob}"), "Ping:Ping", "Ping:Pong", 1), status: 404, code: "TEMPLATES_OR_INTERFACES_NOT_FOUND"},
		{name: "an unknown package", path: "/v2/commands/submit-and-wait", user: "alice",
			body: strings.Replace(createPing("c1", "{alice}", "{alice}", "{bob}"), "#canton-builtin-admin-workflow-ping", "#no-such-package", 1), status: 404, code: "TEMPLATES_OR_INTERFACES_NOT_FOUND"},
		{name: "an unexpected field", path: "/v2/commands/submit-and-wait", user: "alice",
			body: strings.Replace(createPing("c1", "{alice}", "{alice}", "{bob}"), `"id":"c1"`, `"id":"c1","extra":1`, 1), status: 400, code: "INVALID_ARGUMENT"},
		{name: "a missing field", path: "/v2/commands/submit-and-wait", user: "alice",
			body: strings.Replace(createPing("c1", "{alice}", "{alice}", "{bob}"), `"id":"c1",`, ``, 1), status: 400, code: "COMMAND_PREPROCESSING_FAILED"},
		{name: "a field of the wrong type", path: "/v2/commands/submit-and-wait", user: "alice",
			body: strings.Replace(createPing("c1", "{alice}", "{alice}", "{bob}"), `"id":"c1"`, `"id":7`, 1), status: 400, code: "COMMAND_PREPROCESSING_FAILED"},
		{name: "an unknown choice", path: "/v2/commands/submit-and-wait", user: "bob",
			setup: func(t *testing.T, e *env) ids { return ids{"{ping}": e.createdPing(t, "p")} },
			body:  exercise("c2", "{bob}", pingTemplate, "{ping}", "Reply", `{}`), status: 400, code: "INVALID_ARGUMENT"},
		{name: "exercise by key", path: "/v2/commands/submit-and-wait", user: "alice",
			body: `{"commands":[{"ExerciseByKeyCommand":{"templateId":"` + pingTemplate + `","contractKey":{},"choice":"Respond","choiceArgument":{}}}],"commandId":"c","actAs":["{alice}"]}`, status: 404, code: "TEMPLATES_OR_INTERFACES_NOT_FOUND"},

		// Refusals of interpretation.
		{name: "creating for another signatory", path: "/v2/commands/submit-and-wait", user: "alice",
			body: createPing("c1", "{alice}", "{bob}", "{alice}"), status: 400, code: "DAML_AUTHORIZATION_ERROR"},
		{name: "a choice of another controller", path: "/v2/commands/submit-and-wait", user: "alice",
			setup: func(t *testing.T, e *env) ids { return ids{"{ping}": e.createdPing(t, "p")} },
			body:  exercise("c2", "{alice}", pingTemplate, "{ping}", "Respond", `{}`), status: 400, code: "DAML_AUTHORIZATION_ERROR"},
		{name: "a contract already archived", path: "/v2/commands/submit-and-wait", user: "bob",
			setup: func(t *testing.T, e *env) ids {
				cid := e.createdPing(t, "p")
				if rec := e.post(t, options{}, "/v2/commands/submit-and-wait", "bob", e.expand(exercise("r", "{bob}", pingTemplate, cid, "Respond", `{}`))); rec.Code != 200 {
					t.Fatalf("respond: %d %s", rec.Code, rec.Body)
				}
				return ids{"{ping}": cid}
			},
			body: exercise("c2", "{bob}", pingTemplate, "{ping}", "Respond", `{}`), status: 404, code: "CONTRACT_NOT_FOUND"},
		{name: "a contract the submitters cannot see", path: "/v2/commands/submit-and-wait", opts: options{authNone: true},
			setup: func(t *testing.T, e *env) ids { return ids{"{ping}": e.createdPing(t, "p")} },
			body:  strings.Replace(exercise("c2", "{validator}", pingTemplate, "{ping}", "AbortPing", `{"anyone":"{validator}"}`), `"commandId"`, `"userId":"alice","commandId"`, 1), status: 404, code: "CONTRACT_NOT_FOUND"},
	}
	var (
		mu  sync.Mutex
		ran int
	)
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				body := tc.body
				if tc.setup != nil {
					for k, v := range tc.setup(t, e) {
						body = strings.ReplaceAll(body, k, v)
					}
				}
				body = e.expand(body)
				rec := e.post(t, tc.opts, tc.path, tc.user, body)
				mu.Lock()
				ran++
				mu.Unlock()
				if rec.Code != tc.status {
					t.Fatalf("status = %d, want %d: %s", rec.Code, tc.status, rec.Body)
				}
				if rec.Code != http.StatusOK && (rec.Code != http.StatusBadRequest || tc.code != "") {
					checkError(t, rec, tc.code)
				}
				golden.Check(t, tc.name, entryOf(t, rec))
				authz := ""
				if tc.user != "" {
					authz = bearer(t, tc.user)
				}
				// The document asks for a token, which a participant
				// without authentication does without.
				if err := s.Validate(t, newRequest(http.MethodPost, tc.path, authz, body), rec); err != nil && rec.Code != http.StatusBadRequest && tc.user != "" {
					t.Errorf("request does not conform to the document: %v", err)
				}
			})
		}
	})
	golden.Finish(t, ran == len(cases))
}

// FuzzSubmitAndWait posts arbitrary bodies to the command endpoints of a
// network of the fuzzer's own (commands commit): nothing may answer a 5xx,
// and every refusal is Canton's (text/plain for undecodable input, a
// JsCantonError otherwise).
func FuzzSubmitAndWait(f *testing.F) {
	e := newEnv(f)
	seeds := []string{
		createPing("f1", "{alice}", "{alice}", "{bob}"),
		createPing("f2", "{alice}", "{bob}", "{alice}"),
		strings.Replace(createPing("f3", "{alice}", "{alice}", "{bob}"), `"id":"f3"`, `"id":"f3","x":[1,{"y":null}]`, 1),
		exercise("f4", "{bob}", pingTemplate, "00"+strings.Repeat("ab", 32), "Respond", `{}`),
		exercise("f5", "{alice}", "#splice-amulet:Splice.AmuletRules:AmuletRules", "00", "AmuletRules_DevNet_Tap", `{"receiver":"{alice}","amount":"1e5","openRound":"00"}`),
		`{"commands":[{"CreateAndExerciseCommand":{"templateId":"` + pingTemplate + `","createArguments":{"id":"x","initiator":"{alice}","responder":"{alice}"},"choice":"Respond","choiceArgument":null}}],"commandId":"f6","actAs":["{alice}"],"userId":"alice","deduplicationPeriod":{"DeduplicationDuration":{"value":{"seconds":-1}}}}`,
		`{"commands":[],"commandId":"","actAs":[]}`,
		`{"commands":[{"ExerciseByKeyCommand":{"templateId":"a:b:c","contractKey":1,"choice":"c","choiceArgument":[]}}],"commandId":"f7","actAs":["{alice}"],"disclosedContracts":[{"createdEventBlob":"!!"}]}`,
		`{"commands":{"commandId":"f8"},"transactionFormat":{"eventFormat":{},"transactionShape":"UNRECOGNIZED"}}`,
		`[]`, `null`, ``,
	}
	for _, s := range seeds {
		for _, path := range []string{"/v2/commands/submit-and-wait", "/v2/commands/submit-and-wait-for-transaction", "/v2/commands/async/submit"} {
			f.Add(path, e.expand(s))
		}
	}
	paths := []string{"/v2/commands/submit-and-wait", "/v2/commands/submit-and-wait-for-transaction",
		"/v2/commands/submit-and-wait-for-transaction-tree", "/v2/commands/async/submit"}
	h := e.handler(options{authNone: true})
	f.Fuzz(func(t *testing.T, path, body string) {
		if !slices.Contains(paths, path) {
			path = paths[len(path)%len(paths)]
		}
		body = strings.Replace(body, `"actAs"`, `"userId":"alice","actAs"`, 1)
		fuzzAnswer(t, h, path, body)
	})
}

// fuzzAnswer posts a fuzzer's body and fails on a request that hangs,
// a 5xx, or a refusal in neither of Canton's shapes (text/plain for
// undecodable input, a JsCantonError otherwise).
func fuzzAnswer(t *testing.T, h http.Handler, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(rec, newRequest(http.MethodPost, path, "", body))
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("no answer in 10 s for %s %q", path, body)
	}
	if rec.Code >= 500 {
		t.Fatalf("status %d for %s %q: %s", rec.Code, path, body, rec.Body)
	}
	ct := rec.Header().Get("Content-Type")
	if rec.Code != http.StatusOK && !(rec.Code == http.StatusBadRequest && strings.HasPrefix(ct, "text/plain")) && ct != "application/json" {
		t.Fatalf("a %d with Content-Type %q: %s", rec.Code, ct, rec.Body)
	}
	return rec
}
