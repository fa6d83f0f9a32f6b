package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
)

// Completions and command deduplication, as a Canton participant has them.
//
// A command that reaches the sequencer yields exactly one [Completion] in
// its submitting participant's completion stream: accepted (with the
// transaction's update id), or rejected there (a duplicate, a contention
// loss, submitters no longer hosted). A command refused before that — by
// its validation, interpretation or authorization — yields none: the
// refusal is Submit's error. Every completion has an offset in the
// submitting participant's stream. An accepted one shares the offset of
// its transaction there; a rejected one takes an offset of its own, which
// no update has, so the participant's update stream has a gap there, as
// on Canton.
//
// Deduplication is keyed by the change id (user id, command id, actAs),
// per participant: a command whose change was accepted within its
// deduplication period is rejected with DUPLICATE_COMMAND, naming the
// earlier completion's offset. The sequencer checks it inside the write
// transaction that would commit the command, against the store's
// deduplication index, so it holds across restarts and across processes
// sharing one database. A second submission of a change that is still in
// flight in this process (between Submit's entry and its outcome) is
// refused at once with SUBMISSION_ALREADY_IN_FLIGHT and yields no
// completion.

// DefaultMaxDeduplicationDuration is the deduplication period of a command
// that sets none: Canton's default for a participant's
// init.ledger-api.max-deduplication-duration, 7 days.
const DefaultMaxDeduplicationDuration = 7 * 24 * time.Hour

// Canton's codes for the outcomes of a submission that this package
// produces. The ledger API classifies them (category, gRPC code).
const (
	// CodeDuplicateCommand rejects a command whose change was accepted
	// within its deduplication period (a completion).
	CodeDuplicateCommand = "DUPLICATE_COMMAND"
	// CodeSubmissionInFlight refuses a command whose change is still being
	// submitted (synchronous, no completion).
	CodeSubmissionInFlight = "SUBMISSION_ALREADY_IN_FLIGHT"
	// CodeLockedContracts rejects a command that lost a race for a
	// contract: another command sequenced with it consumed it (a
	// completion).
	CodeLockedContracts = "LOCAL_VERDICT_LOCKED_CONTRACTS"
	// CodeInactiveContracts rejects a command one of whose inputs was
	// archived by a command committed since it was interpreted (a
	// completion).
	CodeInactiveContracts = "LOCAL_VERDICT_INACTIVE_CONTRACTS"
	// CodeNegativeOffset refuses a negative deduplication offset.
	CodeNegativeOffset = "NEGATIVE_OFFSET"
	// CodeInvalidField refuses a field with an invalid value, such as a
	// negative deduplication duration.
	CodeInvalidField = "INVALID_FIELD"
)

// Context keys of the errors above, Canton's.
const (
	// ContextCompletionOffset names, in a DUPLICATE_COMMAND, the offset
	// of the earlier accepted completion.
	ContextCompletionOffset = "completion_offset"
	// ContextChangeID is the change id of the submission, as Canton
	// prints it.
	ContextChangeID = "changeId"
)

// DeduplicationKind says how a [DeduplicationPeriod] is given.
type DeduplicationKind uint8

// The kinds of deduplication period. The numbering is stored (completion
// blobs): append, never reorder.
const (
	// DeduplicationUnset is a period the submission did not set: the
	// participant's maximum deduplication duration applies.
	DeduplicationUnset DeduplicationKind = iota
	// DeduplicationDuration is a period that ends at the submission's
	// record time and lasts Duration.
	DeduplicationDuration
	// DeduplicationOffset is a period that begins after Offset in the
	// submitting participant's completion stream (exclusive).
	DeduplicationOffset
)

// DeduplicationPeriod is how far back a command's change is looked up
// among accepted submissions. The zero value is unset.
type DeduplicationPeriod struct {
	Kind     DeduplicationKind
	Duration time.Duration // for DeduplicationDuration
	Offset   Offset        // for DeduplicationOffset
}

// DeduplicateFor is a period of duration d before the submission.
func DeduplicateFor(d time.Duration) DeduplicationPeriod {
	return DeduplicationPeriod{Kind: DeduplicationDuration, Duration: d}
}

// DeduplicateAfter is the period after offset o of the submitting
// participant's completion stream.
func DeduplicateAfter(o Offset) DeduplicationPeriod {
	return DeduplicationPeriod{Kind: DeduplicationOffset, Offset: o}
}

