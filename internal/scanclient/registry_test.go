package scanclient_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/scanclient"
)

// fakeRegistry is a Scan host that answers registry GETs with status and
// body, and counts them.
func fakeRegistry(t *testing.T, status int, body string, asked *atomic.Int32, seen *atomic.Value) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		seen.Store(r.URL.RequestURI())
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	return s
}

// TestRegistry checks the registry passthrough: the host root beside
// /api/scan (an SV prefix kept), a Scan that does not answer skipped, and
// a Scan's 404 returned as it is, without asking further.
func TestRegistry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		first      int
		firstBody  string
		wantBody   string
		wantKind   fault.Kind
		wantMsg    string
		wantSecond int32
	}{
		{"answered", 200, `{"adminId":"DSO::1220ab"}`, `{"adminId":"DSO::1220ab"}`, 0, "", 0},
		{"not found is final", 404, `{"error":"No instrument with id x found"}`, "", fault.NotFound, "No instrument with id x found", 0},
		{"unavailable tries the next", 503, `{"error":"down"}`, `{"second":true}`, 0, "", 1},
		{"not JSON tries the next", 200, `<html>`, `{"second":true}`, 0, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var asked1, asked2 atomic.Int32
			var seen1, seen2 atomic.Value
			s1 := fakeRegistry(t, tc.first, tc.firstBody, &asked1, &seen1)
			s2 := fakeRegistry(t, 200, `{"second":true}`, &asked2, &seen2)
			c, err := scanclient.New(scanclient.Config{URLs: []string{s1.URL + "/sv/2/api/scan", s2.URL + "/api/scan"}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Registry(context.Background(), "/metadata/v1/instruments", url.Values{"pageSize": {"5"}})
			if tc.wantMsg != "" {
				f, ok := fault.As(err)
				if !ok || f.Kind != tc.wantKind || f.Message != tc.wantMsg {
					t.Errorf("error %v, want %v %q", err, tc.wantKind, tc.wantMsg)
				}
			} else if err != nil || string(got) != tc.wantBody {
				t.Errorf("answer %s, %v; want %s", got, err, tc.wantBody)
			}
			if u, _ := seen1.Load().(string); u != "/sv/2/registry/metadata/v1/instruments?pageSize=5" {
				t.Errorf("first Scan asked %q", u)
			}
			if n := asked2.Load(); n != tc.wantSecond {
				t.Errorf("second Scan asked %d times, want %d", n, tc.wantSecond)
			}
			if u, _ := seen2.Load().(string); tc.wantSecond > 0 && u != "/registry/metadata/v1/instruments?pageSize=5" {
				t.Errorf("second Scan asked %q", u)
			}
		})
	}
}

// TestRegistryPost checks the registry's POST passthrough: the body sent
// as it is to the host root beside /api/scan, the answer returned as it
// came, a Scan's 400 or 404 final, and a body that is not JSON refused
// before any Scan is asked.
func TestRegistryPost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		status    int
		answer    string
		body      string
		wantKind  fault.Kind
		wantMsg   string
		wantAsked int32
	}{
		{"answered", 200, `{"factoryId":"00ab","transferKind":"self"}`, `{"choiceArguments":{"a":1}}`, 0, "", 1},
		{"a bad request is final", 400, `{"error":"Field x"}`, `{"choiceArguments":[]}`, fault.InvalidArgument, "Field x", 1},
		{"not found is final", 404, `{"error":"AmuletTransferInstruction '00' not found."}`, `{}`, fault.NotFound, "AmuletTransferInstruction '00' not found.", 1},
		{"not JSON is refused here", 200, `{}`, `{"choiceArguments":`, fault.InvalidArgument, "Failed to decode: the request body is not JSON", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var asked atomic.Int32
			var seen, body atomic.Value
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked.Add(1)
				seen.Store(r.Method + " " + r.URL.RequestURI())
				b, _ := io.ReadAll(r.Body)
				body.Store(string(b))
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.answer))
			}))
			t.Cleanup(s.Close)
			c, err := scanclient.New(scanclient.Config{URLs: []string{s.URL + "/sv/3/api/scan"}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.RegistryPost(context.Background(), "/transfer-instruction/v1/transfer-factory", json.RawMessage(tc.body))
			if tc.wantMsg != "" {
				f, ok := fault.As(err)
				if !ok || f.Kind != tc.wantKind || f.Message != tc.wantMsg {
					t.Errorf("error %v, want %v %q", err, tc.wantKind, tc.wantMsg)
				}
			} else if err != nil || string(got) != tc.answer {
				t.Errorf("answer %s, %v; want %s", got, err, tc.answer)
			}
			if n := asked.Load(); n != tc.wantAsked {
				t.Fatalf("Scan asked %d times, want %d", n, tc.wantAsked)
			}
			if tc.wantAsked == 0 {
				return
			}
			if u, _ := seen.Load().(string); u != "POST /sv/3/registry/transfer-instruction/v1/transfer-factory" {
				t.Errorf("Scan asked %q", u)
			}
			if b, _ := body.Load().(string); b != tc.body {
				t.Errorf("Scan got body %q, want %q", b, tc.body)
			}
		})
	}
}
