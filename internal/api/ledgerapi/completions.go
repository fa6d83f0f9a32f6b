package ledgerapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// The command completion stream, as Canton 3.5 serves it:
//
//   - POST /v2/commands/completions takes a CompletionStreamRequest: the
//     completions of one user's submissions (userId, by default the
//     token's user) whose actAs has one of the request's parties. The
//     user must be the token's, unless it may read as any party, and it
//     must be able to read as every party named.
//   - POST /v2/commands/command-completions (new in 3.5) takes a
//     GetCompletionsRequest: the completions of every user's submissions
//     with one of the parties in their actAs, or of all submissions when
//     it names no party, which needs CanReadAsAnyParty.
//
// Both are open-ended lists, with the updates list's limit, node limit
// and idle timeout (stream_idle_timeout_ms), and websocket streams on the
// same paths. Each completion shows only the requested parties in its
// actAs (all of them for a request for any party). Each time a stream
// has caught up with the ledger end it adds an offset checkpoint there.

// completionsRequest is a CompletionStreamRequest (byUser) or a
// GetCompletionsRequest, as decoded.
type completionsRequest struct {
	UserID         string
	Parties        []string
	BeginExclusive int64
}

// requestName names the body of a completions request in messages.
func requestName(byUser bool) string {
	if byUser {
		return "CompletionStreamRequest"
	}
	return "GetCompletionsRequest"
}

// decodeCompletionsRequest decodes a completions request body with
// Canton's relaxed codec; failures are decode failures (400 text/plain)
// naming the member at fault. A GetCompletionsRequest has no userId: one
// given is ignored, as any unknown member.
func decodeCompletionsRequest(body []byte, byUser bool) (*completionsRequest, error) {
	root, err := parseJSON(body)
	if err != nil {
		return nil, err
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, undecodable("Invalid value for: body (expected a %s object, got %s)", requestName(byUser), describe(root))
	}
	d := &decoder{}
	req := &completionsRequest{}
	if byUser {
		req.UserID, _ = d.stringMember("", obj, "userId")
	}
	req.Parties = d.stringList("", obj, "parties")
	req.BeginExclusive, _ = d.int64Member("", obj, "beginExclusive")
	if d.err != nil {
		return nil, d.err
	}
	return req, nil
}

// completionsReads is what a completions request reads, as an update
// format, so that the updates' authorization (authorize) and a stream's
// re-authorization check it: read-as each party named, and, for a
// GetCompletionsRequest that names none, CanReadAsAnyParty. It is nil for
// a body that is not a request.
func completionsReads(body []byte, byUser bool) *updateFormat {
	req, err := decodeCompletionsRequest(body, byUser)
	if err != nil {
		return nil
	}
	return readsOf(req, byUser)
}

func readsOf(req *completionsRequest, byUser bool) *updateFormat {
	ef := &eventFormat{ByParty: map[string]filters{}}
	for _, p := range req.Parties {
		ef.ByParty[p] = filters{}
	}
	ef.Parties = slices.Sorted(maps.Keys(ef.ByParty))
	if !byUser && len(ef.Parties) == 0 {
		ef.AnyParty = &filters{}
	}
	return &updateFormat{Transactions: &transactionFormat{EventFormat: ef}}
}

// completionsQuery is a completions request that passed every check
// before the first read.
type completionsQuery struct {
	query ledger.CompletionQuery
	// show are the parties a completion's actAs is filtered to; nil
	// shows all.
	show      []daml.Party
	ledgerEnd ledger.Offset
	// committed is closed at the first commit after ledgerEnd was read.
	committed <-chan struct{}
}