// check refuses a period no command may have, with Canton's errors.
func (d DeduplicationPeriod) check() error {
	switch d.Kind {
	case DeduplicationUnset:
	case DeduplicationDuration:
		if d.Duration < 0 {
			return fault.WithCode(fault.InvalidArgument, CodeInvalidField,
				"The submitted command has a field with invalid value: Invalid field deduplication_period: Duration must be positive")
		}
	case DeduplicationOffset:
		if d.Offset < 0 {
			return fault.WithCode(fault.InvalidArgument, CodeNegativeOffset,
				"Offset %d in deduplication_period is a negative integer: the deduplication offset has to be a non-negative integer and not %d", d.Offset, d.Offset)
		}
	default:
		return fault.New(fault.InvalidArgument, "unknown deduplication period kind %d", d.Kind)
	}
	return nil
}

// ChangeID identifies a ledger change for deduplication: a digest of the
// user id, the command id and the set of actAs parties. Two submissions
// are the same change exactly when these are equal (actAs in any order).
type ChangeID string

// NewChangeID returns the change id of a submission. actAs is taken as a
// set. A submission without a command id is no change: the result is "",
// and such a submission is not deduplicated.
func NewChangeID(userID, commandID string, actAs []daml.Party) ChangeID {
	if commandID == "" {
		return ""
	}
	// Each part is length-prefixed, so that no two different triples
	// hash the same bytes.
	b := []byte("sandnet/change\x00")
	add := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	add(userID)
	add(commandID)
	parties := union(actAs)
	b = binary.AppendUvarint(b, uint64(len(parties)))
	for _, p := range parties {
		add(string(p))
	}
	h := sha256.Sum256(b)
	return ChangeID(hex.EncodeToString(h[:]))
}

// changeText prints a change id as Canton's error context does.
func changeText(userID, commandID string, actAs []daml.Party) string {
	ps := make([]string, len(actAs))
	for i, p := range actAs {
		ps[i] = string(p)
	}
	return fmt.Sprintf("ChangeId(%s,%s,Set(%s))", userID, commandID, strings.Join(ps, ", "))
}

// optionText prints an optional string as Canton's error context does
// (Scala's Option).
func optionText(s string) string {
	if s == "" {
		return "None"
	}
	return "Some(" + s + ")"
}

// Acceptance is the deduplication index's entry of a change on a
// participant: its latest accepted completion.
type Acceptance struct {
	Offset       Offset
	RecordTime   daml.Timestamp
	SubmissionID string
}

// Completion is the outcome of a submission that reached the sequencer,
// in its submitting participant's completion stream.
type Completion struct {
	Participant ParticipantID
	// Offset is the completion's offset in the participant's stream.
	Offset       Offset
	UserID       string
	CommandID    string
	SubmissionID string
	// ActAs are the submitting parties, sorted and distinct.
	ActAs []daml.Party
	// UpdateID is the accepted transaction's update id; empty when the
	// submission was rejected.
	UpdateID string
	// Status is nil for an accepted submission and the reason for a
	// rejected one (its Kind, Canton's Code, the Message and the
	// Context).
	Status *fault.Error
	// Deduplication is the deduplication period the submission was
	// checked with: for an accepted one, as Canton reports it, the
	// offset after which no acceptance of the change was found (the
	// earlier acceptance that fell out of the period, or 0); for a
	// rejected one, the requested period (the participant's maximum
	// duration when unset).
	Deduplication DeduplicationPeriod
	TraceContext  TraceContext
	// Synchronizer and RecordTime are where and when the sequencer
	// decided; for an accepted submission, its transaction's.
	Synchronizer SynchronizerID
	RecordTime   daml.Timestamp
}

// Accepted reports whether the submission was accepted.
func (c *Completion) Accepted() bool { return c.Status == nil }

// ChangeID returns the change id of the completion's submission.
func (c *Completion) ChangeID() ChangeID {
	return NewChangeID(c.UserID, c.CommandID, c.ActAs)
}

// CompletionQuery selects completions of one participant's stream, in
// offset order.
type CompletionQuery struct {
	Participant ParticipantID
	// UserID, when not empty, keeps the completions of this user's
	// submissions.
	UserID string
	// Parties, when not empty, keeps the completions with at least one of
	// these parties among their ActAs.
	Parties []daml.Party
	// After is exclusive, Until inclusive (0: no bound).
	After, Until Offset
	// Limit caps the result; 0 means no limit.
	Limit int
}

// RejectedError is the error of a submission the sequencer rejected: the
// completion it recorded for it. It unwraps to the completion's Status, so
// fault.As and fault.KindOf see Canton's code, message and context; the
// completion's own offset is in Completion.Offset.
type RejectedError struct {
	Completion *Completion
}

func (e *RejectedError) Error() string { return e.Completion.Status.Error() }

// Unwrap returns the completion's status.
func (e *RejectedError) Unwrap() error { return e.Completion.Status }

