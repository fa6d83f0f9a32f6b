package scanclient_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/scanclient"
)

// TestBFTReads runs the BFT reads against Scans of which some lie.
func TestBFTReads(t *testing.T) {
	t.Parallel()
	e := shared(t)
	dso := string(e.Seeded.DSOParty)
	alice := string(e.Party("alice"))
	bob := string(e.Party("bob"))
	honest := func(t *testing.T) string { return serve(t, e.ScanHandler, nil).url() }
	lying := func(old, new string) func(t *testing.T) string {
		return func(t *testing.T) string { return serve(t, e.ScanHandler, replace("", old, new)).url() }
	}
	dead := func(t *testing.T) string { return deadURL(t) }
	failing := func(status int, body string) func(t *testing.T) string {
		return func(t *testing.T) string { return serve(t, e.ScanHandler, fixed(status, body)).url() }
	}
	type scanURL = func(t *testing.T) string
	tests := []struct {
		name  string
		scans []scanURL
		// want is the DSO party and wantUser alice's entry's user; ""
		// wants Unavailable.
		want     string
		wantUser string
	}{
		{"one honest", []scanURL{honest}, dso, alice},
		{"three honest", []scanURL{honest, honest, honest}, dso, alice},
		{"one liar of three", []scanURL{honest, lying(dso, "evil::1220ff"), honest}, dso, alice},
		{"liar first", []scanURL{lying(dso, "evil::1220ff"), honest, honest}, dso, alice},
		{"two liars who disagree", []scanURL{honest, lying(dso, "evil::1220ff"), lying(dso, "other::1220ee")}, "", alice},
		{"a liar and a dead Scan", []scanURL{honest, lying(dso, "evil::1220ff"), dead}, "", alice},
		{"entries: two liars who disagree", []scanURL{lying(alice, bob), honest, lying(alice, dso)}, dso, ""},
		{"one honest, two dead", []scanURL{honest, dead, dead}, dso, alice},
		{"four, one liar, one dead", []scanURL{honest, lying(dso, "evil::1220ff"), dead, honest}, dso, alice},
		{"four, only one answers", []scanURL{honest, dead, dead, failing(503, `{"error":"not ready"}`)}, "", ""},
		{"entries: one liar of three", []scanURL{honest, lying(alice, bob), honest}, dso, alice},
		{"entries: a Scan that says 404", []scanURL{honest, failing(404, `{"error":"No ans entry found for name: alice.unverified.cns"}`), honest}, dso, alice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var urls []string
			for _, s := range tt.scans {
				urls = append(urls, s(t))
			}
			c := newClient(t, scanclient.Config{URLs: urls})
			ctx := context.Background()
			got, err := c.DSOPartyID(ctx)
			if tt.want == "" {
				if !fault.Is(err, fault.Unavailable) {
					t.Errorf("DSOPartyID = %q, %v; want Unavailable", got, err)
				}
			} else if err != nil || string(got) != tt.want {
				t.Errorf("DSOPartyID = %q, %v; want %q", got, err, tt.want)
			}
			entry, err := c.AnsEntryByName(ctx, "alice.unverified.cns")
			if tt.wantUser == "" {
				if !fault.Is(err, fault.Unavailable) {
					t.Errorf("AnsEntryByName = %+v, %v; want Unavailable", entry, err)
				}
			} else if err != nil || entry.User != tt.wantUser {
				t.Errorf("AnsEntryByName = %+v, %v; want user %s", entry, err, tt.wantUser)
			}
		})
	}
}

// TestBFTAgreedFailure checks that a failure the Scans agree on is theirs.
func TestBFTAgreedFailure(t *testing.T) {
	t.Parallel()
	e := shared(t)
	var urls []string
	for range 3 {
		urls = append(urls, serve(t, e.ScanHandler, nil).url())
	}
	urls = append(urls, serve(t, e.ScanHandler, fixed(http.StatusOK, `{"entry":{"user":"x","name":"nobody.cns","url":"","description":""}}`)).url())
	c := newClient(t, scanclient.Config{URLs: urls})
	_, err := c.AnsEntryByName(context.Background(), "nobody.cns")
	wantFault(t, err, fault.NotFound, "No ans entry found for name: nobody.cns")
}

// TestBFTAsksAMajorityFirst checks what a BFT read costs the Scans: with
// honest, quick Scans only a majority of them (at least f+1) answer each
// read, the reads start at different Scans, and a liar among the first
// makes the read ask the rest.
func TestBFTAsksAMajorityFirst(t *testing.T) {
	t.Parallel()
	e := shared(t)
	dso := string(e.Seeded.DSOParty)
	for _, tc := range []struct {
		name  string
		n     int
		liar  bool
		reads int
		asked int64 // requests in all; every Scan is asked at least once
	}{
		{"three honest: two a read", 3, false, 6, 12},
		{"four honest: three a read", 4, false, 4, 12},
		{"one Scan", 1, false, 3, 3},
		// The reads start at Scans 1, 2 and 0: the one that asks 1 and 2
		// first needs no third answer, the two that ask the liar do.
		{"a liar among three: the third asked when it is among the first", 3, true, 3, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var scans []*scanServer
			var urls []string
			for i := range tc.n {
				var rw rewrite
				if tc.liar && i == 0 {
					rw = replace("", dso, "evil::1220ff")
				}
				s := serve(t, e.ScanHandler, rw)
				scans = append(scans, s)
				urls = append(urls, s.url())
			}
			c := newClient(t, scanclient.Config{URLs: urls})
			for range tc.reads {
				if got, err := c.DSOPartyID(context.Background()); err != nil || string(got) != dso {
					t.Fatalf("DSOPartyID = %q, %v", got, err)
				}
			}
			var total int64
			for i, s := range scans {
				total += s.count()
				if s.count() == 0 {
					t.Errorf("Scan %d was never asked", i)
				}
			}
			if total != tc.asked {
				t.Errorf("%d reads asked the Scans %d times; want %d", tc.reads, total, tc.asked)
			}
		})
	}
}
