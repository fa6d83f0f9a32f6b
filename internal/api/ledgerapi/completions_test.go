package ledgerapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/ledger"
)

// The command completion lists and streams.

const (
	completionsPath    = "/v2/commands/completions"
	getCompletionsPath = "/v2/commands/command-completions"
)

// completionsFixture submits, on a network of the test's own, alice's
// tap c-1 (submission s-1), the same change again (s-2: rejected as a
// duplicate), bob's tap c-2 and alice's tap c-3 (with a 30 s
// deduplication duration and no trace context). It returns the validator
// participant's ledger end before them and the completions.
func completionsFixture(t *testing.T, e *env) (begin ledger.Offset, cs []*ledger.Completion) {
	t.Helper()
	ctx := context.Background()
	v := e.seeded.Validator.Participant
	head, err := e.net.Store().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	alice, bob := e.party("alice"), e.party("bob")
	submit := func(cmd ledger.Command, accepted bool) {
		t.Helper()
		_, c, err := e.net.SubmitAndWait(ctx, cmd)
		if rej, ok := errors.AsType[*ledger.RejectedError](err); ok && !accepted {
			c, err = rej.Completion, nil
		}
		if err != nil || c == nil || c.Accepted() != accepted {
			t.Fatalf("submit %s: %v, %+v", cmd.CommandID, err, c)
		}
		cs = append(cs, c)
	}
	c1 := e.tapCommand(t, v, "alice", alice, "c-1")
	c1.SubmissionID = "s-1"
	submit(c1, true)
	c1.SubmissionID = "s-2"
	submit(c1, false)
	submit(e.tapCommand(t, v, "bob", bob, "c-2"), true)
	c3 := e.tapCommand(t, v, "alice", alice, "c-3")
	c3.Deduplication = ledger.DeduplicateFor(30 * time.Second)
	c3.TraceContext = ledger.TraceContext{}
	submit(c3, true)
	return head.Offsets[v], cs
}

// decodeCompletions decodes a 200 completions list.
func decodeCompletions(t testing.TB, b []byte) []ledgerapi.CompletionStreamResponse {
	t.Helper()
	var out []ledgerapi.CompletionStreamResponse
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil || out == nil {
		t.Fatalf("not a completions list: %v: %.2000s", err, b)
	}
	return out
}

// commandIDs lists the command ids of a list's completions, and the
// offsets of its checkpoints.
func commandIDs(list []ledgerapi.CompletionStreamResponse) (ids []string, checkpoints []int64) {
	ids = []string{}
	for _, r := range list {
		if c := r.CompletionResponse.Completion; c != nil {
			ids = append(ids, c.Value.CommandID)
		}
		if cp := r.CompletionResponse.OffsetCheckpoint; cp != nil {
			checkpoints = append(checkpoints, cp.Value.Offset)
		}
	}
	return ids, checkpoints
}