// duplicateCommand rejects a submission whose change was accepted at
// earlier within the period.
func duplicateCommand(change string, earlier Acceptance) *fault.Error {
	return &fault.Error{
		Kind: fault.AlreadyExists, Code: CodeDuplicateCommand,
		Message: "Command submission already exists.",
		Context: map[string]string{
			ContextChangeID:         change,
			ContextCompletionOffset: strconv.FormatInt(int64(earlier.Offset), 10),
			"accepted":              "true",
			"existingSubmissionId":  optionText(earlier.SubmissionID),
		},
	}
}

// submissionInFlight refuses a submission whose change is in flight.
func submissionInFlight(change string, other *inFlight) *fault.Error {
	ctx := map[string]string{
		ContextChangeID:        change,
		"existingSubmissionId": optionText(other.submissionID),
	}
	if other.synchronizer != "" {
		ctx["existingSubmissionSynchronizerId"] = string(other.synchronizer)
	}
	return &fault.Error{
		Kind: fault.Aborted, Code: CodeSubmissionInFlight,
		Message: "The submission is already in-flight", Context: ctx,
	}
}

// contractsError is a contention loss: the contracts a transaction used
// that another consumed first, with the verdict's code.
func contractsError(code, what string, ids []daml.ContractID) *fault.Error {
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = string(id)
	}
	joined := strings.Join(list, ", ")
	return &fault.Error{
		Kind: fault.Aborted, Code: code,
		Message: "Rejected transaction is referring to " + what + " contracts [" + joined + "]",
		Context: map[string]string{"CONTRACT_ID": joined},
	}
}

// inFlight is a submission between Submit's entry and its outcome.
type inFlight struct {
	submissionID string
	synchronizer SynchronizerID // once known
}

// flightKey is the in-flight table's key of a change on a participant.
func flightKey(p ParticipantID, change ChangeID) string {
	return string(p) + "\x00" + string(change)
}

// claimFlight registers a submission as in flight, or refuses it when its
// change already is.
func (n *Network) claimFlight(key, change, submissionID string) error {
	n.flightMu.Lock()
	defer n.flightMu.Unlock()
	if other, ok := n.flights[key]; ok {
		return submissionInFlight(change, other)
	}
	n.flights[key] = &inFlight{submissionID: submissionID}
	return nil
}

// flightOn records the synchronizer an in-flight submission goes to.
func (n *Network) flightOn(key string, s SynchronizerID) {
	n.flightMu.Lock()
	defer n.flightMu.Unlock()
	if f := n.flights[key]; f != nil {
		f.synchronizer = s
	}
}

// releaseFlight ends a submission's flight.
func (n *Network) releaseFlight(key string) {
	if key == "" {
		return
	}
	n.flightMu.Lock()
	delete(n.flights, key)
	n.flightMu.Unlock()
}

// deduplicate decides whether p's change was accepted within its period,
// as the sequencer is about to record p at record time now: a
// DUPLICATE_COMMAND (refused) or nil, in which case it records in p the
// period to report. Like Canton, an earlier acceptance is within a
// duration when its record time is at or after now minus the duration,
// and within an offset period when its offset is after the offset.
func (n *Network) deduplicate(ctx context.Context, w WriteTx, p *pending, now daml.Timestamp) (refused *fault.Error, err error) {
	p.reported = DeduplicateAfter(0)
	if p.change == "" {
		return nil, nil
	}
	s := p.tx.Submission
	acc, ok, err := w.LastAcceptance(ctx, s.Participant, p.change)
	if err != nil || !ok {
		return nil, err
	}
	var within bool
	switch d := p.dedup; d.Kind {
	case DeduplicationOffset:
		within = acc.Offset > d.Offset
	default:
		within = acc.RecordTime >= now-daml.Timestamp(d.Duration.Microseconds())
	}
	if within {
		return duplicateCommand(changeText(s.UserID, s.CommandID, s.ActAs), acc), nil
	}
	p.reported = DeduplicateAfter(acc.Offset)
	return nil, nil
}

// rejectAt records a rejected completion of p in its participant's
// stream, at the participant's next offset and the next record time, and
// returns the error Submit answers with. refused is the reason, a
// *fault.Error.
func (n *Network) rejectAt(ctx context.Context, w WriteTx, head *Head, p *pending, refused error) (error, error) {
	why, ok := fault.As(refused)
	if !ok {
		why = fault.Wrap(fault.Internal, refused, "rejected")
	}
	s := p.tx.Submission
	if s.Participant == "" {
		return why, nil // no submitter (a fork's import): no stream to complete in
	}
	head.Offsets[s.Participant]++
	rt := max(n.clock.Now(), head.LastRecordTime+1)
	head.LastRecordTime = rt
	requested := p.dedup
	c := &Completion{
		Participant: s.Participant, Offset: head.Offsets[s.Participant],
		UserID: s.UserID, CommandID: s.CommandID, SubmissionID: p.submissionID, ActAs: s.ActAs,
		Status: why, Deduplication: requested, TraceContext: p.tx.TraceContext,
		Synchronizer: p.tx.Synchronizer, RecordTime: rt,
	}
	if err := w.AppendCompletion(ctx, c); err != nil {
		return nil, err
	}
	p.completion = c
	return &RejectedError{Completion: c}, nil
}

