package ledgerapi

import (
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/topology"
)

// The ledger API answers two error shapes: input it cannot decode (a body,
// a query parameter) gets 400 with a text/plain reason, as Canton's HTTP
// layer answers decode failures; everything else gets a JsCantonError with
// Canton's error code, category and gRPC code. Handlers return
// *fault.Error values and writeError is the one place they become
// responses.

// codeUndecodable marks a fault.InvalidArgument as a decode failure, served
// as text/plain. It is never served as a code.
const codeUndecodable = "sandnet:undecodable"

// Canton's error codes this API serves.
const (
	codeInvalidArgument      = "INVALID_ARGUMENT"
	codeInvalidField         = "INVALID_FIELD"
	codeMissingField         = "MISSING_FIELD"
	codeNegativeOffset       = "NEGATIVE_OFFSET"
	codeNonPositiveOffset    = "NON_POSITIVE_OFFSET"
	codeDescendingMissingEnd = "DESCENDING_ORDER_MISSING_END"
	codeOffsetAfterLedgerEnd = "OFFSET_AFTER_LEDGER_END"
	codeOffsetOutOfRange     = "OFFSET_OUT_OF_RANGE"
	codePrunedDataAccessed   = "PARTICIPANT_PRUNED_DATA_ACCESSED"
	codePackageNamesNotFound = "PACKAGE_NAMES_NOT_FOUND"
	codeNoTemplatesForName   = "NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME"
	codeNoInterfaceForName   = "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME"
	codeMaxListElements      = "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED"
	codeUserNotFound         = "USER_NOT_FOUND"
	codeUserAlreadyExists    = "USER_ALREADY_EXISTS"
	codeConcurrentUserEdit   = "CONCURRENT_USER_UPDATE_DETECTED"
	codeStaleStreamAuth      = "STALE_STREAM_AUTHORIZATION"
	codeAccessTokenExpired   = "ACCESS_TOKEN_EXPIRED"
	codeInvalidToken         = "INVALID_TOKEN"
)

// Canton's error categories (ErrorCategory.asInt) and the gRPC status codes
// they carry.
const (
	catTransientServerFailure   = 1
	catContention               = 2
	catDeadlineExceeded         = 3
	catInvalidIndependent       = 8
	catInvalidGivenState        = 9
	catResourceExists           = 10
	catResourceMissing          = 11
	catSeekAfterEnd             = 12
	catUnsupportedOperation     = 14
	grpcInvalidArgument         = 3
	grpcNotFound                = 5
	grpcAlreadyExists           = 6
	grpcPermissionDenied        = 7
	grpcFailedPrecondition      = 9
	grpcAborted                 = 10
	grpcOutOfRange              = 11
	grpcUnimplemented           = 12
	grpcInternal                = 13
	grpcUnavailable             = 14
	grpcUnauthenticated         = 16
	redactedCategory            = -1
	retryOneSecond              = "1 second"
	invalidArgumentCausePrefix  = "The submitted request has invalid arguments: "
	missingFieldCausePrefix     = "The submitted command is missing a mandatory field: "
	invalidFieldCausePrefix     = "The submitted command has a field with invalid value: Invalid field "
	redactedMessageFormat       = "An error occurred. Please contact the operator and inquire about the request %s with tid %s"
	contextLedgerAPIError       = "ledger_api_error"
	contextLedgerAPIErrorUnauth = "invalid token"
)

// errorClass is what Canton attaches to an error code: its category and
// the gRPC code of that category.
type errorClass struct {
	category int
	grpc     int
}

// retryOf is the retry delay Canton's error categories carry: a second
// for transient failures, contention, an unknown request state and a read
// beyond the ledger end; none for the others.
func retryOf(category int) string {
	switch category {
	case catTransientServerFailure, catContention, catDeadlineExceeded, catSeekAfterEnd:
		return retryOneSecond
	}
	return ""
}

// definiteAnswers are the codes whose errors are definite answers: the
// submission they refuse will never be committed.
var definiteAnswers = map[string]bool{ledger.CodeDuplicateCommand: true}