func TestCompletions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := mustSpec(t)
	begin, fixture := completionsFixture(t, e)
	end := fixture[len(fixture)-1].Offset
	golden := apitest.OpenGolden(t, "completions", *update)
	expand := func(body string) string {
		return e.expand(strings.ReplaceAll(body, "{begin}", strconv.FormatInt(int64(begin), 10)))
	}
	const now = "?stream_idle_timeout_ms=0"
	aliceBody := `{"parties":["{alice}"],"beginExclusive":{begin}}`
	wantIDs := func(want ...string) func(t *testing.T, rec *httptest.ResponseRecorder) {
		return func(t *testing.T, rec *httptest.ResponseRecorder) {
			ids, cps := commandIDs(decodeCompletions(t, rec.Body.Bytes()))
			if strings.Join(ids, ",") != strings.Join(want, ",") {
				t.Errorf("command ids %q, want %q", ids, want)
			}
			if len(cps) != 1 || cps[0] != int64(end) {
				t.Errorf("checkpoints at %v, want one at the ledger end %d", cps, end)
			}
		}
	}
	type completionsCase struct {
		name    string
		path    string // completionsPath unless set; with its query
		user    string
		noToken bool
		body    string
		opts    options
		offSpec bool
		status  int
		code    string
		check   func(t *testing.T, rec *httptest.ResponseRecorder)
	}
	cases := []completionsCase{
		{name: "alice's completions", user: "alice", body: aliceBody, status: 200, check: func(t *testing.T, rec *httptest.ResponseRecorder) {
			wantIDs("c-1", "c-1", "c-3")(t, rec)
			list := decodeCompletions(t, rec.Body.Bytes())
			accepted, rejected, last := list[0].CompletionResponse.Completion.Value, list[1].CompletionResponse.Completion.Value, list[2].CompletionResponse.Completion.Value
			if accepted.Status.Code != 0 || accepted.UpdateID == "" || accepted.SubmissionID != "s-1" || accepted.Offset != int64(fixture[0].Offset) ||
				accepted.DeduplicationPeriod.DeduplicationOffset == nil || accepted.DeduplicationPeriod.DeduplicationOffset.Value != 0 {
				t.Errorf("accepted completion %+v", accepted)
			}
			if rejected.Status.Code != 6 || rejected.UpdateID != "" || rejected.Offset != int64(fixture[1].Offset) ||
				!strings.HasPrefix(rejected.Status.Message, "DUPLICATE_COMMAND(10,s-2): ") {
				t.Errorf("rejected completion %+v", rejected)
			}
			if d := rejected.DeduplicationPeriod.DeduplicationDuration; d == nil || d.Value.Seconds != 7*24*3600 {
				t.Errorf("rejected completion's period %+v, want the maximum duration", rejected.DeduplicationPeriod)
			}
			checkErrorInfo(t, rejected.Status, "DUPLICATE_COMMAND", map[string]string{
				"completion_offset": strconv.FormatInt(accepted.Offset, 10), "definite_answer": "true", "category": "10",
				"existingSubmissionId": "Some(s-1)", "accepted": "true",
			})
			if last.TraceContext == nil || last.TraceContext.TraceParent == nil || last.TraceContext.TraceState != nil {
				t.Errorf("a completion without a trace context: %+v", last.TraceContext)
			}
		}},
		{name: "userId given", user: "alice", body: `{"userId":"alice","parties":["{alice}"],"beginExclusive":{begin}}`, status: 200, check: wantIDs("c-1", "c-1", "c-3")},
		{name: "beginExclusive as a string", user: "alice", body: `{"parties":["{alice}"],"beginExclusive":"{begin}"}`, status: 200, check: wantIDs("c-1", "c-1", "c-3")},
		{name: "unknown members are ignored", user: "alice", body: `{"parties":["{alice}"],"beginExclusive":{begin},"extra":[1]}`, status: 200, check: wantIDs("c-1", "c-1", "c-3")},
		{name: "after the duplicate", user: "alice", body: `{"parties":["{alice}"],"beginExclusive":` + strconv.FormatInt(int64(fixture[1].Offset), 10) + `}`, status: 200, check: wantIDs("c-3")},
		{name: "from the start", user: "alice", body: `{"parties":["{alice}"]}`, status: 200},
		{name: "limit", path: completionsPath + "?limit=1&stream_idle_timeout_ms=0", user: "alice", body: aliceBody, status: 200},
		{name: "over the node limit", user: "alice", body: aliceBody, opts: options{max: 2}, status: 413, code: "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED"},
		{name: "another user's", user: "alice", body: `{"userId":"bob","parties":["{alice}"],"beginExclusive":{begin}}`, status: 403},
		{name: "another user's, as a reader of any party", user: userAnyReader, body: `{"userId":"bob","parties":["{bob}"],"beginExclusive":{begin}}`, status: 200, check: wantIDs("c-2")},
		{name: "alice's, as her reader", user: userReader, body: `{"userId":"alice","parties":["{alice}"],"beginExclusive":{begin}}`, status: 403},
		{name: "a party the user may not read", user: "alice", body: `{"parties":["{bob}"],"beginExclusive":{begin}}`, status: 403},
		{name: "no token", noToken: true, body: aliceBody, offSpec: true, status: 401},
		{name: "no parties", user: "alice", body: `{"beginExclusive":{begin}}`, status: 400, code: "MISSING_FIELD"},
		{name: "no userId without authentication", noToken: true, body: aliceBody, opts: options{authNone: true}, offSpec: true, status: 400, code: "INVALID_TOKEN"},
		{name: "without authentication", noToken: true, body: `{"userId":"alice","parties":["{alice}"],"beginExclusive":{begin}}`, opts: options{authNone: true}, offSpec: true, status: 200, check: wantIDs("c-1", "c-1", "c-3")},
		{name: "an invalid user id", user: userAnyReader, body: `{"userId":"al ice","parties":["{alice}"]}`, status: 400, code: "INVALID_FIELD"},
		{name: "an invalid party", user: userAnyReader, body: `{"userId":"alice","parties":["al/ice"]}`, status: 400, code: "INVALID_ARGUMENT"},
		{name: "a negative offset", user: "alice", body: `{"parties":["{alice}"],"beginExclusive":-1}`, status: 400, code: "NEGATIVE_OFFSET"},
		{name: "after the ledger end", user: "alice", body: `{"parties":["{alice}"],"beginExclusive":100000}`, status: 400, code: "OFFSET_AFTER_LEDGER_END"},
		{name: "undecodable parties", user: "alice", body: `{"parties":"{alice}"}`, offSpec: true, status: 400},
		{name: "undecodable body", user: "alice", body: `[]`, offSpec: true, status: 400},
		{name: "command-completions: every user's", path: getCompletionsPath + now, user: userAnyReader, body: `{"parties":["{alice}","{bob}"],"beginExclusive":{begin}}`, status: 200, check: wantIDs("c-1", "c-1", "c-2", "c-3")},
		{name: "command-completions: any party", path: getCompletionsPath + now, user: userAnyReader, body: `{"beginExclusive":{begin}}`, status: 200, check: wantIDs("c-1", "c-1", "c-2", "c-3")},
		{name: "command-completions: alice's party", path: getCompletionsPath + now, user: "alice", body: `{"parties":["{alice}"],"beginExclusive":{begin},"userId":"bob"}`, status: 200, check: wantIDs("c-1", "c-1", "c-3")},
		{name: "command-completions: any party needs the right", path: getCompletionsPath + now, user: "alice", body: `{"beginExclusive":{begin}}`, status: 403},
		{name: "command-completions: a negative offset", path: getCompletionsPath + now, user: "alice", body: `{"parties":["{alice}"],"beginExclusive":-1}`, status: 400, code: "NEGATIVE_OFFSET"},
	}
	var ran atomic.Int32
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				target := tc.path
				if target == "" {
					target = completionsPath + now
				}
				authz := caseToken(t, tc.noToken, tc.user)
				body := expand(tc.body)
				rec := e.answerCase(t, tc.opts, newRequest(http.MethodPost, target, authz, body), tc.status, tc.code, &ran)
				golden.Check(t, tc.name, entryOf(t, rec))
				checkConformance(t, s, newRequest(http.MethodPost, target, authz, body), rec, tc.offSpec)
				if tc.check != nil {
					tc.check(t, rec)
				}
			})
		}
	})
	golden.Finish(t, int(ran.Load()) == len(cases))
}