// prepareCompletions takes a completions request body through every step
// the list and the websocket stream share, in Canton's order: decoding
// (text/plain 400), authentication of r and authorization (the user,
// defaulted to the token's, and the parties), validation (the user id,
// the parties, the offset), the ledger end, and the pruned offset.
func (h *Handler) prepareCompletions(r *http.Request, body []byte, byUser bool) (*completionsQuery, error) {
	req, err := decodeCompletionsRequest(body, byUser)
	if err != nil {
		return nil, err
	}
	c, err := h.authenticate(r)
	if err != nil {
		return nil, err
	}
	userID := req.UserID
	if byUser {
		if userID == "" {
			if c.user == nil {
				return nil, fault.WithCode(fault.InvalidArgument, codeInvalidToken,
					"The submitted request is missing a user-id: Cannot default user_id field because claims do not specify an user-id. Is authentication turned on?")
			}
			userID = c.user.ID
		}
		// Another user's completions need the right to read as any
		// party, as on Canton.
		if c.user != nil && userID != c.user.ID && !c.canReadAnyParty() {
			return nil, permissionDenied(false, "user %s may not read the completions of user %s", fault.Quote(c.user.ID), fault.Quote(userID))
		}
	}
	if err := authorize(c, readsOf(req, byUser)); err != nil {
		return nil, err
	}
	if byUser {
		if err := checkUserID("user_id", userID); err != nil {
			return nil, err
		}
	}
	q := &completionsQuery{query: ledger.CompletionQuery{
		Participant: h.cfg.Participant, UserID: userID, After: ledger.Offset(req.BeginExclusive),
	}}
	for _, p := range req.Parties {
		if msg := checkPartySyntax(p); msg != "" {
			return nil, invalidArgument("%s", msg)
		}
		q.query.Parties = append(q.query.Parties, daml.Party(p))
	}
	q.show = q.query.Parties
	if req.BeginExclusive < 0 {
		return nil, fault.WithCode(fault.InvalidArgument, codeNegativeOffset,
			"Offset %d in begin_exclusive is a negative integer: the offset in begin_exclusive field has to be a non-negative integer (>=0)", req.BeginExclusive)
	}
	// Take the commit signal before reading the ledger end, so that a
	// commit between the read and the wait is not missed.
	q.committed = h.cfg.Ledger.Committed()
	head, err := h.cfg.Ledger.Head(r.Context())
	if err != nil {
		return nil, err
	}
	q.ledgerEnd = head.Offsets[h.cfg.Participant]
	if q.query.After > q.ledgerEnd {
		return nil, fault.WithCode(fault.OutOfRange, codeOffsetAfterLedgerEnd, "Begin offset (%d) is after ledger end (%d)", q.query.After, q.ledgerEnd)
	}
	if byUser && len(req.Parties) == 0 {
		return nil, missingField("parties")
	}
	if pruned := head.Pruned[h.cfg.Participant]; q.query.After < pruned {
		return nil, prunedDataAccessed(pruned, "Request from %d precedes pruned offset %d", q.query.After+1, pruned)
	}
	return q, nil
}

// completionsList serves the two lists.
func (h *Handler) completionsList(byUser bool) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		q, params, take, err := readList(h, w, r, func(r *http.Request, body []byte) (*completionsQuery, error) {
			return h.prepareCompletions(r, body, byUser)
		})
		if err != nil || take == 0 {
			return err
		}
		out := newListBody(w, math.MaxInt)
		l := &completionLister{h: h, q: q, take: take, emit: out.add}
		return h.openEndedList(r.Context(), params, out, l, q.query.After, q.ledgerEnd, q.committed)
	}
}

// completionsStream serves the websocket twins of the lists: one request
// frame, then each completion as it is committed and an offset checkpoint
// each time the stream catches up with the ledger end, until the client
// leaves; errors and authentication as for the updates stream.
func (h *Handler) completionsStream(byUser bool) http.HandlerFunc {
	name := requestName(byUser)
	return func(w http.ResponseWriter, r *http.Request) {
		reads := func(body []byte) *updateFormat { return completionsReads(body, byUser) }
		h.stream(w, r, reads, func(ctx context.Context, r *http.Request, typ websocket.MessageType, body []byte, send func(json.RawMessage) error) error {
			if typ != websocket.MessageText {
				return undecodable("Invalid value for: body (expected a text frame holding a %s, got a binary frame)", name)
			}
			q, err := h.prepareCompletions(r, body, byUser)
			if err != nil {
				return err
			}
			l := &completionLister{h: h, q: q, take: math.MaxInt, emit: send}
			err = h.follow(ctx, l, q.query.After, q.ledgerEnd, q.committed, -1)
			if errors.Is(err, context.Canceled) && ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		})
	}
}

// completionLister renders a request's completions and hands them to
// emit, at most take of them (the follower of a completions list or
// stream).
type completionLister struct {
	h    *Handler
	q    *completionsQuery
	take int
	emit func(json.RawMessage) error
	n    int
	// last is the last completion read, for offset checkpoints.
	last *ledger.Completion
}

func (l *completionLister) full() bool   { return l.n >= l.take }
func (l *completionLister) emitted() int { return l.n }

func (l *completionLister) add(v any) error {
	b, err := marshal(v)
	if err != nil {
		return err
	}
	l.n++
	return l.emit(b)
}

// scanRange reads the request's completions in (after, until] page by
// page.
func (l *completionLister) scanRange(ctx context.Context, after, until ledger.Offset) error {
	q := l.q.query
	q.Until, q.Limit = until, pageSize
	for after < until && !l.full() {
		q.After = after
		page, err := l.h.cfg.Ledger.Completions(ctx, q)
		if err != nil {
			return err
		}
		for i := range page {
			l.last = &page[i]
			if err := l.add(CompletionStreamResponse{CompletionResponse: CompletionResponse{
				Completion: &Wrapped[Completion]{Value: l.h.completion(&page[i], l.q.show)},
			}}); err != nil {
				return err
			}
			if l.full() {
				return nil
			}
		}
		if len(page) < pageSize {
			return nil
		}
		after = page[len(page)-1].Offset
	}
	return nil
}