// codeClass classifies the codes this API produces.
var codeClass = map[string]errorClass{
	codeInvalidArgument:      {catInvalidIndependent, grpcInvalidArgument},
	codeInvalidField:         {catInvalidIndependent, grpcInvalidArgument},
	codeMissingField:         {catInvalidIndependent, grpcInvalidArgument},
	codeNegativeOffset:       {catInvalidIndependent, grpcInvalidArgument},
	codeNonPositiveOffset:    {catInvalidIndependent, grpcInvalidArgument},
	codeDescendingMissingEnd: {catInvalidIndependent, grpcInvalidArgument},
	codeOffsetAfterLedgerEnd: {catSeekAfterEnd, grpcOutOfRange},
	codeOffsetOutOfRange:     {catInvalidGivenState, grpcFailedPrecondition},
	codePrunedDataAccessed:   {catInvalidGivenState, grpcFailedPrecondition},
	codePackageNamesNotFound: {catResourceMissing, grpcNotFound},
	codeNoTemplatesForName:   {catResourceMissing, grpcNotFound},
	codeNoInterfaceForName:   {catResourceMissing, grpcNotFound},
	codeMaxListElements:      {catContention, grpcAborted},
	codeUserNotFound:         {catResourceMissing, grpcNotFound},
	codeUserAlreadyExists:    {catResourceExists, grpcAlreadyExists},
	codeConcurrentUserEdit:   {catContention, grpcAborted},
	// A running stream whose authorization no longer holds: the client
	// may reconnect, with a fresh token or its new rights.
	codeStaleStreamAuth:    {catContention, grpcAborted},
	codeAccessTokenExpired: {catContention, grpcAborted},

	codeUpdateNotFound:              {catResourceMissing, grpcNotFound},
	codeContractEventsNotFound:      {catResourceMissing, grpcNotFound},
	codeContractPayloadNotFound:     {catResourceMissing, grpcNotFound},
	codePackageNotFound:             {catResourceMissing, grpcNotFound},
	codeProtoDeserialization:        {catInvalidIndependent, grpcInvalidArgument},
	codeUnsupportedPackageOperation: {catUnsupportedOperation, grpcUnimplemented},
	codePartyNotFound:               {catResourceMissing, grpcNotFound},
	codeInvalidPartyDetailsUpdate:   {catInvalidIndependent, grpcInvalidArgument},
	codeConcurrentPartyUpdate:       {catContention, grpcAborted},
	codeMaxPartyAnnotationsSize:     {catInvalidGivenState, grpcFailedPrecondition},
	codeNotConnectedToSynchronizer:  {catInvalidGivenState, grpcFailedPrecondition},
	codeIDPNotFound:                 {catResourceMissing, grpcNotFound},
	codeIDPAlreadyExists:            {catResourceExists, grpcAlreadyExists},
	codeIDPIssuerAlreadyExists:      {catResourceExists, grpcAlreadyExists},
	codeTooManyIDPs:                 {catInvalidGivenState, grpcFailedPrecondition},
	codeInvalidIDPUpdateRequest:     {catInvalidIndependent, grpcInvalidArgument},

	// The package preferences (preferred.go), and the routing errors
	// Canton gives them.
	codeNoPreferredPackages:           {catInvalidGivenState, grpcFailedPrecondition},
	codeInformeesNotActive:            {catInvalidGivenState, grpcFailedPrecondition},
	codeInvalidPrescribedSynchronizer: {catInvalidGivenState, grpcFailedPrecondition},

	// The codes of command submission, as Canton classifies them. The
	// engine names them (internal/ledger); the classes live here, with
	// the rest of the API's mapping.
	ledger.CodePreprocessingFailed:   {catInvalidIndependent, grpcInvalidArgument},
	ledger.CodeAuthorization:         {catInvalidIndependent, grpcInvalidArgument},
	"TEMPLATE_PRECONDITION_VIOLATED": {catInvalidIndependent, grpcInvalidArgument},
	ledger.CodeTemplatesNotFound:     {catResourceMissing, grpcNotFound},
	"CONTRACT_NOT_FOUND":             {catResourceMissing, grpcNotFound},
	"CONTRACT_NOT_ACTIVE":            {catResourceMissing, grpcNotFound},
	"PARTY_NOT_KNOWN_ON_LEDGER":      {catResourceMissing, grpcNotFound},
	codeUnknownInformees:             {catResourceMissing, grpcNotFound},
	ledger.CodeUnhandledException:    {catInvalidGivenState, grpcFailedPrecondition},
	"DAML_FAILURE":                   {catInvalidGivenState, grpcFailedPrecondition},
	ledger.CodeInterpretation:        {catInvalidGivenState, grpcFailedPrecondition},
	"WRONGLY_TYPED_CONTRACT":         {catInvalidGivenState, grpcFailedPrecondition},

	codeInvalidToken: {catInvalidIndependent, grpcInvalidArgument},
	// The outcomes of a submission (ledger.Completion): a change in
	// flight and a contract another command took first (locked) may be
	// retried; a contract archived since the command was interpreted is
	// missing.
	// Interactive submission and external parties. Canton classes a
	// failed model-conformance check as malicious or faulty behaviour
	// (gRPC UNKNOWN, which its JSON API answers with a 500); sandnet
	// answers every refusal of a client's input with a 4xx, so it is an
	// invalid argument here (docs/decisions.md).
	ledger.CodeFailedToPrepare:             {catInvalidIndependent, grpcInvalidArgument},
	ledger.CodeFailedToExecute:             {catInvalidIndependent, grpcInvalidArgument},
	ledger.CodeModelConformance:            {catInvalidIndependent, grpcInvalidArgument},
	ledger.CodeLedgerTimeOutOfBound:        {catInvalidGivenState, grpcFailedPrecondition},
	ledger.CodePreparationTimeOutOfBound:   {catInvalidGivenState, grpcFailedPrecondition},
	ledger.CodeMaxRecordTimeExceeded:       {catInvalidGivenState, grpcFailedPrecondition},
	ledger.CodeNoSynchronizerForSubmission: {catResourceMissing, grpcNotFound},
	ledger.CodeExternalPartyAlreadyExists:  {catResourceExists, grpcAlreadyExists},
	// The topology manager's refusals of onboarding transactions: Canton
	// raises them as alarms (category 5, redacted); sandnet names them,
	// as invalid arguments, so that a client can tell what to fix.
	topology.CodeInvalidSignature:             {catInvalidIndependent, grpcInvalidArgument},
	topology.CodeUnauthorizedTransaction:      {catInvalidIndependent, grpcInvalidArgument},
	topology.CodeMultiTransactionHashMismatch: {catInvalidIndependent, grpcInvalidArgument},

	ledger.CodeDuplicateCommand:   {catResourceExists, grpcAlreadyExists},
	ledger.CodeSubmissionInFlight: {catContention, grpcAborted},
	ledger.CodeLockedContracts:    {catContention, grpcAborted},
	ledger.CodeInactiveContracts:  {catResourceMissing, grpcNotFound},
}