// checkErrorInfo checks a rejected completion's ErrorInfo: its reason,
// metadata entries, and that its protobuf encoding holds them.
func checkErrorInfo(t *testing.T, st *ledgerapi.JsStatus, reason string, metadata map[string]string) {
	t.Helper()
	if st == nil || len(st.Details) == 0 || st.Details[0].TypeURL != "type.googleapis.com/google.rpc.ErrorInfo" {
		t.Fatalf("status %+v has no ErrorInfo first", st)
	}
	text := st.Details[0].ValueDecoded
	if !strings.HasPrefix(text, `reason: "`+reason+`"`+"\n") {
		t.Fatalf("ErrorInfo %q, want reason %s", text, reason)
	}
	raw, err := base64.StdEncoding.DecodeString(st.Details[0].Value)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range metadata {
		if entry := "metadata {\n  key: \"" + k + "\"\n  value: \"" + v + "\"\n}\n"; !strings.Contains(text, entry) {
			t.Errorf("the decoded ErrorInfo lacks %s=%s: %q", k, v, text)
		}
		// A map entry is key (field 1) and value (field 2), each with
		// its length.
		entry := append(append([]byte{0x0a, byte(len(k))}, k...), append([]byte{0x12, byte(len(v))}, v...)...)
		if !bytes.Contains(raw, entry) {
			t.Errorf("the encoded ErrorInfo lacks %s=%s", k, v)
		}
	}
	if !bytes.HasPrefix(raw, append([]byte{0x0a, byte(len(reason))}, reason...)) {
		t.Errorf("the encoded ErrorInfo does not start with its reason")
	}
}

