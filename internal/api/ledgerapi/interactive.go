package ledgerapi

import (
	"context"
	"encoding/base64"
	"net/http"
	"slices"
	"time"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/interactive"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/signing"
)

// The interactive submission service (/v2/interactive-submission): a
// command is prepared (interpreted, not committed) and handed to the
// client with its hash; the client signs the hash with its parties' keys
// and executes the prepared transaction with the signatures. The engine
// checks and re-interprets it (ledger.Network.ExecuteAndWait).

// The hashing schemes, as the API names them. A protocol-version-34
// participant, which sandnet is, hashes with V2 only.
const (
	hashingV2          = "HASHING_SCHEME_VERSION_V2"
	hashingV3          = "HASHING_SCHEME_VERSION_V3"
	hashingUnspecified = "HASHING_SCHEME_VERSION_UNSPECIFIED"
)

// verboseHashingDisabled is what Canton says in hashingDetails when its
// participant does not trace the hashing.
const v3Unsupported = "Hashing scheme version V3 is not supported on protocol version 34"

// JsPrepareSubmissionResponse answers prepare.
type JsPrepareSubmissionResponse struct {
	PreparedTransaction     string          `json:"preparedTransaction"`
	PreparedTransactionHash string          `json:"preparedTransactionHash"`
	HashingSchemeVersion    string          `json:"hashingSchemeVersion"`
	HashingDetails          *string         `json:"hashingDetails,omitempty"`
	CostEstimation          *CostEstimation `json:"costEstimation,omitempty"`
}

// CostEstimation is a prepared transaction's traffic cost. sandnet's
// synchronizers run without traffic control, so every cost is 0.
type CostEstimation struct {
	EstimationTimestamp                       string `json:"estimationTimestamp"`
	ConfirmationRequestTrafficCostEstimation  int64  `json:"confirmationRequestTrafficCostEstimation"`
	ConfirmationResponseTrafficCostEstimation int64  `json:"confirmationResponseTrafficCostEstimation"`
	TotalTrafficCostEstimation                int64  `json:"totalTrafficCostEstimation"`
}

// minLedgerTime reads the MinLedgerTime message: {"time": one of
// {"MinLedgerTimeAbs": {"value": ts}}, {"MinLedgerTimeRel": {"value":
// Duration}}, {"Empty": {}}}.
func (d *decoder) minLedgerTime(path string, obj map[string]any) (abs string, rel *time.Duration) {
	t, ok := d.member(path, obj, "time")
	if !ok {
		return "", nil
	}
	tp := join(path, "time")
	if v, ok := d.member(tp, t, "MinLedgerTimeAbs"); ok {
		abs, _ = d.stringMember(join(tp, "MinLedgerTimeAbs"), v, "value")
	}
	if v, ok := d.member(tp, t, "MinLedgerTimeRel"); ok {
		if val, ok := d.member(join(tp, "MinLedgerTimeRel"), v, "value"); ok {
			dur := d.duration(join(tp, "MinLedgerTimeRel.value"), val)
			rel = &dur
		}
	}
	return abs, rel
}

