package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// Every API answers a path with repeated slashes as its clean path, with no
// redirect, which websocket clients cannot follow: the wallet SDK opens
// ws://host//v2/updates.
func TestRepeatedSlashes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startSandnet(t, dir)
	alice := mustToken(t, dir, "alice")
	admin := mustToken(t, dir, "participant_admin")
	client := &http.Client{
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	get := func(path, token string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, p.url(path), nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, tc := range []struct {
		clean, doubled, token string
		// stable answers must be the same; others move with time.
		stable bool
	}{
		{"/v2/version", "//v2/version", alice, true},
		{"/sv/1/v2/version", "//sv//1/v2/version", admin, true},
		{"/api/scan/v0/dso-party-id", "//api/scan//v0/dso-party-id", "", true},
		{"/api/validator/v0/scan-proxy/dso-party-id", "//api//validator/v0/scan-proxy/dso-party-id", alice, true},
		{"/api/validator/v0/wallet/balance", "//api/validator/v0/wallet/balance", alice, false},
		{"/api/sandnet/v0/clock", "///api/sandnet/v0/clock", admin, false},
	} {
		code, want := get(tc.clean, tc.token)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", tc.clean, code, want)
		}
		got, body := get(tc.doubled, tc.token)
		if got != http.StatusOK || tc.stable && !bytes.Equal(body, want) {
			t.Errorf("GET %s: %d %.300s, want 200 %.300s", tc.doubled, got, body, want)
		}
	}

	aliceParty := partyOf(t, p, alice)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	h := http.Header{}
	h.Set("Authorization", "Bearer "+alice)
	conn, resp, err := websocket.Dial(ctx, "ws://"+p.addr+"//v2/updates", &websocket.DialOptions{HTTPClient: client, HTTPHeader: h})
	if err != nil {
		t.Fatalf("websocket to //v2/updates: %v", err)
	}
	defer conn.CloseNow()
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake status %d", resp.StatusCode)
	}
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"beginExclusive":0,"endInclusive":1,"filter":{"filtersByParty":{"`+aliceParty+`":{}}}}`)); err != nil {
		t.Fatal(err)
	}
	for {
		_, b, err := conn.Read(ctx)
		if err != nil {
			if s := websocket.CloseStatus(err); s != websocket.StatusNormalClosure {
				t.Fatalf("the stream ended with %v", err)
			}
			return
		}
		if bytes.Contains(b, []byte(`"code"`)) {
			t.Fatalf("an error frame: %s", b)
		}
	}
}
