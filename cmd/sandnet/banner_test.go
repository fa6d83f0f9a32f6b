package main

import (
	"strings"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/ledger/splice"
)

func TestBanner(t *testing.T) {
	t.Parallel()
	seeded := &splice.Seeded{SVs: make([]splice.SeededSV, 4)}
	seeded.SetValidators([]splice.SeededValidator{
		{Name: "validator", Users: []splice.SeededUser{{Name: "alice"}, {Name: "bob"}}},
		{Name: "app-provider", Users: []splice.SeededUser{{Name: "pat"}}},
	})
	base := banner{
		base: "http://127.0.0.1:7600", startup: 412 * time.Millisecond, store: "/data (SQLite)", seeded: seeded,
		dashboard: "http://127.0.0.1:7600/", adminHint: "sandnet admin --url http://127.0.0.1:7600 network",
		statusHint: "sandnet status --url http://127.0.0.1:7600",
	}
	withToken := base
	withToken.tokenHint = "sandnet token --user alice"
	localNet := base
	localNet.localNet = []any{"app-user", "proxy http://127.0.0.1:2000, ledger API http://127.0.0.1:2975"}
	for _, tc := range []struct {
		name          string
		b             banner
		want, notWant []string
	}{
		{name: "every API, two validators", b: base, want: []string{
			"sandnet is ready in 412ms: data in /data (SQLite)",
			"dashboard      http://127.0.0.1:7600/\n",
			"ledger API     http://127.0.0.1:7600/v2 ",
			"validator API  http://127.0.0.1:7600/api/validator ", "wallet users alice, bob",
			"http://127.0.0.1:7600/validators/app-provider/api/validator", "validator app-provider: wallet users pat; its ledger API at /validators/app-provider/v2",
			"SV 1's; SV k's (of 4) at /sv/k/api/scan", "http://127.0.0.1:7600/registry", "http://127.0.0.1:7600/api/sandnet/v0",
			"sandnet admin --url http://127.0.0.1:7600 network", "sandnet status --url http://127.0.0.1:7600\n",
		}, notWant: []string{"a token", "LocalNet", " \n"}},
		{name: "a process that mints tokens says how", b: withToken, want: []string{"a token", "sandnet token --user alice"}},
		{name: "LocalNet's addresses", b: localNet, want: []string{"LocalNet app-user", "proxy http://127.0.0.1:2000, ledger API http://127.0.0.1:2975"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sb strings.Builder
			if err := tc.b.write(&sb); err != nil {
				t.Fatal(err)
			}
			out := sb.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("banner lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("banner has %q:\n%s", w, out)
				}
			}
		})
	}
}