// kindClass classifies faults that carry no code of this API (engine
// errors), by kind, with the code Canton uses for such a failure.
var kindClass = map[fault.Kind]struct {
	code  string
	class errorClass
}{
	fault.InvalidArgument:    {codeInvalidArgument, errorClass{catInvalidIndependent, grpcInvalidArgument}},
	fault.NotFound:           {"NOT_FOUND", errorClass{catResourceMissing, grpcNotFound}},
	fault.AlreadyExists:      {"ALREADY_EXISTS", errorClass{catResourceExists, grpcAlreadyExists}},
	fault.FailedPrecondition: {"FAILED_PRECONDITION", errorClass{catInvalidGivenState, grpcFailedPrecondition}},
	fault.DamlPrecondition:   {"DAML_INTERPRETATION_ERROR", errorClass{catInvalidGivenState, grpcFailedPrecondition}},
	fault.Aborted:            {"ABORTED", errorClass{catContention, grpcAborted}},
	fault.Unavailable:        {"SERVICE_NOT_RUNNING", errorClass{catTransientServerFailure, grpcUnavailable}},
	fault.OutOfRange:         {codeOffsetAfterLedgerEnd, errorClass{catSeekAfterEnd, grpcOutOfRange}},
}

// httpStatusOf maps a gRPC code to the HTTP status Canton's JSON API
// answers it with.
func httpStatusOf(grpc int) int {
	switch grpc {
	case grpcInvalidArgument, grpcFailedPrecondition, grpcOutOfRange:
		return http.StatusBadRequest
	case grpcUnauthenticated:
		return http.StatusUnauthorized
	case grpcPermissionDenied:
		return http.StatusForbidden
	case grpcNotFound:
		return http.StatusNotFound
	case grpcAborted, grpcAlreadyExists:
		return http.StatusConflict
	case grpcUnavailable:
		return http.StatusServiceUnavailable
	case grpcUnimplemented:
		return http.StatusNotImplemented
	default:
		return http.StatusInternalServerError
	}
}