func (h *Handler) prepare(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "JsPrepareSubmissionRequest")
	if err != nil {
		return err
	}
	d := &decoder{}
	jc := d.commands("", obj)
	if mlt, ok := d.member("", obj, "minLedgerTime"); ok {
		jc.MinLedgerTimeAbs, jc.MinLedgerTimeRel = d.minLedgerTime("minLedgerTime", mlt)
	}
	verbose, _ := d.boolMember("", obj, "verboseHashing")
	maxRecordTime, _ := d.stringMember("", obj, "maxRecordTime")
	scheme, _ := d.stringMember("", obj, "hashingSchemeVersion")
	costHints, _ := d.member("", obj, "estimateTrafficCost")
	costDisabled, _ := d.boolMember("estimateTrafficCost", costHints, "disabled")
	if d.err != nil {
		return d.err
	}
	c, err := h.authenticate(r)
	if err != nil {
		return err
	}
	sub, err := h.prepareSubmission(r, c, jc, true)
	if err != nil {
		return err
	}
	switch scheme {
	case "", hashingUnspecified, hashingV2:
	case hashingV3:
		return ledger.FailedToPrepare("%s", v3Unsupported)
	default:
		return invalidField("hashing_scheme_version", "unknown hashing scheme version %s", fault.Quote(scheme))
	}
	if len(jc.Commands) > 1 {
		return ledger.FailedToPrepare("Preparing multiple commands is currently not supported")
	}
	var maxRT daml.Timestamp
	if maxRecordTime != "" {
		if maxRT, err = daml.ParseTimestamp(maxRecordTime); err != nil {
			return invalidField("max_record_time", "%s is not a timestamp", fault.Quote(maxRecordTime))
		}
	}
	prep, err := h.cfg.Ledger.Prepare(r.Context(), sub.cmd, maxRT)
	if err != nil {
		return err
	}
	pt, hashes := prep.Transaction, prep.Hashes
	// The trace is built only when asked for: it costs twice the hash
	// itself (a line of hex per item hashed).
	var trace string
	if verbose {
		if _, trace, err = interactive.HashV2Trace(pt); err != nil {
			return ledger.FailedToPrepare("%v", err)
		}
	}
	var cost *CostEstimation
	if !costDisabled {
		cost = &CostEstimation{EstimationTimestamp: daml.Timestamp(pt.Metadata.PreparationTime).String()}
	}
	if !verbose {
		// The protobuf and the answer are built in pooled buffers: both are
		// tens of kilobytes, and the answer is written before this returns.
		pp, ap := getBuffer(), getBuffer()
		pb := interactive.AppendMarshal((*pp)[:0], pt)
		b, err := marshalPrepared((*ap)[:0], pb, hashes.Final[:], cost)
		putBuffer(pp, pb)
		if err != nil {
			putBuffer(ap, b)
			return err
		}
		writeBody(w, http.StatusOK, b)
		putBuffer(ap, b)
		return nil
	}
	return writeJSON(w, JsPrepareSubmissionResponse{
		PreparedTransaction:     base64.StdEncoding.EncodeToString(interactive.Marshal(pt)),
		PreparedTransactionHash: base64.StdEncoding.EncodeToString(hashes.Final[:]),
		HashingSchemeVersion:    hashingV2,
		HashingDetails:          &trace,
		CostEstimation:          cost,
	})
}

