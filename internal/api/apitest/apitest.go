// Package apitest holds what the API packages' tests share: golden files of
// recorded responses, and validation of requests and responses against an
// API's own OpenAPI document. Only tests import it.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/sandnet/sandnet/internal/auth"
)

// Entry is one recorded response.
type Entry struct {
	Status int `json:"status"`
	// ContentType is recorded when the test asks for it.
	ContentType string          `json:"contentType,omitempty"`
	Body        json.RawMessage `json:"body"`
}

// EntryOf records a response with its content type: a JSON body as it is,
// any other body as a JSON string.
func EntryOf(t testing.TB, rec *httptest.ResponseRecorder) Entry {
	t.Helper()
	ct := rec.Header().Get("Content-Type")
	body := rec.Body.Bytes()
	if ct != "application/json" {
		b, err := json.Marshal(rec.Body.String())
		if err != nil {
			t.Fatal(err)
		}
		body = b
	}
	return Entry{Status: rec.Code, ContentType: ct, Body: Compact(t, body)}
}

// Compact returns b without insignificant whitespace, failing the test when
// b is not JSON.
func Compact(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("not JSON: %v: %.500s", err, b)
	}
	return buf.Bytes()
}

// Golden is a file mapping case names to the responses they must produce.
// Under -update it records what the cases produce instead of comparing.
type Golden struct {
	path   string
	update bool
	mu     sync.Mutex
	want   map[string]Entry
	got    map[string]Entry
}

// OpenGolden reads testdata/<name>.golden.json.
func OpenGolden(t *testing.T, name string, update bool) *Golden {
	t.Helper()
	g := &Golden{path: filepath.Join("testdata", name+".golden.json"), update: update, got: map[string]Entry{}}
	b, err := os.ReadFile(g.path)
	if update && errors.Is(err, os.ErrNotExist) {
		return g
	}
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if err := json.Unmarshal(b, &g.want); err != nil {
		t.Fatalf("%s: %v", g.path, err)
	}
	return g
}

// Check compares a case's response with its recorded entry.
func (g *Golden) Check(t *testing.T, name string, got Entry) {
	t.Helper()
	got.Body = Compact(t, got.Body)
	g.mu.Lock()
	g.got[name] = got
	want, ok := g.want[name]
	g.mu.Unlock()
	if g.update {
		return
	}
	if !ok {
		t.Fatalf("%s has no entry %q (run go test -update)", g.path, name)
	}
	if want.Status != got.Status || want.ContentType != got.ContentType || !bytes.Equal(Compact(t, want.Body), got.Body) {
		t.Errorf("response differs from %s:\n got %d %s %.3000s\nwant %d %s %.3000s", g.path,
			got.Status, got.ContentType, got.Body, want.Status, want.ContentType, Compact(t, want.Body))
	}
}

// Finish writes the file under -update, and otherwise reports entries no
// case produced, so that golden files hold no stale answers. When -run left
// cases out (complete is false), their entries are kept as they are.
func (g *Golden) Finish(t *testing.T, complete bool) {
	t.Helper()
	if !g.update {
		if !complete || t.Failed() {
			return
		}
		for name := range g.want {
			if _, ok := g.got[name]; !ok {
				t.Errorf("%s: stale entry %q: no case has that name (run go test -update)", g.path, name)
			}
		}
		return
	}
	entries := g.got
	if !complete {
		entries = map[string]Entry{}
		for k, v := range g.want {
			entries[k] = v
		}
		for k, v := range g.got {
			entries[k] = v
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(entries); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(g.path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(g.path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Spec is an API's OpenAPI document, ready to validate exchanges.
type Spec struct {
	Doc    *openapi3.T
	router routers.Router
	// StripPrefix is removed from request paths before they are matched,
	// for an API served under several prefixes (an SV's "/sv/1").
	StripPrefix string
}

// LoadSpec loads and validates an OpenAPI document.
func LoadSpec(data []byte) (*Spec, error) {
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("router: %w", err)
	}
	return &Spec{Doc: doc, router: router}, nil
}

// Describes reports whether the document has an operation for the request.
func (s *Spec) Describes(req *http.Request) bool {
	_, _, err := s.router.FindRoute(req)
	return err == nil
}

// options make validation strict: a response status the document does not
// list for the operation fails, and the bearer scheme needs a token.
func options() *openapi3filter.Options {
	return &openapi3filter.Options{
		IncludeResponseStatus: true,
		AuthenticationFunc: func(_ context.Context, in *openapi3filter.AuthenticationInput) error {
			if s := in.SecurityScheme; s.Type != "http" || s.Scheme != "bearer" {
				return fmt.Errorf("unexpected security scheme %s %s", s.Type, s.Scheme)
			}
			if _, ok := auth.BearerToken(in.RequestValidationInput.Request.Header.Get("Authorization")); !ok {
				return errors.New("no bearer token")
			}
			return nil
		},
	}
}

// Validate checks a request and its response against the document. It
// returns the request's validation error, for the caller to judge (tests
// send invalid requests on purpose); the response must always conform.
func (s *Spec) Validate(t *testing.T, req *http.Request, rec *httptest.ResponseRecorder) (requestErr error) {
	t.Helper()
	if s.StripPrefix != "" {
		if rest, ok := strings.CutPrefix(req.URL.Path, s.StripPrefix); ok {
			req.URL.Path = rest
		}
	}
	route, params, err := s.router.FindRoute(req)
	if err != nil {
		t.Fatalf("%s %s is not in the document: %v", req.Method, req.URL.Path, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: options()}
	requestErr = openapi3filter.ValidateRequest(t.Context(), in)
	resp := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: rec.Code, Header: rec.Header(), Options: options(),
	}
	resp.SetBodyBytes(rec.Body.Bytes())
	if err := openapi3filter.ValidateResponse(t.Context(), resp); err != nil {
		t.Errorf("response does not conform to the document: %v\nbody: %.2000s", err, rec.Body)
	}
	return requestErr
}