// TestCompletionsStream opens the completion stream of alice before her
// commands and follows them: each completion as it is committed, and a
// checkpoint each time the stream catches up, also at the offset of a
// rejection, which no update has.
func TestCompletionsStream(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := mustSpec(t)
	srv := httptest.NewServer(e.handler(options{}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	head, err := e.net.Store().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	begin := head.Offsets[e.seeded.Validator.Participant]
	conn := wsDial(t, ctx, srv, completionsPath, bearer(t, "alice"), nil)
	if err := conn.Write(ctx, websocket.MessageText, []byte(e.expand(`{"parties":["{alice}"],"beginExclusive":`+strconv.FormatInt(int64(begin), 10)+`}`))); err != nil {
		t.Fatal(err)
	}
	next := func() ledgerapi.CompletionStreamResponse {
		t.Helper()
		_, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		validateFrame(t, s, b)
		var r ledgerapi.CompletionStreamResponse
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	alice := e.party("alice")
	cmd := e.tapCommand(t, e.seeded.Validator.Participant, "alice", alice, "stream-1")
	for i, accepted := range []bool{true, false} {
		_, _, err := e.net.SubmitAndWait(ctx, cmd)
		if accepted != (err == nil) {
			t.Fatalf("submission %d: %v", i, err)
		}
		c, cp := next(), next()
		got := c.CompletionResponse.Completion
		if got == nil || got.Value.CommandID != "stream-1" || (got.Value.Status.Code == 0) != accepted {
			t.Fatalf("frame %+v, want the completion of submission %d", c.CompletionResponse, i)
		}
		if cp.CompletionResponse.OffsetCheckpoint == nil || cp.CompletionResponse.OffsetCheckpoint.Value.Offset != got.Value.Offset {
			t.Fatalf("frame %+v, want a checkpoint at %d", cp.CompletionResponse, got.Value.Offset)
		}
	}
	if err := conn.Close(websocket.StatusNormalClosure, ""); err != nil && !errors.Is(err, context.Canceled) {
		t.Logf("close: %v", err)
	}

	// The update stream has a gap at the rejection's offset, and an
	// open-ended list of it still gets a checkpoint there.
	head, err = e.net.Store().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	end := head.Offsets[e.seeded.Validator.Participant]
	rec := httptest.NewRecorder()
	body := e.expand(`{"beginExclusive":` + strconv.FormatInt(int64(end-2), 10) + `,"filter":{"filtersByParty":{"{alice}":{}}}}`)
	req := newRequest(http.MethodPost, "/v2/updates?stream_idle_timeout_ms=0", bearer(t, "alice"), body)
	e.handler(options{}).ServeHTTP(rec, req)
	txs, cps := transactions(decodeList(t, rec))
	if len(txs) != 1 || txs[0].Offset != int64(end-1) || len(cps) != 1 || cps[0].Offset != int64(end) {
		t.Errorf("updates after %d: transactions %d and checkpoints %+v; want the tap at %d and a checkpoint at %d", end-2, len(txs), cps, end-1, end)
	}
	if err := s.Validate(t, newRequest(http.MethodPost, "/v2/updates?stream_idle_timeout_ms=0", bearer(t, "alice"), body), rec); err != nil {
		t.Error(err)
	}
}

// TestCompletionsStreamRefusals checks the streams' refusals: as the
// lists', in an error frame, for both requests.
func TestCompletionsStreamRefusals(t *testing.T) {
	t.Parallel()
	e := shared(t)
	s := mustSpec(t)
	srv := httptest.NewServer(e.handler(options{}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name, path, user, frame string
		binary                  bool
		code                    string
		redacted                int
	}{
		{"no parties", completionsPath, "alice", `{}`, false, "MISSING_FIELD", 0},
		{"another user's", completionsPath, "alice", `{"userId":"bob","parties":["{alice}"]}`, false, "", 7},
		{"any party without the right", getCompletionsPath, "alice", `{}`, false, "", 7},
		{"an undecodable request", getCompletionsPath, "alice", `{"parties":[1]}`, false, "INVALID_ARGUMENT", 0},
		{"a binary frame", completionsPath, "alice", `{"parties":["{alice}"]}`, true, "INVALID_ARGUMENT", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			conn := wsDial(t, ctx, srv, tc.path, bearer(t, tc.user), nil)
			typ := websocket.MessageText
			if tc.binary {
				typ = websocket.MessageBinary
			}
			if err := conn.Write(ctx, typ, []byte(e.expand(tc.frame))); err != nil {
				t.Fatal(err)
			}
			ex := wsReadAll(t, ctx, s, conn)
			if len(ex.Frames) != 1 || ex.Close != int(websocket.StatusNormalClosure) {
				t.Fatalf("frames %d, close %d; want one error frame and 1000", len(ex.Frames), ex.Close)
			}
			je := errorFrame(t, ex.Frames[0])
			switch {
			case tc.redacted != 0:
				if je.GRPCCodeValue == nil || *je.GRPCCodeValue != tc.redacted || je.ErrorCategory != -1 {
					t.Errorf("error frame %+v, want redacted with gRPC code %d", je, tc.redacted)
				}
			case je.Code != tc.code:
				t.Errorf("code %q, want %q (%s)", je.Code, tc.code, je.Cause)
			}
		})
	}
}

// FuzzCompletionsRequest sends arbitrary bodies and query strings to both
// completion lists of a seeded network (authentication off, so that
// every request reaches the decoder, the validation and the reads): no
// panic, no 5xx, and every answer in a documented shape.
func FuzzCompletionsRequest(f *testing.F) {
	e := shared(f)
	for _, s := range []string{
		`{"userId":"alice","parties":["{alice}"],"beginExclusive":0}`,
		`{"userId":"alice","parties":["{alice}","{bob}"],"beginExclusive":"3"}`,
		`{"parties":[],"beginExclusive":1e3}`,
		`{"userId":"al ice","parties":["a/b"],"beginExclusive":-5}`,
		`{"userId":7,"parties":{"x":1}}`,
		`{"beginExclusive":99999999999999999999}`,
		`[]`, `null`, ``, `{`,
	} {
		f.Add(e.expand(s), "", false)
		f.Add(e.expand(s), "limit=2", true)
	}
	h := e.handler(options{authNone: true, max: 5, wait: time.Millisecond})
	f.Fuzz(func(t *testing.T, body, query string, getCompletions bool) {
		q := shortListQuery(t, query)
		path := completionsPath
		if getCompletions {
			path = getCompletionsPath
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, newRequest(http.MethodPost, path+"?"+q.Encode(), "", body))
		if rec.Code >= 500 {
			t.Fatalf("status %d for %q ? %q: %s", rec.Code, body, query, rec.Body)
		}
		switch ct := rec.Header().Get("Content-Type"); {
		case rec.Code == http.StatusOK:
			decodeCompletions(t, rec.Body.Bytes())
		case strings.HasPrefix(ct, "text/plain"):
			if rec.Code != http.StatusBadRequest || !strings.HasPrefix(rec.Body.String(), "Invalid value for: ") {
				t.Fatalf("text/plain %d: %s", rec.Code, rec.Body)
			}
		default:
			je := decodeError(t, rec)
			if je.Code == "" || je.Cause == "" || je.ErrorCategory == 4 {
				t.Fatalf("%d that is not a JsCantonError: %s", rec.Code, rec.Body)
			}
		}
	})
}