// accept records the accepted completion of p, whose transaction was
// appended with the given offsets: at its offset in the submitting
// participant's stream, or at an offset of its own when the participant
// sees nothing of it.
func (n *Network) accept(ctx context.Context, w WriteTx, head *Head, p *pending, offsets map[ParticipantID]Offset) error {
	t := p.tx
	s := t.Submission
	if s.Participant == "" {
		return nil // no submitter (a fork's import)
	}
	off, ok := offsets[s.Participant]
	if !ok {
		head.Offsets[s.Participant]++
		off = head.Offsets[s.Participant]
	}
	c := &Completion{
		Participant: s.Participant, Offset: off,
		UserID: s.UserID, CommandID: s.CommandID, SubmissionID: p.submissionID, ActAs: s.ActAs,
		UpdateID: t.UpdateID, Deduplication: p.reported, TraceContext: t.TraceContext,
		Synchronizer: t.Synchronizer, RecordTime: t.RecordTime,
	}
	if err := w.AppendCompletion(ctx, c); err != nil {
		return err
	}
	p.completion = c
	return nil
}

// resolved is the period a command is checked with: the maximum
// deduplication duration when it sets none.
func (n *Network) resolved(d DeduplicationPeriod) DeduplicationPeriod {
	if d.Kind == DeduplicationUnset {
		return DeduplicateFor(n.maxDedup)
	}
	return d
}

// blobCompletion is the blob kind of a completion.
const blobCompletion byte = 'K'

// EncodeCompletion serialises a completion for storage. The participant
// and the offset are the store's columns and are not in the blob.
func EncodeCompletion(c *Completion) ([]byte, error) {
	e := getEncoder()
	defer putEncoder(e)
	e.Byte(blobFormat)
	e.Byte(blobCompletion)
	e.String(c.UserID)
	e.String(c.CommandID)
	e.String(c.SubmissionID)
	putParties(e, c.ActAs)
	e.String(c.UpdateID)
	e.Byte(byte(c.Deduplication.Kind))
	e.Varint(int64(c.Deduplication.Duration))
	e.Varint(int64(c.Deduplication.Offset))
	e.String(c.TraceContext.TraceParent)
	e.String(c.TraceContext.TraceState)
	e.String(string(c.Synchronizer))
	e.Varint(int64(c.RecordTime))
	e.Bool(c.Status != nil)
	if s := c.Status; s != nil {
		e.Byte(byte(s.Kind))
		e.String(s.Code)
		e.String(s.Message)
		keys := slices.Sorted(maps.Keys(s.Context))
		e.Uvarint(uint64(len(keys)))
		for _, k := range keys {
			e.String(k)
			e.String(s.Context[k])
		}
	}
	return blob(e), nil
}

// DecodeCompletion reverses [EncodeCompletion]; the caller sets the
// participant and the offset.
func DecodeCompletion(b []byte) (*Completion, error) {
	c, err := decodeCompletion(b)
	if err != nil {
		return nil, fmt.Errorf("decode completion: %w", err)
	}
	return c, nil
}

func decodeCompletion(b []byte) (*Completion, error) {
	d, err := begin(b, blobCompletion)
	if err != nil {
		return nil, err
	}
	c := &Completion{UserID: d.String(), CommandID: d.String(), SubmissionID: d.String()}
	c.ActAs = getParties(d)
	c.UpdateID = d.String()
	c.Deduplication.Kind = DeduplicationKind(d.Byte())
	c.Deduplication.Duration = time.Duration(d.Varint())
	c.Deduplication.Offset = Offset(d.Varint())
	c.TraceContext.TraceParent = d.String()
	c.TraceContext.TraceState = d.String()
	c.Synchronizer = SynchronizerID(d.String())
	c.RecordTime = daml.Timestamp(d.Varint())
	if d.Bool() {
		s := &fault.Error{Kind: fault.Kind(d.Byte()), Code: d.String(), Message: d.String()}
		n := d.Count(2)
		if n > 0 {
			s.Context = make(map[string]string, daml.Prealloc(n))
		}
		for range n {
			k := d.String()
			s.Context[k] = d.String()
		}
		c.Status = s
	}
	if err := end(d); err != nil {
		return nil, err
	}
	if c.Deduplication.Kind > DeduplicationOffset {
		return nil, fmt.Errorf("unknown deduplication kind %d", c.Deduplication.Kind)
	}
	return c, nil
}
