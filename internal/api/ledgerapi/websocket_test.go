package ledgerapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/getkin/kin-openapi/openapi3"
	yaml "github.com/oasdiff/yaml3"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/auth"
)

// The websocket twins of the lists: one request frame, then the
// elements, or an error frame, then a normal close.

// wsExchange is what a client saw on a stream.
type wsExchange struct {
	Subprotocol string            `json:"subprotocol"`
	Frames      []json.RawMessage `json:"frames"`
	Close       int               `json:"close"`
}

// wsHandshake starts a websocket handshake on srv, with the test's trace, the
// Authorization header authz (none if "") and the subprotocols; client, if
// not nil, is the HTTP client of the handshake.
func wsHandshake(ctx context.Context, srv *httptest.Server, client *http.Client, path, authz string, protocols []string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	h.Set("traceparent", traceParent)
	if authz != "" {
		h.Set("Authorization", authz)
	}
	return websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+path, &websocket.DialOptions{HTTPClient: client, HTTPHeader: h, Subprotocols: protocols})
}

// wsDial opens a stream on srv.
func wsDial(t *testing.T, ctx context.Context, srv *httptest.Server, path, authz string, protocols []string) *websocket.Conn {
	t.Helper()
	conn, resp, err := wsHandshake(ctx, srv, nil, path, authz, protocols)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake status %d", resp.StatusCode)
	}
	t.Cleanup(func() { conn.CloseNow() })
	return conn
}

// wsRefused opens a stream on srv that the server must refuse with status
// before upgrading, with a redacted JsCantonError naming the request's
// trace, and returns the refusal.
func wsRefused(t *testing.T, ctx context.Context, srv *httptest.Server, path, authz string, protocols []string, status int) apitest.Entry {
	t.Helper()
	conn, resp, err := wsHandshake(ctx, srv, nil, path, authz, protocols)
	if err == nil {
		conn.CloseNow()
		t.Fatalf("the handshake was upgraded")
	}
	if resp == nil || resp.StatusCode != status {
		t.Fatalf("handshake: %v, want status %d", err, status)
	}
	if p := resp.Header.Get("Sec-WebSocket-Protocol"); p != "" {
		t.Errorf("a refused handshake answers subprotocol %q", p)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	je := errorFrame(t, b)
	wantGRPC := 16
	if status == http.StatusForbidden {
		wantGRPC = 7
	}
	if je.ErrorCategory != -1 || je.GRPCCodeValue == nil || *je.GRPCCodeValue != wantGRPC || !strings.Contains(je.Code, traceID) {
		t.Errorf("refusal %+v, want redacted with gRPC code %d", je, wantGRPC)
	}
	return apitest.Entry{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: apitest.Compact(t, b)}
}

// wsNext reads a stream's next frame, an element checked against the
// document.
func wsNext(t *testing.T, ctx context.Context, s *apitest.Spec, conn *websocket.Conn) ledgerapi.JsGetUpdatesResponse {
	t.Helper()
	_, b, err := conn.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	validateFrame(t, s, b)
	var u ledgerapi.JsGetUpdatesResponse
	if err := json.Unmarshal(b, &u); err != nil {
		t.Fatal(err)
	}
	return u
}

// wsReadAll reads frames until the server closes the stream, checking
// each against the document.
func wsReadAll(t *testing.T, ctx context.Context, s *apitest.Spec, conn *websocket.Conn) wsExchange {
	t.Helper()
	ex := wsExchange{Subprotocol: conn.Subprotocol(), Frames: []json.RawMessage{}}
	for {
		typ, b, err := conn.Read(ctx)
		if err != nil {
			ex.Close = int(websocket.CloseStatus(err))
			if ex.Close == -1 {
				t.Fatalf("the stream ended without a close frame: %v", err)
			}
			return ex
		}
		if typ != websocket.MessageText {
			t.Fatalf("a binary frame")
		}
		validateFrame(t, s, b)
		ex.Frames = append(ex.Frames, apitest.Compact(t, b))
	}
}

// validateFrame checks that a frame is an element of one of the streams
// (JsGetUpdatesResponse, JsGetActiveContractsResponse,
// CompletionStreamResponse) or a JsCantonError of the OpenAPI document, as
// the AsyncAPI document says.
func validateFrame(t testing.TB, s *apitest.Spec, b []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("frame is not JSON: %v: %s", err, b)
	}
	name := "JsGetUpdatesResponse"
	if m, ok := v.(map[string]any); ok && m["code"] != nil {
		name = "JsCantonError"
	} else if ok && m["contractEntry"] != nil {
		name = "JsGetActiveContractsResponse"
	} else if ok && m["completionResponse"] != nil {
		name = "CompletionStreamResponse"
	}
	if err := s.Doc.Components.Schemas[name].Value.VisitJSON(v, openapi3.MultiErrors()); err != nil {
		t.Errorf("frame is not a %s: %v\n%.2000s", name, err, b)
	}
}

