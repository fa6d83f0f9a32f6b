package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// localNetHost returns a random loopback address for a --localnet test:
// LocalNet's ports are fixed, so tests running at once (and a LocalNet
// on 127.0.0.1) are kept apart by the address instead. Where such an
// address cannot be bound (not Linux, say) the test is skipped, except
// under CI=true.
func localNetHost(t *testing.T) string {
	t.Helper()
	host := fmt.Sprintf("127.%d.%d.%d", rand.IntN(254)+1, rand.IntN(256), rand.IntN(254)+1)
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("--localnet tests bind a random loopback address: %v", err)
		}
		t.Skipf("--localnet tests bind a random loopback address (127.x.y.z), which this machine refuses: %v", err)
	}
	ln.Close()
	return host
}

// localNetToken mints a token as LocalNet's scripts do: HS256 with the
// secret "unsafe", its audience, and no exp.
func localNetToken(t *testing.T, user, secret string) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": user, "aud": localNetAudience}).SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestLocalNet starts sandnet with --localnet on a random loopback
// address and calls every LocalNet address as LocalNet's clients do:
// by port and Host header, with LocalNet's tokens.
func TestLocalNet(t *testing.T) {
	t.Parallel()
	host := localNetHost(t)
	p := startSandnet(t, t.TempDir(), "--localnet", "--localnet-host", host)
	defer p.stop(t)

	op := localNetToken(t, localNetOperatorUser, localNetSecret)
	appUser := localNetToken(t, "app-user", localNetSecret)
	var network struct {
		SVs []struct {
			PartyID string `json:"party_id"`
		} `json:"svs"`
	}
	if code := call(t, "GET", p.url("/api/sandnet/v0/network"), localNetToken(t, OperatorUser, localNetSecret), nil, &network); code != 200 {
		t.Fatalf("network: %d", code)
	}
	if len(network.SVs) != 1 {
		t.Fatalf("--localnet seeds one SV, not %d", len(network.SVs))
	}
	sv1 := network.SVs[0].PartyID
	var vu struct {
		PartyID string `json:"party_id"`
	}
	if code := call(t, "GET", p.url("/api/validator/v0/validator-user"), op, nil, &vu); code != 200 {
		t.Fatalf("validator-user: %d", code)
	}
	validatorParty := vu.PartyID
	if !strings.HasPrefix(validatorParty, "app_user_localnet-localparty-1::") {
		t.Fatalf("the validator party is %s, not LocalNet's app_user_<hint>", validatorParty)
	}
	if code := call(t, "GET", p.url("/validators/app-provider/api/validator/v0/validator-user"), op, nil, &vu); code != 200 {
		t.Fatalf("app-provider's validator-user: %d", code)
	}
	providerParty := vu.PartyID
	if !strings.HasPrefix(providerParty, "app_provider_localnet-localparty-1::") {
		t.Fatalf("app-provider's validator party is %s, not LocalNet's app_provider_<hint>", providerParty)
	}
	svUser := localNetToken(t, "sv", localNetSecret)
	provider := localNetToken(t, "app-provider", localNetSecret)

	type req struct {
		port       int
		host       string // the Host header; "" for the address itself
		method     string
		path       string
		token      string
		origin     string
		wantStatus int
		// want is a substring of the body; wantJSON a JSON path and value.
		want     string
		wantCORS bool
	}
	get := func(port int, host, path, token string, status int, want string) req {
		return req{port: port, host: host, method: "GET", path: path, token: token, wantStatus: status, want: want}
	}
	notFound := `"The requested resource could not be found."`
	for _, tc := range []req{
		// app-user's JSON Ledger API: the validator's participant
		get(2975, "", "/v2/authenticated-user", op, 200, `"id":"ledger-api-user","primaryParty":"`+validatorParty+`"`),
		get(2975, "", "/v2/version", op, 200, `"version"`),
		get(2975, "", "/docs/openapi", "", 200, "openapi"),
		get(2975, "", "/livez", "", 200, "ok"),
		get(2975, "", "/readyz", "", 200, "ok"),
		get(2975, "", "/v2/authenticated-user", localNetToken(t, localNetOperatorUser, "not-unsafe"), 401, ""),
		get(2975, "", "/api/validator/v0/validator-user", op, 404, ""),
		get(2975, "", "/api/sandnet/v0/network", op, 404, ""),
		get(2975, "", "/", "", 404, ""),
		// app-user's validator app
		get(2903, "", "/api/validator/v0/validator-user", op, 200, validatorParty),
		get(2903, "", "/api/validator/readyz", "", 200, "ok"),
		get(2903, "", "/api/validator/livez", "", 200, "ok"),
		get(2903, "", "/api/validator/v0/wallet/user-status", appUser, 200, `"party_id":"`+validatorParty+`","user_onboarded":true,"user_wallet_installed":true`),
		get(2903, "", "/v2/version", op, 404, ""),
		// app-user's nginx: the validator on wallet, ans and any other host
		get(2000, "", "/api/validator/v0/validator-user", op, 200, validatorParty),
		get(2000, "localhost", "/api/validator/v0/validator-user", op, 200, validatorParty),
		get(2000, "wallet.localhost", "/api/validator/v0/validator-user", op, 200, validatorParty),
		get(2000, "ans.localhost:2000", "/api/validator/v0/scan-proxy/dso-party-id", op, 200, "DSO::"),
		get(2000, "wallet.localhost", "/api/validator/readyz", "", 200, "ok"),
		get(2000, "localhost", "/", "", 404, notFound),
		get(2000, "localhost", "/v2/version", op, 404, notFound),
		get(2000, "localhost", "/api/scan/v0/dso-party-id", "", 404, notFound),
		// … and the ledger API on json-ledger-api and canton, with CORS
		get(2000, "json-ledger-api.localhost", "/v2/authenticated-user", op, 200, validatorParty),
		{port: 2000, host: "canton.localhost", method: "GET", path: "/v2/version", token: op, origin: "http://localhost:5173", wantStatus: 200, wantCORS: true},
		{port: 2000, host: "json-ledger-api.localhost", method: "OPTIONS", path: "/v2/commands/submit-and-wait", origin: "http://localhost:5173", wantStatus: 204, wantCORS: true},
		get(2000, "json-ledger-api.localhost", "/api/validator/v0/validator-user", op, 404, ""),
		// app-provider: the same on 3xxx, for its own validator
		get(3975, "", "/v2/authenticated-user", op, 200, `"id":"ledger-api-user","primaryParty":"`+providerParty+`"`),
		get(3975, "", "/v2/users/app-provider", op, 200, providerParty),
		get(3903, "", "/api/validator/v0/validator-user", op, 200, `{"party_id":"`+providerParty+`","user_name":"ledger-api-user"`),
		get(3903, "", "/api/validator/v0/wallet/user-status", provider, 200, `"party_id":"`+providerParty+`","user_onboarded":true,"user_wallet_installed":true`),
		get(3903, "", "/api/validator/readyz", "", 200, "ok"),
		get(3000, "", "/api/validator/v0/validator-user", op, 200, providerParty),
		get(3000, "wallet.localhost", "/api/validator/v0/wallet/balance", provider, 200, "effective_unlocked_qty"),
		get(3000, "json-ledger-api.localhost", "/v2/authenticated-user", op, 200, providerParty),
		get(3000, "localhost", "/", "", 404, notFound),
		// the SV: its validator app, with wallet user sv, on 4903 and
		// wallet.localhost:4000
		get(4903, "", "/api/validator/v0/validator-user", op, 200, `{"party_id":"`+sv1+`","user_name":"ledger-api-user"`),
		get(4903, "", "/api/validator/readyz", "", 200, "ok"),
		get(4000, "wallet.localhost", "/api/validator/v0/wallet/user-status", svUser, 200, `"party_id":"`+sv1+`","user_onboarded":true,"user_wallet_installed":true`),
		get(4000, "wallet.localhost", "/api/validator/readyz", "", 200, "ok"),
		// the SV: its participant's ledger API
		get(4975, "", "/v2/authenticated-user", op, 200, `"id":"ledger-api-user","primaryParty":"`+sv1+`"`),
		get(4975, "", "/docs/asyncapi", "", 200, "asyncapi"),
		// the SV's nginx: Scan and registry on scan.localhost
		get(4000, "scan.localhost", "/api/scan/v0/dso-party-id", "", 200, "DSO::"),
		get(4000, "scan.localhost:4000", "/registry/metadata/v1/info", "", 200, `"adminId":"DSO::`),
		get(4000, "scan.localhost", "/api/scan/readyz", "", 200, "ok"),
		get(4000, "scan.localhost", "/api/scan/livez", "", 200, "ok"),
		get(4000, "scan.localhost", "/api/validator/v0/validator-user", op, 404, notFound),
		// no SV app: its readiness only
		get(4000, "sv.localhost", "/api/sv/readyz", "", 200, "ok"),
		get(4000, "sv.localhost", "/api/sv/v0/dso", op, 404, notFound),
		// SV 1's ledger API on canton.localhost: /v2 and /docs/openapi
		get(4000, "canton.localhost", "/v2/authenticated-user", op, 200, sv1),
		get(4000, "canton.localhost", "/docs/openapi", "", 200, "openapi"),
		get(4000, "canton.localhost", "/docs/asyncapi", "", 404, ""),
		{port: 4000, host: "canton.localhost", method: "OPTIONS", path: "/v2/version", origin: "http://localhost:5173", wantStatus: 204, wantCORS: true},
		// nginx's default server there serves nothing sandnet has
		get(4000, "", "/", "", 404, notFound),
		get(4000, "localhost", "/api/scan/v0/dso-party-id", "", 404, notFound),
	} {
		name := fmt.Sprintf("%s %d %s %s", tc.method, tc.port, tc.host, tc.path)
		t.Run(name, func(t *testing.T) {
			r, err := http.NewRequest(tc.method, fmt.Sprintf("http://%s%s", net.JoinHostPort(host, fmt.Sprint(tc.port)), tc.path), nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.host != "" {
				r.Host = tc.host
			}
			if tc.token != "" {
				r.Header.Set("Authorization", "Bearer "+tc.token)
			}
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
				if tc.method == "OPTIONS" {
					r.Header.Set("Access-Control-Request-Method", "POST")
				}
			}
			resp, err := http.DefaultClient.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus || !strings.Contains(string(body), tc.want) {
				t.Errorf("%d %.400s\nwant %d with %s", resp.StatusCode, body, tc.wantStatus, tc.want)
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); tc.wantCORS && got != "*" {
				t.Errorf("Access-Control-Allow-Origin %q, want *", got)
			}
			if resp.StatusCode == 404 && tc.want == notFound && !json.Valid(body) {
				t.Errorf("404 body is not JSON: %s", body)
			}
		})
	}

	// The main listener still serves everything.
	if code := call(t, "GET", p.url("/v2/version"), op, nil, nil); code != 200 {
		t.Errorf("main listener /v2/version: %d", code)
	}
}

