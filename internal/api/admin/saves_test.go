package admin_test

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/admin"
	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/store"
)

var (
	postSave    = route{http.MethodPost, "/saves", "saves_post", ""}
	getSaves    = route{http.MethodGet, "/saves", "saves_list", ""}
	getSave     = route{http.MethodGet, "/saves/before-test", "saves_get", "/saves/{name}"}
	deleteSave  = route{http.MethodDelete, "/saves/before-test", "saves_delete", "/saves/{name}"}
	postRestore = route{http.MethodPost, "/saves/before-test/restore", "saves_restore", "/saves/{name}/restore"}
	savesRoutes = []route{postSave, getSaves, getSave, deleteSave, postRestore}
)

// fakeSaver holds saves in memory. busy makes every save and restore
// refused as one already running; damaged makes a restore refused as of a
// damaged save.
type fakeSaver struct {
	mu      sync.Mutex
	saves   map[string]store.SaveInfo
	busy    bool
	damaged bool
}

func newFakeSaver() *fakeSaver {
	return &fakeSaver{saves: map[string]store.SaveInfo{"before-test": sampleSave("before-test")}}
}

func sampleSave(name string) store.SaveInfo {
	return store.SaveInfo{Name: name, CreatedAt: time.Date(2026, 11, 26, 9, 30, 0, 123e6, time.UTC), LedgerTime: ledgerNow, LedgerEnd: 15, SizeBytes: 1937408}
}

var errBusy = fault.New(fault.AlreadyExists, "cannot save now: another save or restore is running; try again when it has finished")

func (f *fakeSaver) Save(_ context.Context, name string) (store.SaveInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.busy {
		return store.SaveInfo{}, errBusy
	}
	if name == "" {
		name = "save-1"
	}
	if _, ok := f.saves[name]; ok {
		return store.SaveInfo{}, store.SaveExists(name)
	}
	f.saves[name] = sampleSave(name)
	return f.saves[name], nil
}

func (f *fakeSaver) Saves(context.Context) ([]store.SaveInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Collect(maps.Values(f.saves))
	store.SortSaves(out)
	return out, nil
}

func (f *fakeSaver) GetSave(_ context.Context, name string) (store.SaveInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.saves[name]
	if !ok {
		return s, store.SaveNotFound(name)
	}
	if f.damaged {
		return store.SaveInfo{}, store.SaveCorrupt(name, "its manifest.json does not describe it")
	}
	return s, nil
}

func (f *fakeSaver) DeleteSave(ctx context.Context, name string) error {
	if _, err := f.GetSave(ctx, name); err != nil {
		return err
	}
	if f.busy {
		return errBusy
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.saves, name)
	return nil
}

func (f *fakeSaver) Restore(ctx context.Context, name string) (store.SaveInfo, error) {
	if f.busy {
		return store.SaveInfo{}, errBusy
	}
	if _, err := f.GetSave(ctx, name); err != nil {
		return store.SaveInfo{}, err
	}
	return f.saves[name], nil
}