// errorFrame decodes a frame as a JsCantonError.
func errorFrame(t testing.TB, b []byte) ledgerapi.JsCantonError {
	t.Helper()
	var je ledgerapi.JsCantonError
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&je); err != nil || je.Code == "" {
		t.Fatalf("not a JsCantonError: %v: %s", err, b)
	}
	return je
}

func TestUpdatesStream(t *testing.T) {
	t.Parallel()
	e := shared(t)
	s := mustSpec(t)
	srv := httptest.NewServer(e.handler(options{max: 3}))
	t.Cleanup(srv.Close)
	golden := apitest.OpenGolden(t, "websocket", *update)
	token := func(user string) string { return mint(t, verifier, user, time.Hour, time.Now()) }
	type wsCase struct {
		name      string
		path      string // /v2/updates unless set
		authz     string // the Authorization header, "" for none
		protocols []string
		// frames are the frames the client sends; the first is the request.
		frames []string
		binary bool
		// same is a body whose POST list, read as alice, the stream must
		// send frame by frame; such cases have no golden entry.
		same string
		// code is the JsCantonError the stream must end with.
		code     string
		redacted int
		// refused is the status of a handshake refused before the
		// upgrade, with a redacted JsCantonError.
		refused int
	}
	cases := []wsCase{
		{name: "bearer header", authz: bearer(t, "alice"), frames: []string{aliceWildcard}, same: aliceWildcard},
		{name: "token subprotocol", protocols: []string{auth.WebSocketTokenPrefix + token("alice"), auth.WebSocketAuthProtocol}, frames: []string{aliceWildcard}, same: aliceWildcard},
		{name: "the bearer header wins over the subprotocol", authz: bearer(t, "alice"), protocols: []string{auth.WebSocketTokenPrefix + token("mallory"), auth.WebSocketAuthProtocol}, frames: []string{aliceWildcard}, same: aliceWildcard},
		{name: "verbose false beside updateFormat", authz: bearer(t, "alice"), frames: []string{`{"beginExclusive":0,"endInclusive":15,"verbose":false,"updateFormat":{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersByParty":{"{alice}":{}}}}}}`}, same: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", "{}"))},
		{name: "flats is the same stream", path: "/v2/updates/flats", authz: bearer(t, "alice"), frames: []string{aliceWildcard}, same: aliceWildcard},
		{name: "later frames are ignored", authz: bearer(t, "alice"), frames: []string{aliceWildcard, `{"beginExclusive":-1}`, `garbage`}, same: aliceWildcard},
		{name: "no node limit", authz: bearer(t, "alice"), frames: []string{`{"beginExclusive":0,"endInclusive":15,"descendingOrder":true,"filter":{"filtersByParty":{"{alice}":{}}}}`}},
		{name: "an SV participant", path: "/sv/1/v2/updates", authz: bearer(t, admin), frames: []string{txFormat("0", "4", "ACS_DELTA", byParty("{dso}", templateFilter("#splice-dso-governance:Splice.DsoRules:DsoRules", false)))}},
		{name: "no token", frames: []string{aliceWildcard}, redacted: 16},
		// Credentials in the handshake are checked before the upgrade.
		{name: "a bad subprotocol token", protocols: []string{auth.WebSocketTokenPrefix + "not-a-jwt", auth.WebSocketAuthProtocol}, refused: 401},
		{name: "a bad bearer token", authz: "Bearer not-a-jwt", refused: 401},
		{name: "basic credentials", authz: "Basic YWxpY2U6eA==", refused: 401},
		{name: "an expired token", authz: "Bearer " + mint(t, verifier, "alice", time.Minute, time.Now().Add(-time.Hour)), refused: 401},
		{name: "an unknown user", authz: bearer(t, "mallory"), refused: 403},
		{name: "an unknown user in the subprotocol", protocols: []string{auth.WebSocketTokenPrefix + token("mallory"), auth.WebSocketAuthProtocol}, refused: 403},
		{name: "active contracts: a bad token", path: "/v2/state/active-contracts", authz: "Bearer not-a-jwt", refused: 401},
		{name: "no right to read", authz: bearer(t, "bob"), frames: []string{aliceWildcard}, redacted: 7},
		{name: "OFFSET_AFTER_LEDGER_END", authz: bearer(t, "alice"), frames: []string{`{"beginExclusive":0,"endInclusive":16,"filter":{"filtersByParty":{"{alice}":{}}}}`}, code: "OFFSET_AFTER_LEDGER_END"},
		{name: "PACKAGE_NAMES_NOT_FOUND", authz: bearer(t, "alice"), frames: []string{txFormat("0", "15", "ACS_DELTA", byParty("{alice}", templateFilter("#nope:A:B", false)))}, code: "PACKAGE_NAMES_NOT_FOUND"},
		{name: "an undecodable request", authz: bearer(t, "alice"), frames: []string{`{"beginExclusive":`}, code: "INVALID_ARGUMENT"},
		{name: "a request without beginExclusive", authz: bearer(t, "alice"), frames: []string{`{"filter":{"filtersByParty":{"{alice}":{}}}}`}, code: "INVALID_ARGUMENT"},
		{name: "a binary request frame", authz: bearer(t, "alice"), frames: []string{aliceWildcard}, binary: true, code: "INVALID_ARGUMENT"},
		{name: "active contracts: beyond the node limit", path: "/v2/state/active-contracts", authz: bearer(t, "alice"), frames: []string{aliceACS}, same: aliceACS},
		{name: "active contracts: no right to read", path: "/v2/state/active-contracts", authz: bearer(t, "bob"), frames: []string{aliceACS}, redacted: 7},
		{name: "active contracts: NEGATIVE_OFFSET", path: "/v2/state/active-contracts", authz: bearer(t, "alice"), frames: []string{acsBody("-1", byParty("{alice}", "{}"))}, code: "NEGATIVE_OFFSET"},
		{name: "active contracts: a binary request frame", path: "/v2/state/active-contracts", authz: bearer(t, "alice"), frames: []string{aliceACS}, binary: true, code: "INVALID_ARGUMENT"},
	}
	var (
		mu  sync.Mutex
		ran int
	)
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				defer cancel()
				path := tc.path
				if path == "" {
					path = "/v2/updates"
				}
				if tc.refused != 0 {
					entry := wsRefused(t, ctx, srv, path, tc.authz, tc.protocols, tc.refused)
					mu.Lock()
					ran++
					mu.Unlock()
					golden.Check(t, tc.name, entry)
					return
				}
				conn := wsDial(t, ctx, srv, path, tc.authz, tc.protocols)
				for i, f := range tc.frames {
					typ := websocket.MessageText
					if tc.binary && i == 0 {
						typ = websocket.MessageBinary
					}
					if err := conn.Write(ctx, typ, []byte(e.expand(f))); err != nil {
						t.Fatal(err)
					}
				}
				ex := wsReadAll(t, ctx, s, conn)
				mu.Lock()
				ran++
				mu.Unlock()
				wantProto := ""
				if len(tc.protocols) > 0 {
					wantProto = auth.WebSocketAuthProtocol
				}
				if ex.Subprotocol != wantProto || ex.Close != int(websocket.StatusNormalClosure) {
					t.Errorf("subprotocol %q and close %d, want %q and 1000", ex.Subprotocol, ex.Close, wantProto)
				}
				if tc.code != "" || tc.redacted != 0 {
					if len(ex.Frames) != 1 {
						t.Fatalf("%d frames, want one error frame", len(ex.Frames))
					}
					je := errorFrame(t, ex.Frames[0])
					switch {
					case tc.redacted != 0:
						if je.ErrorCategory != -1 || je.GRPCCodeValue == nil || *je.GRPCCodeValue != tc.redacted || !strings.Contains(je.Code, traceID) {
							t.Errorf("error frame %+v, want redacted with gRPC code %d", je, tc.redacted)
						}
					case je.Code != tc.code:
						t.Errorf("code %q, want %q (%s)", je.Code, tc.code, je.Cause)
					}
				}
				if tc.same != "" {
					rec := httptest.NewRecorder()
					// The list of the same path, without the node limit.
					listPath := "/v2/updates"
					if strings.HasSuffix(path, "/v2/state/active-contracts") {
						listPath = "/v2/state/active-contracts"
					}
					e.handler(options{}).ServeHTTP(rec, newRequest(http.MethodPost, listPath, bearer(t, "alice"), e.expand(tc.same)))
					var want []json.RawMessage
					if err := json.Unmarshal(rec.Body.Bytes(), &want); err != nil || len(want) == 0 {
						t.Fatalf("the list: %v: %.500s", err, rec.Body)
					}
					if !slices.EqualFunc(ex.Frames, want, func(a, b json.RawMessage) bool { return bytes.Equal(a, apitest.Compact(t, b)) }) {
						t.Errorf("the stream's %d frames differ from the list's %d elements", len(ex.Frames), len(want))
					}
					return
				}
				b, err := json.Marshal(ex)
				if err != nil {
					t.Fatal(err)
				}
				golden.Check(t, tc.name, apitest.Entry{Status: http.StatusSwitchingProtocols, ContentType: "application/json", Body: b})
			})
		}
	})
	golden.Finish(t, ran == len(cases))
}