// JsCantonError is the ledger API's error body. Its fields are in Canton's
// order; absent optional values are null, never omitted.
type JsCantonError struct {
	Code           string            `json:"code"`
	Cause          string            `json:"cause"`
	CorrelationID  *string           `json:"correlationId"`
	TraceID        *string           `json:"traceId"`
	Context        map[string]string `json:"context"`
	Resources      [][2]string       `json:"resources"`
	ErrorCategory  int               `json:"errorCategory"`
	GRPCCodeValue  *int              `json:"grpcCodeValue"`
	RetryInfo      *string           `json:"retryInfo"`
	DefiniteAnswer *bool             `json:"definiteAnswer"`
}

// Error constructors. Their messages are Canton's causes, so that clients
// matching on them see what a Canton participant says.

// undecodable is a body or query parameter that cannot be decoded.
func undecodable(format string, args ...any) *fault.Error {
	return fault.WithCode(fault.InvalidArgument, codeUndecodable, format, args...)
}

func invalidArgument(format string, args ...any) *fault.Error {
	return fault.WithCode(fault.InvalidArgument, codeInvalidArgument, invalidArgumentCausePrefix+format, args...)
}

func missingField(field string) *fault.Error {
	return fault.WithCode(fault.InvalidArgument, codeMissingField, "%s%s", missingFieldCausePrefix, field)
}

func invalidField(field, format string, args ...any) *fault.Error {
	return fault.WithCode(fault.InvalidArgument, codeInvalidField, "%s%s: %s", invalidFieldCausePrefix, field, fmt.Sprintf(format, args...))
}

// prunedDataAccessed is a read that reaches into the part of the
// participant's stream that was pruned, up to and including pruned; Canton
// names the first offset a client may read from in earliest_offset.
func prunedDataAccessed(pruned ledger.Offset, format string, args ...any) *fault.Error {
	e := fault.WithCode(fault.FailedPrecondition, codePrunedDataAccessed, format, args...)
	e.Context = map[string]string{"earliest_offset": strconv.FormatInt(int64(pruned), 10)}
	return e
}

// updatesPruned refuses an updates request of (begin, end] that begins
// before the pruned offset.
func updatesPruned(begin, end, pruned ledger.Offset) *fault.Error {
	return prunedDataAccessed(pruned, "Updates request from %d to %d precedes pruned offset %d", begin+1, end, pruned)
}

// unauthenticated is a request without a valid token.
func unauthenticated(err error) *fault.Error {
	return fault.Wrap(fault.Unauthenticated, err, "The command is missing a (valid) JWT token")
}

// permissionDenied is a token whose user may not do what the request asks.
// invalidUser marks a user that does not exist or is deactivated, which
// Canton reports with context ledger_api_error.
func permissionDenied(invalidUser bool, format string, args ...any) *fault.Error {
	e := fault.New(fault.PermissionDenied, format, args...)
	if invalidUser {
		e.Context = map[string]string{contextLedgerAPIError: contextLedgerAPIErrorUnauth}
	}
	return e
}

// writeError answers err; see errorResponse.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, body, text := h.errorResponse(r, err)
	if body == nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(text))
		return
	}
	writeErrorBody(w, status, *body)
}