// TestSavesHandler runs the save routes' cases against a fake saver:
// statuses, bodies (golden), and requests and answers checked against
// the document.
func TestSavesHandler(t *testing.T) {
	t.Parallel()
	s := mustSpec(t)
	type saveCase struct {
		name    string
		route   route
		path    string // instead of the route's
		auth    authorization
		body    string
		saver   func(*fakeSaver)
		offSpec bool
		want    int
	}
	busy := func(f *fakeSaver) { f.busy = true }
	damaged := func(f *fakeSaver) { f.damaged = true }
	cases := []saveCase{
		{name: "named", route: postSave, body: `{"name":"after-setup.v2"}`, want: 201},
		{name: "generated name", route: postSave, want: 201},
		{name: "empty object", route: postSave, body: `{}`, want: 201},
		{name: "upper case", route: postSave, body: `{"name":"Before"}`, offSpec: true, want: 400},
		{name: "leading dot", route: postSave, body: `{"name":".x"}`, offSpec: true, want: 400},
		{name: "slash", route: postSave, body: `{"name":"a/b"}`, offSpec: true, want: 400},
		{name: "not a string", route: postSave, body: `{"name":7}`, offSpec: true, want: 400},
		{name: "exists", route: postSave, body: `{"name":"before-test"}`, want: 409},
		{name: "busy", route: postSave, body: `{"name":"x"}`, saver: busy, want: 409},
		{name: "no token", route: postSave, auth: noToken, offSpec: true, want: 401},
		{name: "not an operator", route: postSave, auth: bearerFor("alice"), want: 403},
		{name: "list", route: getSaves, want: 200},
		{name: "list no token", route: getSaves, auth: noToken, offSpec: true, want: 401},
		{name: "list not an operator", route: getSaves, auth: bearerFor("alice"), want: 403},
		{name: "get", route: getSave, want: 200},
		{name: "get unknown", route: getSave, path: "/saves/nope", want: 404},
		{name: "get damaged", route: getSave, saver: damaged, want: 400},
		{name: "get no token", route: getSave, auth: noToken, offSpec: true, want: 401},
		{name: "get not an operator", route: getSave, auth: bearerFor("alice"), want: 403},
		{name: "delete", route: deleteSave, want: 204},
		{name: "delete unknown", route: deleteSave, path: "/saves/nope", want: 404},
		{name: "delete damaged", route: deleteSave, saver: damaged, want: 400},
		{name: "delete busy", route: deleteSave, saver: busy, want: 409},
		{name: "delete no token", route: deleteSave, auth: noToken, offSpec: true, want: 401},
		{name: "delete not an operator", route: deleteSave, auth: bearerFor("alice"), want: 403},
		{name: "restore", route: postRestore, want: 200},
		{name: "restore unknown", route: postRestore, path: "/saves/nope/restore", want: 404},
		{name: "restore damaged", route: postRestore, saver: damaged, want: 400},
		{name: "restore busy", route: postRestore, saver: busy, want: 409},
		{name: "restore no token", route: postRestore, auth: noToken, offSpec: true, want: 401},
		{name: "restore not an operator", route: postRestore, auth: bearerFor("alice"), want: 403},
	}
	goldens := map[route]*apitest.Golden{}
	for _, r := range savesRoutes {
		goldens[r] = apitest.OpenGolden(t, r.golden, *update)
	}
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.route.golden+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				f := newFakeSaver()
				if tc.saver != nil {
					tc.saver(f)
				}
				op := okOperator()
				h := admin.New(&op, hs256, nil)
				mux := http.NewServeMux()
				admin.NewSaves(f, h.Authorize).Register(mux)
				auth := tc.auth
				if auth == nil {
					auth = asOperator
				}
				path := tc.path
				if path == "" {
					path = tc.route.path
				}
				authz := auth(t)
				rec := httptest.NewRecorder()
				mux.ServeHTTP(rec, newRequest(t, tc.route.method, path, authz, tc.body))
				if rec.Code != tc.want {
					t.Errorf("status = %d, want %d; body %s", rec.Code, tc.want, rec.Body)
				}
				body := rec.Body.Bytes()
				if len(body) == 0 {
					body = []byte("null") // 204: no body
				}
				goldens[tc.route].Check(t, tc.name, apitest.Entry{Status: rec.Code, Body: body})
				reqErr := s.Validate(t, newRequest(t, tc.route.method, path, authz, tc.body), rec)
				switch {
				case tc.offSpec && reqErr == nil:
					t.Errorf("the document allows this request, but the case says it does not")
				case !tc.offSpec && reqErr != nil:
					t.Errorf("request does not conform to the document: %v", reqErr)
				}
			})
		}
	})
	for _, g := range goldens {
		g.Finish(t, !t.Failed())
	}
}