// An open-ended stream follows the ledger: each commit the reader sees
// comes as a transaction and a checkpoint, until the client leaves.
func TestUpdatesStreamFollowsCommits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := mustSpec(t)
	srv := httptest.NewServer(e.handler(options{wait: time.Millisecond}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	conn := wsDial(t, ctx, srv, "/v2/updates", bearer(t, "alice"), nil)
	if err := conn.Write(ctx, websocket.MessageText, []byte(e.expand(`{"beginExclusive":14,"filter":{"filtersByParty":{"{alice}":{}}}}`))); err != nil {
		t.Fatal(err)
	}
	next := func() ledgerapi.JsGetUpdatesResponse {
		t.Helper()
		return wsNext(t, ctx, s, conn)
	}
	expect := func(offset int64, updateID string) {
		t.Helper()
		tx, cp := next(), next()
		if tx.Update.Transaction == nil || tx.Update.Transaction.Value.Offset != offset ||
			(updateID != "" && tx.Update.Transaction.Value.UpdateID != updateID) {
			t.Fatalf("got %+v, want the transaction at %d", tx.Update, offset)
		}
		if cp.Update.OffsetCheckpoint == nil || cp.Update.OffsetCheckpoint.Value.Offset != offset {
			t.Fatalf("got %+v, want a checkpoint at %d", cp.Update, offset)
		}
	}
	// What is committed, then a checkpoint at the ledger end; the list's
	// idle timeout of 1 ms does not apply to a stream.
	expect(15, "")
	time.Sleep(20 * time.Millisecond)
	for i, offset := range []int64{16, 17} {
		tx := e.tap(t, e.seeded.Validator.Participant, "alice", e.party("alice"), "stream-tap-"+string(rune('a'+i)))
		expect(offset, tx.UpdateID)
	}
	if err := conn.Close(websocket.StatusNormalClosure, ""); err != nil && !errors.Is(err, context.Canceled) {
		t.Logf("close: %v", err)
	}
}

// A plain GET is not a stream.
func TestUpdatesStreamNeedsAHandshake(t *testing.T) {
	t.Parallel()
	e := shared(t)
	rec := httptest.NewRecorder()
	e.handler(options{}).ServeHTTP(rec, newRequest(http.MethodGet, "/v2/updates", bearer(t, "alice"), ""))
	if rec.Code != http.StatusUpgradeRequired {
		t.Errorf("status %d, want 426", rec.Code)
	}
}

// The AsyncAPI document describes exactly the streams served, its
// messages use schemas of the OpenAPI document, and it is served as it is
// in the repository, without a token.
func TestAsyncAPIDocument(t *testing.T) {
	t.Parallel()
	s := mustSpec(t)
	onDisk, err := os.ReadFile("asyncapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		AsyncAPI string `yaml:"asyncapi"`
		Channels map[string]struct {
			Bindings struct {
				WS struct {
					Method string `yaml:"method"`
				} `yaml:"ws"`
			} `yaml:"bindings"`
		} `yaml:"channels"`
	}
	if err := yaml.Unmarshal(onDisk, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.AsyncAPI != "2.6.0" {
		t.Errorf("asyncapi = %q", doc.AsyncAPI)
	}
	var channels []string
	for name, c := range doc.Channels {
		channels = append(channels, c.Bindings.WS.Method+" "+name)
	}
	slices.Sort(channels)
	if want := []string{"GET /v2/commands/command-completions", "GET /v2/commands/completions", "GET /v2/state/active-contracts", "GET /v2/updates", "GET /v2/updates/flats"}; !slices.Equal(channels, want) {
		t.Errorf("channels %q, want %q", channels, want)
	}
	refs := 0
	for _, line := range strings.Split(string(onDisk), "\n") {
		_, ref, ok := strings.Cut(line, "$ref: 'openapi#/components/schemas/")
		if !ok {
			continue
		}
		refs++
		name := strings.TrimSuffix(ref, "'")
		if s.Doc.Components.Schemas[name] == nil {
			t.Errorf("the OpenAPI document has no schema %s", name)
		}
	}
	if refs != 10 {
		t.Errorf("%d references to the OpenAPI document's schemas, want 10", refs)
	}

	e := shared(t)
	for _, path := range []string{"/docs/asyncapi", "/sv/1/docs/asyncapi"} {
		rec := httptest.NewRecorder()
		e.handler(options{}).ServeHTTP(rec, newRequest(http.MethodGet, path, "", ""))
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/yaml" || !bytes.Equal(rec.Body.Bytes(), onDisk) {
			t.Errorf("GET %s: %d %q, or the body differs from asyncapi.yaml", path, rec.Code, rec.Header().Get("Content-Type"))
		}
		if path == "/docs/asyncapi" {
			if err := s.Validate(t, newRequest(http.MethodGet, path, "", ""), rec); err != nil {
				t.Errorf("request does not conform: %v", err)
			}
		}
	}
}
