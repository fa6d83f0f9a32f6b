package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/fault"
)

const internalMessage = "An unexpected error occurred."

// wantStatus is the status of every fault kind. allKinds fails when package
// fault gains a kind that is missing here, so a new kind cannot silently
// fall through to a wrong status.
var wantStatus = map[fault.Kind]int{
	fault.Internal:           http.StatusInternalServerError,
	fault.InvalidArgument:    http.StatusBadRequest,
	fault.NotFound:           http.StatusNotFound,
	fault.AlreadyExists:      http.StatusConflict,
	fault.FailedPrecondition: http.StatusBadRequest,
	fault.DamlPrecondition:   http.StatusConflict,
	fault.Aborted:            http.StatusTooManyRequests,
	fault.Unauthenticated:    http.StatusUnauthorized,
	fault.PermissionDenied:   http.StatusForbidden,
	fault.Unavailable:        http.StatusServiceUnavailable,
	fault.OutOfRange:         http.StatusBadRequest,
}

// allKinds returns every kind package fault defines: the kinds are
// consecutive from 0 and an undefined kind's String is "Kind(n)".
func allKinds(t *testing.T) []fault.Kind {
	t.Helper()
	var kinds []fault.Kind
	for k := fault.Kind(0); !strings.HasPrefix(k.String(), "Kind("); k++ {
		if _, ok := wantStatus[k]; !ok {
			t.Fatalf("fault kind %q has no expected status in wantStatus", k)
		}
		kinds = append(kinds, k)
	}
	if len(kinds) != len(wantStatus) {
		t.Fatalf("package fault defines %d kinds, wantStatus lists %d", len(kinds), len(wantStatus))
	}
	return kinds
}

// errorBody decodes an {"error": …} response, failing on anything else.
func errorBody(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	dec := json.NewDecoder(rec.Body)
	dec.DisallowUnknownFields()
	var body struct {
		Error *string `json:"error"`
	}
	if err := dec.Decode(&body); err != nil {
		t.Fatalf("error body is not {\"error\": string}: %v", err)
	}
	if body.Error == nil {
		t.Fatal(`error body has no "error" member`)
	}
	return *body.Error
}

func TestWriteErrorMapsEveryFaultKind(t *testing.T) {
	t.Parallel()
	for _, kind := range allKinds(t) {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			web.WriteError(rec, httptest.NewRequest(http.MethodGet, "/x", nil),
				fault.Wrap(kind, errors.New("dial tcp 10.0.0.7:5432: secret detail"), "the message for %s", kind))
			if rec.Code != wantStatus[kind] {
				t.Errorf("status = %d, want %d", rec.Code, wantStatus[kind])
			}
			want := "the message for " + kind.String()
			if kind == fault.Internal {
				want = internalMessage
			}
			if got := errorBody(t, rec); got != want {
				t.Errorf("error = %q, want %q (the cause must never be served)", got, want)
			}
		})
	}
}