// addCheckpoint adds the checkpoint at end, with the synchronizer and
// record time of the completion there when the stream has one.
func (l *completionLister) addCheckpoint(ctx context.Context, end ledger.Offset, at daml.Timestamp, exact bool) (bool, error) {
	var sync ledger.SynchronizerID
	var rt daml.Timestamp
	if l.last != nil && l.last.Offset == end {
		sync, rt = l.last.Synchronizer, l.last.RecordTime
	}
	cp, ok, err := l.h.checkpointAt(ctx, end, at, exact, sync, rt)
	if err != nil || !ok {
		return false, err
	}
	return true, l.add(CompletionStreamResponse{CompletionResponse: CompletionResponse{
		OffsetCheckpoint: &Wrapped[OffsetCheckpoint]{Value: cp},
	}})
}

// The wire types of the completion stream, in Canton's field order.

// CompletionStreamResponse is one element of a completion stream.
type CompletionStreamResponse struct {
	CompletionResponse CompletionResponse `json:"completionResponse"`
}

// CompletionResponse is the one-of of the stream's elements; exactly one
// field is set, wrapped in {"value": …}.
type CompletionResponse struct {
	Completion       *Wrapped[Completion]       `json:"Completion,omitempty"`
	OffsetCheckpoint *Wrapped[OffsetCheckpoint] `json:"OffsetCheckpoint,omitempty"`
}

// Completion is the outcome of a submission.
type Completion struct {
	CommandID string `json:"commandId"`
	// Status is code 0 for an accepted submission and Canton's
	// google.rpc.Status for a rejected one.
	Status *JsStatus `json:"status"`
	// UpdateID is empty for a rejected submission.
	UpdateID     string   `json:"updateId"`
	UserID       string   `json:"userId"`
	ActAs        []string `json:"actAs"`
	SubmissionID string   `json:"submissionId"`
	// DeduplicationPeriod is the period the submission was checked with.
	DeduplicationPeriod DeduplicationPeriod `json:"deduplicationPeriod"`
	TraceContext        *TraceContext       `json:"traceContext"`
	Offset              int64               `json:"offset"`
	SynchronizerTime    SynchronizerTime    `json:"synchronizerTime"`
	// PaidTrafficCost is always 0: sandnet does not meter traffic.
	PaidTrafficCost int64 `json:"paidTrafficCost"`
}

// DeduplicationPeriod is the completion's deduplication period one-of;
// exactly one field is set.
type DeduplicationPeriod struct {
	DeduplicationDuration *Wrapped[Duration] `json:"DeduplicationDuration,omitempty"`
	DeduplicationOffset   *Wrapped[int64]    `json:"DeduplicationOffset,omitempty"`
	Empty                 *struct{}          `json:"Empty,omitempty"`
}

// JsStatus is a google.rpc.Status.
type JsStatus struct {
	Code    int        `json:"code"`
	Message string     `json:"message"`
	Details []ProtoAny `json:"details"`
}

// ProtoAny is a google.protobuf.Any as Canton's JSON API renders one: the
// message's type URL, its protobuf encoding in base64, and the message
// decoded, in protobuf's text format (as protobuf-java's TextFormat
// prints it).
type ProtoAny struct {
	TypeURL       string          `json:"typeUrl"`
	Value         string          `json:"value"`
	ValueDecoded  string          `json:"valueDecoded"`
	UnknownFields UnknownFieldSet `json:"unknownFields"`
}

// completion renders a completion, its actAs filtered to show (all when
// show is nil).
func (h *Handler) completion(c *ledger.Completion, show []daml.Party) Completion {
	actAs := []string{}
	for _, p := range c.ActAs {
		if show == nil || slices.Contains(show, p) {
			actAs = append(actAs, string(p))
		}
	}
	// A rejection has no update id to derive a missing trace context
	// from; its offset on its participant is as unique.
	traceKey := c.UpdateID
	if traceKey == "" {
		traceKey = "completion/" + string(c.Participant) + "/" + strconv.FormatInt(int64(c.Offset), 10)
	}
	tc := traceContext(traceKey, c.TraceContext)
	out := Completion{
		CommandID: c.CommandID, UpdateID: c.UpdateID, UserID: c.UserID, ActAs: actAs, SubmissionID: c.SubmissionID,
		DeduplicationPeriod: deduplicationPeriod(c.Deduplication), TraceContext: tc, Offset: int64(c.Offset),
		SynchronizerTime: SynchronizerTime{SynchronizerID: string(c.Synchronizer), RecordTime: c.RecordTime.String()},
		Status:           &JsStatus{Details: []ProtoAny{}},
	}
	if !c.Accepted() {
		out.Status = h.rejection(c.Status, c.SubmissionID, traceIDOf(*tc.TraceParent))
	}
	return out
}

