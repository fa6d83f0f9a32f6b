package web_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/fault"
)

func TestAuthenticatorSubject(t *testing.T) {
	t.Parallel()
	hs, err := auth.NewHMAC([]byte("web-test-secret-of-at-least-32-bytes"), "")
	if err != nil {
		t.Fatal(err)
	}
	other, err := auth.NewHMAC([]byte("another-web-test-secret-of-32-bytes!"), "")
	if err != nil {
		t.Fatal(err)
	}
	tokenOf := func(m *auth.HMAC, sub string) string {
		tok, err := m.Mint(sub, time.Hour, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	verified := &web.Authenticator{Verifier: hs}
	disabled := &web.Authenticator{Verifier: auth.Unverified{}, Disabled: true}
	tests := []struct {
		name    string
		a       *web.Authenticator
		header  string
		want    string
		wantErr string // the fault.Unauthenticated message, "" for success
	}{
		{name: "valid token", a: verified, header: "Bearer " + tokenOf(hs, "alice"), want: "alice"},
		{name: "scheme in lower case", a: verified, header: "bearer " + tokenOf(hs, "alice"), want: "alice"},
		{name: "no header", a: verified, wantErr: "Missing or invalid bearer token"},
		{name: "other scheme", a: verified, header: "Basic eDp5", wantErr: "the Authorization header must be 'Bearer <token>'"},
		{name: "bearer without token", a: verified, header: "Bearer", wantErr: "the Authorization header must be 'Bearer <token>'"},
		{name: "garbage token", a: verified, header: "Bearer xyz", wantErr: "Invalid bearer token"},
		{name: "foreign signature", a: verified, header: "Bearer " + tokenOf(other, "alice"), wantErr: "Invalid bearer token"},
		{name: "disabled: no header is anonymous", a: disabled, want: ""},
		{name: "disabled: unsigned subject taken on trust", a: disabled, header: "Bearer " + tokenOf(other, "bob"), want: "bob"},
		{name: "disabled: other scheme still refused", a: disabled, header: "Basic eDp5", wantErr: "the Authorization header must be 'Bearer <token>'"},
		{name: "disabled: garbage token still refused", a: disabled, header: "Bearer xyz", wantErr: "Invalid bearer token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			got, err := tt.a.Subject(req)
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Errorf("Subject = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			f, ok := fault.As(err)
			if !ok || f.Kind != fault.Unauthenticated || f.Message != tt.wantErr {
				t.Errorf("Subject error = %v, want fault.Unauthenticated %q", err, tt.wantErr)
			}
		})
	}
}
