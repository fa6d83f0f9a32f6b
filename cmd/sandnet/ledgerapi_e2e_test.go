package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
)

// The ledger API as a user reaches it: the validator participant's at the
// root, SV k's under /sv/k, with the list limit of the command line.
func TestLedgerAPI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startSandnet(t, dir, "--http-list-max-elements-limit", "3")
	alice := mustToken(t, dir, "alice")
	admin := mustToken(t, dir, "participant_admin")

	post := func(path, token, body string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, p.url(path), strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}

	var end struct {
		Offset int64 `json:"offset"`
	}
	if code := call(t, "GET", p.url("/v2/state/ledger-end"), alice, nil, &end); code != 200 || end.Offset <= 3 {
		t.Fatalf("ledger end: %d %+v", code, end)
	}
	var version struct {
		Version string `json:"version"`
	}
	if code := call(t, "GET", p.url("/sv/1/v2/version"), admin, nil, &version); code != 200 || version.Version != "3.5.14" {
		t.Errorf("SV version: %d %+v", code, version)
	}
	if code := call(t, "GET", p.url("/sv/4/v2/state/ledger-end"), admin, nil, &end); code != 200 || end.Offset == 0 {
		t.Errorf("SV 4 ledger end: %d %+v", code, end)
	}
	if code := call(t, "GET", p.url("/docs/openapi"), "", nil, nil); code != 200 {
		t.Errorf("GET /docs/openapi: %d", code)
	}

	// Alice has more than 3 updates: the flag's limit refuses the list,
	// a limit within it cuts it.
	var party struct {
		Users []struct {
			ID    string `json:"user_id"`
			Party string `json:"party_id"`
		} `json:"users"`
	}
	if code := call(t, "GET", p.url("/api/sandnet/v0/network"), admin, nil, &party); code != 200 {
		t.Fatalf("network: %d", code)
	}
	aliceParty := ""
	for _, u := range party.Users {
		if u.ID == "alice" {
			aliceParty = u.Party
		}
	}
	if code := call(t, "GET", p.url("/v2/state/ledger-end"), alice, nil, &end); code != 200 {
		t.Fatal(code)
	}
	body := `{"beginExclusive":0,"endInclusive":` + jsonInt(end.Offset) + `,"filter":{"filtersByParty":{"` + aliceParty + `":{}}}}`
	code, b := post("/v2/updates/flats", alice, body)
	if code != http.StatusRequestEntityTooLarge || !bytes.Contains(b, []byte("JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED")) {
		t.Errorf("flats over the limit: %d %s", code, b)
	}
	code, b = post("/v2/updates?limit=2", alice, body)
	var list []json.RawMessage
	if code != 200 || json.Unmarshal(b, &list) != nil || len(list) != 2 {
		t.Errorf("updates with limit 2: %d %.300s", code, b)
	}
	if code, b = post("/v2/updates", "", body); code != http.StatusUnauthorized {
		t.Errorf("no token: %d %s", code, b)
	}
	if code, b = post("/v2/updates", "", `{`); code != http.StatusBadRequest || !strings.HasPrefix(string(b), "Invalid value for: body") {
		t.Errorf("undecodable body: %d %s", code, b)
	}
	p.stop(t)
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestListLimitMustBePositive(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(sandnetBinary(t), "start", "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0", "--http-list-max-elements-limit", "0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	exit, ok := err.(*exec.ExitError)
	if !ok || exit.ExitCode() != 1 {
		t.Fatalf("exit = %v, want 1; stderr:\n%s", err, stderr.String())
	}
	if lines := nonEmptyLines(stderr.String()); len(lines) != 1 || !strings.Contains(lines[0], "--http-list-max-elements-limit") {
		t.Errorf("stderr = %q", stderr.String())
	}
}