// marshalPrepared is the JSON of a JsPrepareSubmissionResponse without
// hashing details, as writeJSON would write it, built directly: the
// prepared transaction is tens of kilobytes of base64, which encoding/json
// would first copy into a string and then check byte by byte for
// characters to escape (base64 has none).
//
// It appends to dst.
func marshalPrepared(dst, prepared, hash []byte, cost *CostEstimation) ([]byte, error) {
	const (
		head = `{"preparedTransaction":"`
		mid  = `","preparedTransactionHash":"`
		tail = `","hashingSchemeVersion":"` + hashingV2 + `"`
	)
	enc := base64.StdEncoding
	b := slices.Grow(dst, len(head)+enc.EncodedLen(len(prepared))+len(mid)+enc.EncodedLen(len(hash))+len(tail)+256)
	b = append(b, head...)
	b = enc.AppendEncode(b, prepared)
	b = append(b, mid...)
	b = enc.AppendEncode(b, hash)
	b = append(b, tail...)
	if cost != nil {
		c, err := marshal(cost)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"costEstimation":`...), c...)
	}
	return append(b, '}'), nil
}

// executeRequest is a decoded JsExecuteSubmissionRequest (and its
// AndWait variants).
type executeRequest struct {
	prepared      string
	hasSignatures bool
	signatures    []jsPartySignatures
	dedup         ledger.DeduplicationPeriod
	submissionID  string
	userID        string
	scheme        string
	minAbs        string
	minRel        *time.Duration
}

type jsPartySignatures struct {
	party      string
	signatures []jsSignature
}

// jsSignature is a Signature as given, its enums still names.
type jsSignature struct {
	path                              string
	format, signature, signedBy, algo string
}

// signature reads a Signature object.
func (d *decoder) signature(path string, o map[string]any) jsSignature {
	s := jsSignature{path: path}
	s.format, _ = d.stringMember(path, o, "format")
	s.signature, _ = d.stringMember(path, o, "signature")
	s.signedBy, _ = d.stringMember(path, o, "signedBy")
	s.algo, _ = d.stringMember(path, o, "signingAlgorithmSpec")
	return s
}

// signatures reads a member that is an array of Signature objects.
func (d *decoder) signatures(path string, obj map[string]any, name string) []jsSignature {
	var out []jsSignature
	d.list(path, obj, name, func(ip string, item any) {
		if o, ok := d.object(ip, item); ok {
			out = append(out, d.signature(ip, o))
		}
	})
	return out
}

func (d *decoder) executeRequest(obj map[string]any) *executeRequest {
	e := &executeRequest{}
	e.prepared, _ = d.stringMember("", obj, "preparedTransaction")
	if ps, ok := d.member("", obj, "partySignatures"); ok {
		e.hasSignatures = true
		d.list("partySignatures", ps, "signatures", func(ip string, item any) {
			o, ok := d.object(ip, item)
			if !ok {
				return
			}
			var p jsPartySignatures
			p.party, _ = d.stringMember(ip, o, "party")
			p.signatures = d.signatures(ip, o, "signatures")
			e.signatures = append(e.signatures, p)
		})
	}
	if dp, ok := d.member("", obj, "deduplicationPeriod"); ok {
		e.dedup = d.dedupPeriod("deduplicationPeriod", dp)
	}
	e.submissionID, _ = d.stringMember("", obj, "submissionId")
	e.userID, _ = d.stringMember("", obj, "userId")
	e.scheme, _ = d.stringMember("", obj, "hashingSchemeVersion")
	if mlt, ok := d.member("", obj, "minLedgerTime"); ok {
		e.minAbs, e.minRel = d.minLedgerTime("minLedgerTime", mlt)
	}
	return e
}

// decodeSignature checks a signature's fields and decodes it.
func decodeSignature(s jsSignature) (signing.Signature, error) {
	// An absent format is the unspecified one, which signing refuses with
	// Canton's message.
	format := signing.SignatureFormatUnspecified
	if s.format != "" {
		var err error
		if format, err = signing.ParseSignatureFormat(s.format); err != nil {
			return signing.Signature{}, invalidField("format", "%v", err)
		}
	}
	if err := format.Check(); err != nil {
		return signing.Signature{}, invalidField("format", "%v", err)
	}
	algo, err := signing.ParseAlgorithm(s.algo)
	if err != nil {
		return signing.Signature{}, invalidField("signing_algorithm_spec", "%v", err)
	}
	b, err := base64.StdEncoding.DecodeString(s.signature)
	if err != nil || len(b) == 0 {
		return signing.Signature{}, invalidField("signature", "the signature is not base64")
	}
	if s.signedBy == "" {
		return signing.Signature{}, missingField("signed_by")
	}
	return signing.Signature{Format: format, Bytes: b, SignedBy: s.signedBy, Algorithm: algo}, nil
}

// executeSpec validates an execute request for the caller and builds the
// engine's execution.
func (h *Handler) executeSpec(r *http.Request, c caller, e *executeRequest) (*ledger.ExecuteSpec, error) {
	if e.prepared == "" {
		return nil, missingField("prepared_transaction")
	}
	if !e.hasSignatures {
		return nil, missingField("parties_signatures")
	}
	switch e.scheme {
	case "", hashingUnspecified:
		return nil, invalidField("hashing_scheme_version", "Unspecified version")
	case hashingV2:
	case hashingV3:
		return nil, fault.WithCode(fault.InvalidArgument, ledger.CodeFailedToExecute,
			"The participant failed to execute the transaction: %s", v3Unsupported)
	default:
		return nil, invalidField("hashing_scheme_version", "unknown hashing scheme version %s", fault.Quote(e.scheme))
	}
	if e.minAbs != "" && e.minRel != nil {
		return nil, invalidArgument("min_ledger_time_abs and min_ledger_time_rel are both set")
	}
	if err := checkSubmissionIDs("", "", e.submissionID); err != nil {
		return nil, err
	}
	userID, err := submittingUser(c, e.userID)
	if err != nil {
		return nil, err
	}
	// Decoded into a pooled buffer: Unmarshal copies every string and
	// byte field it keeps, so nothing refers to raw afterwards.
	p := getBuffer()
	raw, err := base64.StdEncoding.AppendDecode((*p)[:0], []byte(e.prepared))
	if err != nil {
		putBuffer(p, raw)
		return nil, invalidField("prepared_transaction", "the prepared transaction is not base64")
	}
	pt, err := interactive.Unmarshal(raw)
	putBuffer(p, raw)
	if err != nil {
		return nil, invalidArgument("the prepared transaction does not decode: %v", err)
	}
	spec := &ledger.ExecuteSpec{
		Participant: h.cfg.Participant, UserID: userID, SubmissionID: e.submissionID,
		Deduplication: e.dedup, Prepared: pt,
	}
	if spec.SubmissionID == "" {
		spec.SubmissionID = randomUUID()
	}
	if e.minAbs != "" {
		if spec.MinLedgerTime, err = daml.ParseTimestamp(e.minAbs); err != nil {
			return nil, invalidField("min_ledger_time_abs", "%s is not a timestamp", fault.Quote(e.minAbs))
		}
	}
	if e.minRel != nil {
		if *e.minRel < 0 {
			return nil, invalidField("min_ledger_time_rel", "Duration must be positive")
		}
		spec.MinLedgerTimeRel = *e.minRel
	}
	for _, ps := range e.signatures {
		if msg := checkPartySyntax(ps.party); msg != "" {
			return nil, invalidField("party", "%s", msg)
		}
		out := ledger.PartySignatures{Party: daml.Party(ps.party)}
		for _, s := range ps.signatures {
			sig, err := decodeSignature(s)
			if err != nil {
				return nil, err
			}
			out.Signatures = append(out.Signatures, sig)
		}
		spec.Signatures = append(spec.Signatures, out)
	}
	// Executing needs, for every party the transaction acts as, the right
	// to execute (CanExecuteAs, CanExecuteAsAnyParty) or to act as it.
	if pt.Metadata != nil && pt.Metadata.SubmitterInfo != nil {
		for _, p := range pt.Metadata.SubmitterInfo.ActAs {
			if !c.canExecute(p) {
				return nil, permissionDenied(false, "no right to execute as %s", p)
			}
		}
	}
	trace := web.TraceFrom(r.Context())
	spec.TraceContext = ledger.TraceContext{TraceParent: trace.TraceParent, TraceState: trace.TraceState}
	return spec, nil
}

// executeBody decodes, authenticates and validates an execute request.
func (h *Handler) executeBody(r *http.Request, what string) (map[string]any, caller, *ledger.ExecuteSpec, error) {
	obj, err := decodeBody(r, what)
	if err != nil {
		return nil, caller{}, nil, err
	}
	d := &decoder{}
	e := d.executeRequest(obj)
	if d.err != nil {
		return nil, caller{}, nil, d.err
	}
	c, err := h.authenticate(r)
	if err != nil {
		return nil, caller{}, nil, err
	}
	spec, err := h.executeSpec(r, c, e)
	return obj, c, spec, err
}

// ExecuteSubmissionResponse answers execute: empty.
type ExecuteSubmissionResponse struct{}

func (h *Handler) execute(w http.ResponseWriter, r *http.Request) error {
	_, _, spec, err := h.executeBody(r, "JsExecuteSubmissionRequest")
	if err != nil {
		return err
	}
	// Handed over, the execution goes on when the client leaves; its
	// completion reports it.
	if err := h.cfg.Ledger.ExecuteAsync(context.WithoutCancel(r.Context()), *spec); err != nil {
		return err
	}
	return writeJSON(w, ExecuteSubmissionResponse{})
}

func (h *Handler) executeAndWait(w http.ResponseWriter, r *http.Request) error {
	_, _, spec, err := h.executeBody(r, "JsExecuteSubmissionAndWaitRequest")
	if err != nil {
		return err
	}
	_, completion, err := h.cfg.Ledger.ExecuteAndWait(r.Context(), *spec)
	if err != nil {
		return err
	}
	return writeJSON(w, SubmitAndWaitResponse{UpdateID: completion.UpdateID, CompletionOffset: int64(completion.Offset)})
}

func (h *Handler) executeAndWaitForTransaction(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "JsExecuteSubmissionAndWaitForTransactionRequest")
	if err != nil {
		return err
	}
	d := &decoder{}
	tf := d.optionalTransactionFormat(obj)
	e := d.executeRequest(obj)
	if d.err != nil {
		return d.err
	}
	c, err := h.authenticate(r)
	if err != nil {
		return err
	}
	plan, err := h.transactionPlan(c, tf)
	if err != nil {
		return err
	}
	spec, err := h.executeSpec(r, c, e)
	if err != nil {
		return err
	}
	tx, completion, err := h.cfg.Ledger.ExecuteAndWait(r.Context(), *spec)
	if err != nil {
		return err
	}
	// The default format shows the transaction to the parties it acts as.
	return h.writeTransaction(w, plan, &submitted{tx: tx, offset: completion.Offset, sub: &submission{readers: tx.Submission.ActAs}})
}
