package ledgerapi_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/ledger"
)

// A running stream is re-authorized: it ends with ACCESS_TOKEN_EXPIRED
// when its token expires, and with STALE_STREAM_AUTHORIZATION when its
// user's rights no longer cover what it reads.

// wsOpen opens an open-ended updates stream for alice's party with authz
// and reads what is committed (the transaction at 15 and its
// checkpoint).
func wsOpen(t *testing.T, ctx context.Context, e *env, srv *httptest.Server, s *apitest.Spec, authz string) *websocket.Conn {
	t.Helper()
	conn := wsDial(t, ctx, srv, "/v2/updates", authz, nil)
	if err := conn.Write(ctx, websocket.MessageText, []byte(e.expand(`{"beginExclusive":14,"filter":{"filtersByParty":{"{alice}":{}}}}`))); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		validateFrame(t, s, b)
		var u struct {
			Code string `json:"code"`
		}
		if err := json.Unmarshal(b, &u); err != nil || u.Code != "" {
			t.Fatalf("want an element, got %s", b)
		}
	}
	return conn
}

// wsEnds reads the rest of the stream and checks that it is one error
// frame of code, then a normal close.
func wsEnds(t *testing.T, ctx context.Context, s *apitest.Spec, conn *websocket.Conn, code string) {
	t.Helper()
	ex := wsReadAll(t, ctx, s, conn)
	if len(ex.Frames) != 1 {
		t.Fatalf("got %d frames, want one error frame: %s", len(ex.Frames), ex.Frames)
	}
	je := errorFrame(t, ex.Frames[0])
	if je.Code != code || je.ErrorCategory != 2 || je.GRPCCodeValue == nil || *je.GRPCCodeValue != 10 {
		t.Errorf("got %s, want %s of category 2 and gRPC code 10", ex.Frames[0], code)
	}
	if je.Cause == "" || je.Context["category"] != "2" || je.RetryInfo == nil || *je.RetryInfo != "1 second" {
		t.Errorf("cause, context or retry info wrong: %s", ex.Frames[0])
	}
	if ex.Close != int(websocket.StatusNormalClosure) {
		t.Errorf("close %d, want 1000", ex.Close)
	}
}

func TestUpdatesStreamTokenExpires(t *testing.T) {
	t.Parallel()
	e := shared(t)
	s := mustSpec(t)
	srv := httptest.NewServer(e.handler(options{}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	// exp has a precision of seconds: the token expires within 2 s.
	start := time.Now()
	conn := wsOpen(t, ctx, e, srv, s, "Bearer "+mint(t, verifier, "alice", 2*time.Second, start))
	wsEnds(t, ctx, s, conn, "ACCESS_TOKEN_EXPIRED")
	if d := time.Since(start); d < time.Second || d > 10*time.Second {
		t.Errorf("the stream ended after %v, want about 2 s", d)
	}
}

func TestUpdatesStreamRightsChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := mustSpec(t)
	srv := httptest.NewServer(e.handler(options{}))
	t.Cleanup(srv.Close)
	v := e.seeded.Validator.Participant
	alice, bob := e.party("alice"), e.party("bob")
	readAlice := ledger.Right{Kind: ledger.CanReadAs, Party: alice}
	readBob := ledger.Right{Kind: ledger.CanReadAs, Party: bob}
	change := func(t *testing.T, user string, fn func(u *ledger.User)) {
		t.Helper()
		if _, err := e.net.UpdateUser(t.Context(), v, user, func(u *ledger.User) error { fn(u); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	without := func(rights []ledger.Right, r ledger.Right) []ledger.Right {
		var out []ledger.Right
		for _, x := range rights {
			if x != r {
				out = append(out, x)
			}
		}
		return out
	}
	for _, c := range []struct {
		name   string
		rights []ledger.Right
		change func(t *testing.T, user string)
	}{
		{"read right revoked", []ledger.Right{readAlice, readBob}, func(t *testing.T, user string) {
			change(t, user, func(u *ledger.User) { u.Rights = without(u.Rights, readAlice) })
		}},
		{"act right replaced by execute", []ledger.Right{{Kind: ledger.CanActAs, Party: alice}}, func(t *testing.T, user string) {
			change(t, user, func(u *ledger.User) { u.Rights = []ledger.Right{{Kind: ledger.CanExecuteAs, Party: alice}} })
		}},
		{"deactivated", []ledger.Right{readAlice}, func(t *testing.T, user string) {
			change(t, user, func(u *ledger.User) { u.Deactivated = true })
		}},
		{"deleted", []ledger.Right{readAlice}, func(t *testing.T, user string) {
			if err := e.net.DeleteUser(t.Context(), v, user); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			user := "streamer-" + c.name
			if err := e.net.PutUser(t.Context(), ledger.User{ID: user, Participant: v, Rights: c.rights}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			conn := wsOpen(t, ctx, e, srv, s, bearer(t, user))
			c.change(t, user)
			start := time.Now()
			wsEnds(t, ctx, s, conn, "STALE_STREAM_AUTHORIZATION")
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the idle stream noticed after %v", d)
			}
		})
	}
}

// A change that leaves the stream's rights whole does not end it; a
// commit after a revocation is not sent, the error is.
func TestUpdatesStreamRightsChangeOnCommit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := mustSpec(t)
	srv := httptest.NewServer(e.handler(options{}))
	t.Cleanup(srv.Close)
	v := e.seeded.Validator.Participant
	alice, bob := e.party("alice"), e.party("bob")
	const user = "streamer"
	if err := e.net.PutUser(t.Context(), ledger.User{ID: user, Participant: v, Rights: []ledger.Right{
		{Kind: ledger.CanReadAs, Party: alice}, {Kind: ledger.CanReadAs, Party: bob},
	}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	conn := wsOpen(t, ctx, e, srv, s, bearer(t, user))
	set := func(rights ...ledger.Right) {
		t.Helper()
		if _, err := e.net.UpdateUser(t.Context(), v, user, func(u *ledger.User) error { u.Rights = rights; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	// Bob's right is not needed: the stream carries on through a commit
	// and a recheck.
	set(ledger.Right{Kind: ledger.CanReadAs, Party: alice})
	e.tap(t, v, "alice", alice, "reauth-tap-a")
	for range 2 {
		_, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if je := (struct{ Code string }{}); json.Unmarshal(b, &je) == nil && je.Code != "" {
			t.Fatalf("the stream ended: %s", b)
		}
	}
	time.Sleep(1500 * time.Millisecond)
	// Alice's right goes, then alice commits: the error comes instead of
	// her transaction.
	set(ledger.Right{Kind: ledger.CanReadAs, Party: bob})
	e.tap(t, v, "alice", alice, "reauth-tap-b")
	wsEnds(t, ctx, s, conn, "STALE_STREAM_AUTHORIZATION")
}
