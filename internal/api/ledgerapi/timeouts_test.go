package ledgerapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/sandnet/sandnet/internal/api/web"
)

// The API behind the server sandnet builds (web.NewServer), with timeouts
// short enough for tests: what the server's bounds do to streams.

// shortTimeouts are the server's timeouts in these tests.
var shortTimeouts = web.Timeouts{ReadHeader: 100 * time.Millisecond, Body: 100 * time.Millisecond, Idle: 100 * time.Millisecond}

// boundedServer serves h as sandnet serves its APIs, with shortTimeouts.
func boundedServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = web.NewServer(h, shortTimeouts, discard)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// A stream whose client never sends its request frame is closed once the
// wait for it is over, with a token or without one.
func TestStreamRequestFrameIsBounded(t *testing.T) {
	t.Parallel()
	e := shared(t)
	const frame = 200 * time.Millisecond
	srv := boundedServer(t, e.handler(options{frame: frame}))
	for _, tc := range []struct{ name, path, authz string }{
		{"updates with a token", "/v2/updates", bearer(t, "alice")},
		{"updates without a token", "/v2/updates/flats", ""},
		{"active contracts", "/v2/state/active-contracts", bearer(t, "alice")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			// The server's wait begins after the handshake, so after
			// start: however late the dial returns on a loaded machine,
			// the stream cannot close within frame of start.
			start := time.Now()
			conn := wsDial(t, ctx, srv, tc.path, tc.authz, nil)
			_, b, err := conn.Read(ctx)
			switch {
			case err == nil:
				t.Fatalf("a frame before any request: %s", b)
			case ctx.Err() != nil:
				t.Fatalf("the server kept the stream open for %s without a request", time.Since(start))
			case time.Since(start) < frame:
				t.Errorf("closed after %s, before the %s wait", time.Since(start), frame)
			}
		})
	}
}

// Streams and open-ended lists run past every timeout of the server, and a
// websocket client reaches its stream through the path with a double
// slash that the wallet SDK opens.
func TestStreamsOutliveTheServerTimeouts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := mustSpec(t)
	srv := boundedServer(t, e.handler(options{}))
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	pause := 4 * (shortTimeouts.ReadHeader + shortTimeouts.Body + shortTimeouts.Idle)

	// Websocket clients follow no redirect: neither do these.
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	conn, resp, err := wsHandshake(ctx, srv, client, "//v2/updates", bearer(t, "alice"), nil)
	if err != nil {
		t.Fatalf("dial //v2/updates: %v", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake status %d", resp.StatusCode)
	}
	t.Cleanup(func() { conn.CloseNow() })
	if err := conn.Write(ctx, websocket.MessageText, []byte(e.expand(`{"beginExclusive":14,"filter":{"filtersByParty":{"{alice}":{}}}}`))); err != nil {
		t.Fatal(err)
	}
	// offsetOf reads a frame: a transaction's offset and update id, or a
	// checkpoint's offset negated.
	offsetOf := func() (int64, string) {
		t.Helper()
		u := wsNext(t, ctx, s, conn)
		switch {
		case u.Update.Transaction != nil:
			return u.Update.Transaction.Value.Offset, u.Update.Transaction.Value.UpdateID
		case u.Update.OffsetCheckpoint != nil:
			return -u.Update.OffsetCheckpoint.Value.Offset, ""
		}
		t.Fatalf("unexpected frame %+v", u.Update)
		return 0, ""
	}
	if tx, _ := offsetOf(); tx != 15 {
		t.Fatalf("first frame at %d, want the transaction at 15", tx)
	}
	if cp, _ := offsetOf(); cp != -15 {
		t.Fatalf("second frame at %d, want the checkpoint at 15", cp)
	}

	// An open-ended list that waits longer than every timeout, on a
	// connection that then goes on.
	list := func(path string) (int, []json.RawMessage, time.Duration) {
		t.Helper()
		start := time.Now()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+path,
			strings.NewReader(e.expand(`{"beginExclusive":14,"filter":{"filtersByParty":{"{alice}":{}}}}`)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", bearer(t, "alice"))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("the list broke off after %s: %v", time.Since(start), err)
		}
		var elems []json.RawMessage
		if resp.StatusCode == http.StatusOK {
			if err := json.Unmarshal(b, &elems); err != nil {
				t.Fatalf("the list is not whole: %v: %.300s", err, b)
			}
		}
		return resp.StatusCode, elems, time.Since(start)
	}
	wait := pause.Milliseconds()
	for range 2 {
		code, elems, took := list("//v2/updates?stream_idle_timeout_ms=" + strconv.FormatInt(wait, 10))
		if code != http.StatusOK || len(elems) == 0 || took < pause {
			t.Fatalf("open-ended list: %d with %d elements after %s, want 200 after at least %s", code, len(elems), took, pause)
		}
	}

	// The stream still follows the ledger after all that time.
	time.Sleep(pause)
	tx := e.tap(t, e.seeded.Validator.Participant, "alice", e.party("alice"), "outlive-tap")
	if got, id := offsetOf(); got != 16 || id != tx.UpdateID {
		t.Fatalf("frame at %d (%s) after the pause, want the tap %s at 16", got, id, tx.UpdateID)
	}
	if cp, _ := offsetOf(); cp != -16 {
		t.Fatalf("frame at %d after the tap, want its checkpoint", cp)
	}
}