func TestWriteError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantError  string
	}{{
		name:       "plain error is internal and hides its text",
		err:        errors.New(`pq: password authentication failed for user "admin" at /var/lib/secret`),
		wantStatus: http.StatusInternalServerError, wantError: internalMessage,
	}, {
		name:       "wrapped fault keeps its kind and message",
		err:        fmt.Errorf("tap: %w", fault.New(fault.NotFound, "No user bob")),
		wantStatus: http.StatusNotFound, wantError: "No user bob",
	}, {
		name:       "fault with an upstream code serves only the message",
		err:        fault.WithCode(fault.AlreadyExists, "USER_ALREADY_EXISTS", "User bob already exists"),
		wantStatus: http.StatusConflict, wantError: "User bob already exists",
	}, {
		name:       "internal fault hides its message",
		err:        fault.New(fault.Internal, "row 17 of table users is corrupt"),
		wantStatus: http.StatusInternalServerError, wantError: internalMessage,
	}, {
		name:       "kind unknown to the mapping is internal",
		err:        fault.New(fault.Kind(200), "from a future kind"),
		wantStatus: http.StatusInternalServerError, wantError: internalMessage,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			web.WriteError(rec, httptest.NewRequest(http.MethodPost, "/x", nil), tt.err)
			if rec.Code != tt.wantStatus {
				t.Errorf("status = %d, want %d", rec.Code, tt.wantStatus)
			}
			if got := errorBody(t, rec); got != tt.wantError {
				t.Errorf("error = %q, want %q", got, tt.wantError)
			}
		})
	}
}

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	t.Run("value", func(t *testing.T) {
		t.Parallel()
		rec := httptest.NewRecorder()
		web.WriteJSON(rec, http.StatusCreated, map[string]int{"a": 1})
		if rec.Code != http.StatusCreated || rec.Header().Get("Content-Type") != "application/json" || rec.Body.String() != "{\"a\":1}\n" {
			t.Errorf("got %d %q %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
	})
	t.Run("unencodable value is a JSON 500", func(t *testing.T) {
		t.Parallel()
		rec := httptest.NewRecorder()
		web.WriteJSON(rec, http.StatusOK, map[string]any{"c": make(chan int)})
		if rec.Code != http.StatusInternalServerError {
			t.Errorf("status = %d, want 500", rec.Code)
		}
		if got := errorBody(t, rec); got != internalMessage {
			t.Errorf("error = %q", got)
		}
	})
}

func TestNotFound(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	web.NotFound(rec, httptest.NewRequest(http.MethodGet, "/nowhere", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("status = %d, want 404", rec.Code)
	}
	if got := errorBody(t, rec); got != "The requested resource could not be found." {
		t.Errorf("error = %q", got)
	}
}

type decodeTarget struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
	Ok    bool   `json:"ok"`
	Inner struct {
		Rate float64 `json:"rate"`
	} `json:"inner"`
	Tags []string `json:"tags"`
}

func TestDecodeJSON(t *testing.T) {
	t.Parallel()
	huge := `{"name":"` + strings.Repeat("a", web.MaxBodyBytes) + `"}`
	tests := []struct {
		name     string
		body     string
		wantErr  string // "" for success
		wantName string
	}{
		{name: "object", body: `{"name":"alice","count":3}`, wantName: "alice"},
		{name: "blanks around the value", body: " \n\t{\"name\":\"alice\"} \r\n", wantName: "alice"},
		{name: "unknown members are ignored", body: `{"name":"alice","nickname":"al"}`, wantName: "alice"},
		{name: "null leaves the zero value", body: `null`},
		{name: "empty body", body: ``, wantErr: "Failed to decode: the request body is empty"},
		{name: "blank body", body: " \n ", wantErr: "Failed to decode: the request body is empty"},
		{name: "second value", body: `{"name":"a"} {"name":"b"}`, wantErr: "Failed to decode: unexpected data after the JSON value"},
		{name: "trailing garbage", body: `{"name":"a"} x`, wantErr: "Failed to decode: unexpected data after the JSON value"},
		{name: "stray closing brace", body: `{"name":"a"}}`, wantErr: "Failed to decode: unexpected data after the JSON value"},
		{name: "stray closing bracket", body: `{"name":"a"}]`, wantErr: "Failed to decode: unexpected data after the JSON value"},
		{name: "trailing comma", body: `{"name":"a"},`, wantErr: "Failed to decode: unexpected data after the JSON value"},
		{name: "truncated", body: `{"name":`, wantErr: "Failed to decode: unexpected EOF"},
		{name: "not JSON", body: `name=alice`, wantErr: "Failed to decode: invalid character 'a' in literal null (expecting 'u')"},
		{name: "number for string", body: `{"name":1}`, wantErr: `Failed to decode: field "name" must be a JSON string, not a JSON number`},
		{name: "string for integer", body: `{"count":"3"}`, wantErr: `Failed to decode: field "count" must be a JSON integer, not a JSON string`},
		{name: "fraction for integer", body: `{"count":1.5}`, wantErr: `Failed to decode: field "count" must be a JSON integer, not a JSON number 1.5`},
		{name: "string for boolean", body: `{"ok":"yes"}`, wantErr: `Failed to decode: field "ok" must be a JSON boolean, not a JSON string`},
		{name: "nested field", body: `{"inner":{"rate":"x"}}`, wantErr: `Failed to decode: field "inner.rate" must be a JSON number, not a JSON string`},
		{name: "array for object", body: `{"inner":[]}`, wantErr: `Failed to decode: field "inner" must be a JSON object, not a JSON array`},
		{name: "array body", body: `[1]`, wantErr: `Failed to decode: the request body must be a JSON object, not a JSON array`},
		{name: "string body", body: `"alice"`, wantErr: `Failed to decode: the request body must be a JSON object, not a JSON string`},
		{name: "oversized body", body: huge, wantErr: fmt.Sprintf("Failed to decode: the request body is larger than %d bytes", web.MaxBodyBytes)},
		{name: "oversized trailing blanks", body: `{}` + strings.Repeat(" ", web.MaxBodyBytes), wantErr: fmt.Sprintf("Failed to decode: the request body is larger than %d bytes", web.MaxBodyBytes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got decodeTarget
			err := web.DecodeJSON(httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(tt.body)), &got)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("DecodeJSON: %v", err)
				}
				if got.Name != tt.wantName {
					t.Errorf("Name = %q, want %q", got.Name, tt.wantName)
				}
				return
			}
			f, ok := fault.As(err)
			if !ok || f.Kind != fault.InvalidArgument {
				t.Fatalf("DecodeJSON error = %v, want a fault.InvalidArgument", err)
			}
			if f.Message != tt.wantErr {
				t.Errorf("message = %q\n           want %q", f.Message, tt.wantErr)
			}
			rec := httptest.NewRecorder()
			web.WriteError(rec, httptest.NewRequest(http.MethodPost, "/x", nil), err)
			if rec.Code != http.StatusBadRequest {
				t.Errorf("WriteError status = %d, want 400", rec.Code)
			}
		})
	}
}

