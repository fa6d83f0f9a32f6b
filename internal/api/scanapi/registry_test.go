package scanapi_test

import (
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/scan"
)

// registryRoot is where registry requests are addressed: the Scan's host.
const registryRoot = "http://127.0.0.1:7575"

// svPrefix is the SV prefix the cases also serve the registry under.
const svPrefix = "/sv/2"

var registrySpecOnce = sync.OnceValues(func() (*apitest.Spec, error) {
	s, err := apitest.LoadSpec(scanapi.RegistryOpenAPI())
	if s != nil {
		s.StripPrefix = svPrefix
	}
	return s, err
})

func TestRegistryOpenAPIDocumentIsValid(t *testing.T) {
	t.Parallel()
	if _, err := registrySpecOnce(); err != nil {
		t.Fatal(err)
	}
}

// registryHandler serves the shared Scan's registry at the host's root and
// under svPrefix, beside its Scan API, as sandnet start mounts them.
func registryHandler(t *testing.T, e *env) http.Handler {
	t.Helper()
	mux := http.NewServeMux()
	h := scanapi.New(scanapi.Config{Service: e.Scan, Registry: e.Network.Registry(), Logger: slog.New(slog.DiscardHandler)})
	h.Register(mux, scanapi.Prefix)
	h.RegisterRegistry(mux, "")
	h.RegisterRegistry(mux, svPrefix)
	return mux
}

// TestRegistryGolden serves the metadata API over the shared Scan (which
// has snapshots: the supply is the latest one's) and compares the answers
// with testdata/registry.golden.json.
func TestRegistryGolden(t *testing.T) {
	t.Parallel()
	e := shared(t)
	h := registryHandler(t, e)
	spec, err := registrySpecOnce()
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("Amulet", 2000)
	cases := []struct {
		name, path string
		status     int
	}{
		{"info", "/registry/metadata/v1/info", 200},
		{"instruments", "/registry/metadata/v1/instruments", 200},
		{"instruments: paging ignored", "/registry/metadata/v1/instruments?pageSize=1&pageToken=whatever", 200},
		{"instrument: Amulet", "/registry/metadata/v1/instruments/Amulet", 200},
		{"instrument: unknown", "/registry/metadata/v1/instruments/CantonCoin", 404},
		{"instrument: another case", "/registry/metadata/v1/instruments/amulet", 404},
		{"instrument: unicode", "/registry/metadata/v1/instruments/" + url.PathEscape("Ämulet ☃"), 404},
		{"instrument: an escaped slash", "/registry/metadata/v1/instruments/Amulet%2Fx", 404},
		{"instrument: invalid UTF-8", "/registry/metadata/v1/instruments/%FF%FE", 404},
		{"instrument: long", "/registry/metadata/v1/instruments/" + long, 404},
		{"SV prefix: info", svPrefix + "/registry/metadata/v1/info", 200},
		{"SV prefix: instrument", svPrefix + "/registry/metadata/v1/instruments/Amulet", 200},
		{"SV prefix: unknown instrument", svPrefix + "/registry/metadata/v1/instruments/nope", 404},
		{"unknown path", "/registry/metadata/v2/info", 404},
		{"under /api/scan: not there", "/api/scan/registry/metadata/v1/info", 404},
	}
	g := apitest.OpenGolden(t, "registry", *update)
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				newReq := func() *http.Request { return httptest.NewRequest(http.MethodGet, registryRoot+tc.path, nil) }
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, newReq())
				if spec.Describes(stripped(newReq())) {
					if err := spec.Validate(t, newReq(), rec); err != nil {
						t.Errorf("request does not conform to the document: %v", err)
					}
				}
				if rec.Code != tc.status {
					t.Errorf("status %d, want %d: %.500s", rec.Code, tc.status, rec.Body)
				}
				if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
					t.Errorf("content type %q", ct)
				}
				g.Check(t, tc.name, apitest.EntryOf(t, rec))
			})
		}
	})
	g.Finish(t, !t.Failed())
}

// stripped is req without the SV prefix, as the spec matches it.
func stripped(req *http.Request) *http.Request {
	if rest, ok := strings.CutPrefix(req.URL.Path, svPrefix); ok {
		req.URL.Path = rest
	}
	return req
}

// TestRegistryInstrument checks the answers' content beyond their shape:
// the DSO as admin, Amulet's metadata and the supply of the latest
// snapshot.
func TestRegistryInstrument(t *testing.T) {
	t.Parallel()
	e := shared(t)
	h := registryHandler(t, e)
	get := func(path string, out any) {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, registryRoot+path, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			t.Fatal(err)
		}
	}
	var info scanapi.RegistryInfo
	get("/registry/metadata/v1/info", &info)
	if info.AdminID != string(e.Seeded.DSOParty) || len(info.SupportedAPIs) != 1 || info.SupportedAPIs["splice-api-token-metadata-v1"] != 1 {
		t.Errorf("info %+v", info)
	}
	var list scanapi.ListInstrumentsResponse
	get("/registry/metadata/v1/instruments", &list)
	var one scanapi.Instrument
	get("/registry/metadata/v1/instruments/Amulet", &one)
	sup, ok, err := e.Scan.TotalSupply(t.Context())
	if err != nil || !ok {
		t.Fatalf("supply: %v %v", ok, err)
	}
	latest, err := e.ScanStore.LatestSnapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := scanapi.Instrument{
		ID: "Amulet", Name: "Amulet", Symbol: "AMT", Decimals: 10,
		TotalSupply: sup.Total.String(), TotalSupplyAsOf: latest.RecordTime.String(),
		SupportedAPIs: scan.AmuletAPIs(),
	}
	for _, got := range []scanapi.Instrument{one, list.Instruments[0]} {
		if len(list.Instruments) != 1 || got.ID != want.ID || got.Name != want.Name || got.Symbol != want.Symbol || got.Decimals != want.Decimals ||
			got.TotalSupply != want.TotalSupply || got.TotalSupplyAsOf != want.TotalSupplyAsOf || !maps.Equal(got.SupportedAPIs, want.SupportedAPIs) {
			t.Errorf("instrument %+v, want %+v", got, want)
		}
	}
}