// errorResponse is the one place errors become responses: the status, and
// either a JsCantonError or, for a decode failure, a text/plain reason
// (body nil). A decode failure is 400 text/plain. An
// authentication or authorization failure, and any internal error, is
// answered redacted, as Canton redacts security-sensitive errors: the body
// names only the request's trace id, and the reason goes to the log.
// Everything else is a JsCantonError with its code's category.
func (h *Handler) errorResponse(r *http.Request, err error) (status int, _ *JsCantonError, text string) {
	f, ok := fault.As(err)
	if !ok {
		f = fault.Wrap(fault.Internal, err, "internal error")
	}
	if f.Code == codeUndecodable {
		return http.StatusBadRequest, nil, f.Message
	}
	tid := traceID(r)
	body := JsCantonError{Context: map[string]string{}, Resources: [][2]string{}}
	_, knownCode := codeClass[f.Code]
	if _, knownKind := kindClass[f.Kind]; !knownCode && !knownKind && f.Kind != fault.Unauthenticated && f.Kind != fault.PermissionDenied {
		// A kind added to package fault but not mapped here is a bug:
		// answer it as internal.
		f = fault.Wrap(fault.Internal, err, "unmapped fault kind %s", f.Kind)
	}
	switch f.Kind {
	case fault.Unauthenticated, fault.PermissionDenied, fault.Internal:
		grpc, status, prefix := grpcInternal, http.StatusInternalServerError, "INTERNAL"
		switch f.Kind {
		case fault.Unauthenticated:
			grpc, status, prefix = grpcUnauthenticated, http.StatusUnauthorized, "UNAUTHENTICATED"
			h.cfg.Logger.InfoContext(r.Context(), "ledger API request unauthenticated", "path", r.URL.Path, "tid", tid, "err", err)
		case fault.PermissionDenied:
			grpc, status, prefix = grpcPermissionDenied, http.StatusForbidden, "PERMISSION_DENIED"
			h.cfg.Logger.InfoContext(r.Context(), "ledger API request denied", "path", r.URL.Path, "tid", tid, "reason", f.Message)
		default:
			h.cfg.Logger.ErrorContext(r.Context(), "internal error", "method", r.Method, "path", r.URL.Path, "tid", tid, "err", err)
		}
		msg := fmt.Sprintf(redactedMessageFormat, tid, tid)
		body.Code, body.Cause = msg, prefix+": "+msg
		body.CorrelationID, body.TraceID = &tid, &tid
		body.ErrorCategory, body.GRPCCodeValue = redactedCategory, &grpc
		if f.Kind != fault.Internal {
			maps.Copy(body.Context, f.Context)
		}
		return status, &body, ""
	}
	code, class, cause := classify(f)
	definite := definiteAnswers[code]
	body.Code, body.Cause = code, cause
	body.TraceID = &tid
	body.Context = h.errorContext(code, class, f.Context, tid)
	if f.Resources != nil {
		body.Resources = f.Resources
	}
	body.ErrorCategory = class.category
	grpc := class.grpc
	body.GRPCCodeValue = &grpc
	if retry := retryOf(class.category); retry != "" {
		body.RetryInfo = &retry
	}
	body.DefiniteAnswer = &definite
	status = httpStatusOf(class.grpc)
	if code == codeMaxListElements {
		status = http.StatusRequestEntityTooLarge
	}
	return status, &body, ""
}

// classify returns the code, class and cause Canton answers a fault that
// is not redacted with: its own code's class, or that of its kind (and the
// kind's code when it has none).
func classify(f *fault.Error) (code string, class errorClass, cause string) {
	code, cause = f.Code, f.Message
	if c, ok := codeClass[code]; ok {
		return code, c, cause
	}
	k := kindClass[f.Kind]
	if code == "" {
		code = k.code
	}
	if code == codeInvalidArgument && !strings.HasPrefix(cause, invalidArgumentCausePrefix) {
		cause = invalidArgumentCausePrefix + cause
	}
	return code, k.class, cause
}

// errorContext is the context Canton gives an error: its category,
// whether it is a definite answer, the participant, the trace id and the
// error's own entries.
func (h *Handler) errorContext(code string, class errorClass, own map[string]string, tid string) map[string]string {
	ctx := map[string]string{
		"category":        strconv.Itoa(class.category),
		"definite_answer": strconv.FormatBool(definiteAnswers[code]),
		"participant":     h.cfg.ParticipantName,
		"tid":             tid,
	}
	maps.Copy(ctx, own)
	return ctx
}

func writeErrorBody(w http.ResponseWriter, status int, body JsCantonError) {
	b, err := marshal(body)
	if err != nil {
		// A JsCantonError of strings and numbers always encodes.
		panic(err)
	}
	writeBody(w, status, b)
}

// traceID is the W3C trace id of the request, Canton's tid.
func traceID(r *http.Request) string {
	return traceIDOf(web.TraceFrom(r.Context()).TraceParent)
}

// traceIDOf is the trace id of a W3C traceparent.
func traceIDOf(traceParent string) string {
	if len(traceParent) >= 35 {
		return traceParent[3:35]
	}
	return traceParent
}
