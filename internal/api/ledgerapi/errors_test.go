package ledgerapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/auth"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// writeError is the one place errors become responses: every fault kind,
// with or without one of this API's codes, and any other error.
func TestWriteError(t *testing.T) {
	t.Parallel()
	h := New(Config{
		ParticipantName: "validator", Ledger: NetworkLedger(nil), Registry: ledger.NewRegistry(),
		Auth: &web.Authenticator{Verifier: auth.Unverified{}}, Logger: slog.New(slog.DiscardHandler),
	})
	const tid = "4bf92f3577b34da6a3ce929d0e0e4736"
	tests := []struct {
		name      string
		err       error
		status    int
		code      string // "" for redacted errors
		category  int
		grpc      int
		retry     string
		wantCause string
	}{
		{"undecodable input is text/plain", undecodable("Invalid value for: body (x)"), 400, "", 0, 0, "", "Invalid value for: body (x)"},
		{"invalid argument", invalidArgument("bad %d", 1), 400, "INVALID_ARGUMENT", 8, 3, "", "The submitted request has invalid arguments: bad 1"},
		{"missing field", missingField("templateId"), 400, "MISSING_FIELD", 8, 3, "", "The submitted command is missing a mandatory field: templateId"},
		{"invalid field", invalidField("parties", "no"), 400, "INVALID_FIELD", 8, 3, "", "The submitted command has a field with invalid value: Invalid field parties: no"},
		{"offset after the ledger end", fault.WithCode(fault.OutOfRange, codeOffsetAfterLedgerEnd, "x"), 400, codeOffsetAfterLedgerEnd, 12, 11, "1 second", "x"},
		{"offset out of range", fault.WithCode(fault.FailedPrecondition, codeOffsetOutOfRange, "x"), 400, codeOffsetOutOfRange, 9, 9, "", "x"},
		{"unknown package", fault.WithCode(fault.NotFound, codePackageNamesNotFound, "x"), 404, codePackageNamesNotFound, 11, 5, "", "x"},
		{"list too long", fault.WithCode(fault.Aborted, codeMaxListElements, "x"), 413, codeMaxListElements, 2, 10, "1 second", "x"},
		{"engine: invalid argument", fault.New(fault.InvalidArgument, "bad"), 400, "INVALID_ARGUMENT", 8, 3, "", "The submitted request has invalid arguments: bad"},
		{"engine: not found with a code", fault.WithCode(fault.NotFound, "PARTY_NOT_KNOWN_ON_LEDGER", "who"), 404, "PARTY_NOT_KNOWN_ON_LEDGER", 11, 5, "", "who"},
		{"engine: not found", fault.New(fault.NotFound, "gone"), 404, "NOT_FOUND", 11, 5, "", "gone"},
		{"engine: already exists", fault.New(fault.AlreadyExists, "dup"), 409, "ALREADY_EXISTS", 10, 6, "", "dup"},
		{"engine: failed precondition", fault.New(fault.FailedPrecondition, "no"), 400, "FAILED_PRECONDITION", 9, 9, "", "no"},
		{"engine: daml precondition", fault.New(fault.DamlPrecondition, "require"), 400, "DAML_INTERPRETATION_ERROR", 9, 9, "", "require"},
		{"engine: inactive contracts", fault.WithCode(fault.Aborted, "LOCAL_VERDICT_INACTIVE_CONTRACTS", "raced"), 404, "LOCAL_VERDICT_INACTIVE_CONTRACTS", 11, 5, "", "raced"},
		{"engine: locked contracts", fault.WithCode(fault.Aborted, "LOCAL_VERDICT_LOCKED_CONTRACTS", "raced"), 409, "LOCAL_VERDICT_LOCKED_CONTRACTS", 2, 10, "1 second", "raced"},
		{"engine: aborted", fault.New(fault.Aborted, "raced"), 409, "ABORTED", 2, 10, "1 second", "raced"},
		{"change in flight", fault.WithCode(fault.Aborted, ledger.CodeSubmissionInFlight, "busy"), 409, ledger.CodeSubmissionInFlight, 2, 10, "1 second", "busy"},
		{"engine: unavailable", fault.New(fault.Unavailable, "closing"), 503, "SERVICE_NOT_RUNNING", 1, 14, "1 second", "closing"},
		{"engine: out of range", fault.New(fault.OutOfRange, "far"), 400, codeOffsetAfterLedgerEnd, 12, 11, "1 second", "far"},
		{"a kind unknown to the mapping is internal", fault.New(fault.Kind(200), "future"), 500, "", -1, 13, "", "INTERNAL: "},
		{"unauthenticated is redacted", unauthenticated(errors.New("bad signature")), 401, "", -1, 16, "", "UNAUTHENTICATED: "},
		{"permission denied is redacted", permissionDenied(false, "no rights on %s", "alice"), 403, "", -1, 7, "", "PERMISSION_DENIED: "},
		{"an internal fault is redacted", fault.New(fault.Internal, "row 7 is corrupt"), 500, "", -1, 13, "", "INTERNAL: "},
		{"a plain error is internal", errors.New("disk I/O error at /var/lib/x"), 500, "", -1, 13, "", "INTERNAL: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(http.MethodPost, "/v2/updates", nil)
			req.Header.Set("traceparent", "00-"+tid+"-00f067aa0ba902b7-01")
			rec := httptest.NewRecorder()
			web.TraceContext(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.writeError(w, r, tc.err)
			})).ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if tc.code == "" && tc.category == 0 {
				if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") || rec.Body.String() != tc.wantCause {
					t.Errorf("got %q %q", ct, rec.Body)
				}
				return
			}
			var je JsCantonError
			if err := json.Unmarshal(rec.Body.Bytes(), &je); err != nil {
				t.Fatal(err)
			}
			if je.GRPCCodeValue == nil || *je.GRPCCodeValue != tc.grpc || je.ErrorCategory != tc.category ||
				je.TraceID == nil || *je.TraceID != tid {
				t.Errorf("body %s", rec.Body)
			}
			if tc.code == "" {
				if !strings.HasPrefix(je.Cause, tc.wantCause) || !strings.Contains(je.Code, "inquire about the request "+tid+" with tid "+tid) ||
					strings.Contains(rec.Body.String(), "signature") || strings.Contains(rec.Body.String(), "corrupt") ||
					strings.Contains(rec.Body.String(), "disk") || strings.Contains(rec.Body.String(), "alice") {
					t.Errorf("not redacted: %s", rec.Body)
				}
				return
			}
			retry := ""
			if je.RetryInfo != nil {
				retry = *je.RetryInfo
			}
			if je.Code != tc.code || je.Cause != tc.wantCause || retry != tc.retry || je.DefiniteAnswer == nil || *je.DefiniteAnswer ||
				je.Context["tid"] != tid || je.Context["participant"] != "validator" || je.Context["definite_answer"] != "false" {
				t.Errorf("body %s", rec.Body)
			}
		})
	}
}