func deduplicationPeriod(d ledger.DeduplicationPeriod) DeduplicationPeriod {
	switch d.Kind {
	case ledger.DeduplicationDuration:
		return DeduplicationPeriod{DeduplicationDuration: &Wrapped[Duration]{Value: Duration{
			Seconds: int64(d.Duration / 1e9), Nanos: int32(d.Duration % 1e9), UnknownFields: UnknownFieldSet{Fields: map[string]any{}},
		}}}
	case ledger.DeduplicationOffset:
		return DeduplicationPeriod{DeduplicationOffset: &Wrapped[int64]{Value: int64(d.Offset)}}
	default:
		return DeduplicationPeriod{Empty: &struct{}{}}
	}
}

// rejection renders a rejected submission's status as Canton does: the
// gRPC code of its error code's class, the message
// "CODE(category,correlation): cause", and the details ErrorInfo (the
// code and the context the JsCantonError of the same error has),
// RetryInfo when it may be retried, and RequestInfo (the submission id,
// or the trace id).
func (h *Handler) rejection(f *fault.Error, submissionID, tid string) *JsStatus {
	code, class, cause := classify(f)
	if class.grpc == 0 {
		// A kind the mapping does not know: never report it as OK.
		class = errorClass{category: 4, grpc: grpcInternal}
	}
	correlation := submissionID
	if correlation == "" {
		correlation = "0"
	}
	st := &JsStatus{
		Code:    class.grpc,
		Message: fmt.Sprintf("%s(%d,%.8s): %s", code, class.category, correlation, cause),
		Details: []ProtoAny{errorInfo(code, h.errorContext(code, class, f.Context, tid))},
	}
	if retryOf(class.category) != "" {
		st.Details = append(st.Details, retryInfo(1))
	}
	request := submissionID
	if request == "" {
		request = tid
	}
	if request != "" {
		st.Details = append(st.Details, requestInfo(request))
	}
	return st
}

// The google.rpc error details, with the protobuf encoding of each in the
// Any's value.
const (
	typeErrorInfo   = "type.googleapis.com/google.rpc.ErrorInfo"
	typeRetryInfo   = "type.googleapis.com/google.rpc.RetryInfo"
	typeRequestInfo = "type.googleapis.com/google.rpc.RequestInfo"
)

func noUnknownFields() UnknownFieldSet { return UnknownFieldSet{Fields: map[string]any{}} }

func protoAny(typeURL string, encoded []byte, decoded string) ProtoAny {
	return ProtoAny{TypeURL: typeURL, Value: base64.StdEncoding.EncodeToString(encoded), ValueDecoded: decoded, UnknownFields: noUnknownFields()}
}

// appendString appends a string field, omitted when empty as proto3 does.
func appendString(b []byte, field protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// errorInfo is ErrorInfo{reason: code, metadata}, the map's entries in
// key order (as the text format prints them, too).
func errorInfo(code string, metadata map[string]string) ProtoAny {
	b := appendString(nil, 1, code)
	text := textField("", "reason", code)
	for _, k := range slices.Sorted(maps.Keys(metadata)) {
		entry := appendString(appendString(nil, 1, k), 2, metadata[k])
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendBytes(b, entry)
		text += "metadata {\n" + textField("  ", "key", k) + textField("  ", "value", metadata[k]) + "}\n"
	}
	return protoAny(typeErrorInfo, b, text)
}

// retryInfo is RetryInfo{retry_delay: seconds}.
func retryInfo(seconds int64) ProtoAny {
	delay := protowire.AppendTag(nil, 1, protowire.VarintType)
	delay = protowire.AppendVarint(delay, uint64(seconds))
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, delay)
	return protoAny(typeRetryInfo, b, "retry_delay {\n  seconds: "+strconv.FormatInt(seconds, 10)+"\n}\n")
}

// requestInfo is RequestInfo{request_id: id}.
func requestInfo(id string) ProtoAny {
	return protoAny(typeRequestInfo, appendString(nil, 1, id), textField("", "request_id", id))
}

// textField is a string field in protobuf's text format, on a line of its
// own; an empty one is left out, as proto3 leaves out a default value.
func textField(indent, name, value string) string {
	if value == "" {
		return ""
	}
	return indent + name + ": \"" + textEscape(value) + "\"\n"
}

// textEscape escapes a string as protobuf-java's TextFormat does: the C
// escapes for quotes, backslashes and control characters, and every other
// byte outside printable ASCII (each byte of a multi-byte UTF-8
// character) as a three-digit octal escape.
func textEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\v':
			b.WriteString(`\v`)
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '"':
			b.WriteString(`\"`)
		default:
			if c >= 0x20 && c < 0x7f {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, "\\%03o", c)
			}
		}
	}
	return b.String()
}