// TestLocalNetFlagsWin checks that flags given with --localnet win over
// its defaults: the party hint, the secret, the number of SVs.
func TestLocalNetFlagsWin(t *testing.T) {
	t.Parallel()
	host := localNetHost(t)
	const secret = "a-secret-of-our-own-not-localnets"
	dir := t.TempDir()
	args := []string{"--localnet", "--localnet-host", host, "--localnet-party-hint", "acme-1", "--auth-secret", secret, "--svs", "2"}
	p := startSandnet(t, dir, args...)
	at := func(port int, path string) string {
		return fmt.Sprintf("http://%s%s", net.JoinHostPort(host, fmt.Sprint(port)), path)
	}
	var vu struct {
		PartyID string `json:"party_id"`
	}
	if code := call(t, "GET", at(2903, "/api/validator/v0/validator-user"), localNetToken(t, localNetOperatorUser, secret), nil, &vu); code != 200 || !strings.HasPrefix(vu.PartyID, "app_user_acme-1::") {
		t.Errorf("validator-user: %d %s, want app_user_acme-1::…", code, vu.PartyID)
	}
	if code := call(t, "GET", at(2975, "/v2/version"), localNetToken(t, localNetOperatorUser, localNetSecret), nil, nil); code != 401 {
		t.Errorf("a token signed with LocalNet's secret, when --auth-secret names another: %d, want 401", code)
	}
	var network struct {
		SVs []json.RawMessage `json:"svs"`
	}
	if code := call(t, "GET", p.url("/api/sandnet/v0/network"), localNetToken(t, OperatorUser, secret), nil, &network); code != 200 || len(network.SVs) != 2 {
		t.Errorf("network: %d, %d SVs, want 2", code, len(network.SVs))
	}
	// A restart serves the same network on the same addresses.
	p.stop(t)
	p = startSandnet(t, dir, args...)
	defer p.stop(t)
	before := vu.PartyID
	if code := call(t, "GET", at(2000, "/api/validator/v0/validator-user"), localNetToken(t, localNetOperatorUser, secret), nil, &vu); code != 200 || vu.PartyID != before {
		t.Errorf("validator-user after a restart: %d %s, want %s", code, vu.PartyID, before)
	}
}