// FuzzDecodeJSON checks that no body makes DecodeJSON panic or fail with
// anything but a 400.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"name":"a","count":1}`, `{"name":1}`, `[1]`, `{}}`, `{"inner":{"rate":1e400}}`, `"\ud800"`, "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var v decodeTarget
		err := web.DecodeJSON(httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(body)), &v)
		if err != nil && !fault.Is(err, fault.InvalidArgument) {
			t.Fatalf("DecodeJSON(%q) = %v, want nil or a fault.InvalidArgument", body, err)
		}
		if err == nil && !json.Valid([]byte(body)) {
			t.Fatalf("DecodeJSON(%q) accepted invalid JSON", body)
		}
	})
}

// A request its client abandoned (the connection closed, or a BFT read
// cancelled the rest once it had its answer) gets no answer and is no
// server error; the same error on a live request is one.
func TestWriteErrorClientGone(t *testing.T) {
	t.Parallel()
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name       string
		ctx        context.Context
		err        error
		wantStatus int
		wantBody   bool
	}{
		{"client gone, cancelled", gone, fmt.Errorf("read: %w", context.Canceled), http.StatusOK, false},
		{"client gone, another error", gone, fault.New(fault.NotFound, "nope"), http.StatusNotFound, true},
		{"client here, cancelled", context.Background(), context.Canceled, http.StatusInternalServerError, true},
	} {
		for name, write := range map[string]func(http.ResponseWriter, *http.Request, error){
			"WriteError": web.WriteError,
			"WriteSpliceError": func(w http.ResponseWriter, r *http.Request, err error) {
				web.WriteSpliceError(w, r, slog.New(slog.DiscardHandler), "test", err)
			},
		} {
			rec := httptest.NewRecorder()
			r := httptest.NewRequestWithContext(tc.ctx, http.MethodGet, "/x", nil)
			write(rec, r, tc.err)
			if rec.Code != tc.wantStatus || (rec.Body.Len() > 0) != tc.wantBody {
				t.Errorf("%s: %s: status %d, body %q; want %d, body %v", tc.name, name, rec.Code, rec.Body, tc.wantStatus, tc.wantBody)
			}
		}
	}
}