// TestLocalNetPortTaken checks that a LocalNet port another process holds
// fails the start with a message naming it.
func TestLocalNetPortTaken(t *testing.T) {
	t.Parallel()
	host := localNetHost(t)
	taken, err := net.Listen("tcp", net.JoinHostPort(host, "4975"))
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cmd := exec.Command(sandnetBinary(t), "start", "--localnet", "--localnet-host", host, "--listen", "127.0.0.1:0", "--data-dir", t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("started with %s:4975 taken:\n%s", host, out)
	}
	want := "--localnet: listen on " + host + ":4975, LocalNet's sv port for its JSON Ledger API"
	if !strings.Contains(string(out), want) || !strings.Contains(string(out), "--localnet-host") {
		t.Errorf("stderr does not say %q (and how to get past it):\n%s", want, out)
	}
}

// TestLocalNetWalletSDK runs scripts/clients/localnet.sh: the wallet SDK,
// with its own LocalNet configuration and nothing of sandnet's, against
// the test binary started with --localnet (in a network namespace of its
// own, where LocalNet's fixed ports are always free). It needs Node 20 or
// later and npm, as TestClientScripts does, and is skipped without them;
// where the script can neither make namespaces nor find 127.0.0.1's
// LocalNet ports free, it says so and the test is skipped.
func TestLocalNetWalletSDK(t *testing.T) {
	t.Parallel()
	needNode(t, "scripts/clients/localnet.sh", 20)
	needTools(t, "scripts/clients/localnet.sh", "bash", "npm")
	out, err := runScript(t, "scripts/clients/localnet.sh", 5*time.Minute)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 77 {
		t.Skipf("scripts/clients/localnet.sh skipped:\n%s", out)
	}
	if err != nil {
		t.Fatalf("scripts/clients/localnet.sh: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "ok ") || strings.HasPrefix(line, "FAIL ") || strings.Contains(line, " checks: ") || strings.HasPrefix(line, "no network namespace") {
			t.Log(line)
		}
	}
}

// TestLocalNetOnAnotherNetwork checks that --localnet refuses a data
// directory seeded without it, whose validators are not LocalNet's.
func TestLocalNetOnAnotherNetwork(t *testing.T) {
	t.Parallel()
	host := localNetHost(t)
	dir := t.TempDir()
	startSandnet(t, dir, "--svs", "1").stop(t)
	cmd := exec.Command(sandnetBinary(t), "start", "--localnet", "--localnet-host", host, "--listen", "127.0.0.1:0", "--data-dir", dir)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "was seeded without --localnet (it has no validator app-user)") {
		t.Errorf("--localnet on a network seeded without it: %v\n%s", err, out)
	}
}
