package ledgerapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// The command submission service: POST /v2/commands/submit-and-wait and
// its variants. A request goes through the steps Canton's takes, in its
// order: decoding (400 text/plain), authentication, the JsCommands field
// rules (MISSING_FIELD, INVALID_FIELD), the caller's rights to act and
// read as the named parties (403), the resolution of templates and the
// decoding of their arguments against the types their package describes,
// and then the engine's one submission path, where interpretation,
// authorization and commit happen exactly as for a command built in Go.

// jsCommands is JsCommands as decoded, before validation.
type jsCommands struct {
	Commands           []jsCommand
	CommandID          string
	ActAs, ReadAs      []string
	UserID             string
	WorkflowID         string
	SubmissionID       string
	SynchronizerID     string
	Deduplication      ledger.DeduplicationPeriod
	MinLedgerTimeAbs   string
	MinLedgerTimeRel   *time.Duration
	Disclosed          []jsDisclosed
	PackagePreferences []string
}

// commandKind is the one-of of Command.
type commandKind uint8

const (
	cmdCreate commandKind = iota + 1
	cmdExercise
	cmdCreateAndExercise
	cmdExerciseByKey
)

// jsCommand is one Command; the arguments stay JSON until their types are
// known.
type jsCommand struct {
	Kind           commandKind
	Path           string // "commands[2].ExerciseCommand", for messages
	TemplateID     string
	ContractID     string
	Choice         string
	CreateArgument json.RawMessage
	ChoiceArgument json.RawMessage
	ContractKey    json.RawMessage
}

// jsDisclosed is a DisclosedContract.
type jsDisclosed struct {
	ContractID     string
	TemplateID     string
	Blob           string
	SynchronizerID string
}

// decodeCommands reads the JsCommands object at path (the whole body of
// submit-and-wait, "commands" inside the other requests). Failures are
// decode failures naming the member at fault.
func (d *decoder) commands(path string, obj map[string]any) *jsCommands {
	c := &jsCommands{}
	d.list(path, obj, "commands", func(ip string, item any) {
		o, ok := d.object(ip, item)
		if !ok {
			d.fail(ip, "expected a Command object, got null")
			return
		}
		c.Commands = append(c.Commands, d.command(ip, o))
	})
	c.CommandID, _ = d.stringMember(path, obj, "commandId")
	c.ActAs = d.stringList(path, obj, "actAs")
	c.ReadAs = d.stringList(path, obj, "readAs")
	c.UserID, _ = d.stringMember(path, obj, "userId")
	c.WorkflowID, _ = d.stringMember(path, obj, "workflowId")
	c.SubmissionID, _ = d.stringMember(path, obj, "submissionId")
	c.SynchronizerID, _ = d.stringMember(path, obj, "synchronizerId")
	c.MinLedgerTimeAbs, _ = d.stringMember(path, obj, "minLedgerTimeAbs")
	if rel, ok := d.member(path, obj, "minLedgerTimeRel"); ok {
		dur := d.duration(join(path, "minLedgerTimeRel"), rel)
		c.MinLedgerTimeRel = &dur
	}
	if dp, ok := d.member(path, obj, "deduplicationPeriod"); ok {
		c.Deduplication = d.dedupPeriod(join(path, "deduplicationPeriod"), dp)
	}
	c.PackagePreferences = d.stringList(path, obj, "packageIdSelectionPreference")
	d.list(path, obj, "disclosedContracts", func(ip string, item any) {
		o, ok := d.object(ip, item)
		if !ok {
			return
		}
		var dc jsDisclosed
		dc.ContractID, _ = d.stringMember(ip, o, "contractId")
		dc.TemplateID, _ = d.stringMember(ip, o, "templateId")
		dc.Blob, _ = d.stringMember(ip, o, "createdEventBlob")
		dc.SynchronizerID, _ = d.stringMember(ip, o, "synchronizerId")
		c.Disclosed = append(c.Disclosed, dc)
	})
	return c
}

// list calls each with the path and value of every item of an optional
// array member, until the first failure; absent or null is empty.
func (d *decoder) list(path string, obj map[string]any, name string, each func(itemPath string, item any)) {
	switch v := obj[name].(type) {
	case nil:
	case []any:
		for i, item := range v {
			each(fmt.Sprintf("%s[%d]", join(path, name), i), item)
			if d.err != nil {
				return
			}
		}
	default:
		d.fail(join(path, name), "expected an array, got %s", describe(v))
	}
}

// command reads one Command: an object with exactly one of the four
// command kinds.
func (d *decoder) command(path string, obj map[string]any) jsCommand {
	kinds := map[string]commandKind{
		"CreateCommand": cmdCreate, "ExerciseCommand": cmdExercise,
		"CreateAndExerciseCommand": cmdCreateAndExercise, "ExerciseByKeyCommand": cmdExerciseByKey,
	}
	var cmd jsCommand
	var set []string
	for _, name := range slices.Sorted(mapKeys(obj)) {
		if _, ok := kinds[name]; ok && obj[name] != nil {
			set = append(set, name)
		}
	}
	if len(set) != 1 {
		d.fail(path, "expected exactly one of CreateCommand, ExerciseCommand, CreateAndExerciseCommand, ExerciseByKeyCommand, got %d", len(set))
		return cmd
	}
	name := set[0]
	cmd.Kind, cmd.Path = kinds[name], join(path, name)
	body, ok := d.object(cmd.Path, obj[name])
	if !ok {
		return cmd
	}
	required := func(member string) string {
		s, ok := d.stringMember(cmd.Path, body, member)
		if !ok && d.err == nil {
			d.fail(join(cmd.Path, member), "missing required field")
		}
		return s
	}
	raw := func(member string) json.RawMessage {
		v, present := body[member]
		if !present && d.err == nil {
			d.fail(join(cmd.Path, member), "missing required field")
			return nil
		}
		b, err := json.Marshal(v)
		if err != nil && d.err == nil {
			d.fail(join(cmd.Path, member), "%v", err)
		}
		return b
	}
	cmd.TemplateID = required("templateId")
	switch cmd.Kind {
	case cmdCreate:
		cmd.CreateArgument = raw("createArguments")
	case cmdExercise:
		cmd.ContractID = required("contractId")
		cmd.Choice = required("choice")
		cmd.ChoiceArgument = raw("choiceArgument")
	case cmdCreateAndExercise:
		cmd.CreateArgument = raw("createArguments")
		cmd.Choice = required("choice")
		cmd.ChoiceArgument = raw("choiceArgument")
	case cmdExerciseByKey:
		cmd.ContractKey = raw("contractKey")
		cmd.Choice = required("choice")
		cmd.ChoiceArgument = raw("choiceArgument")
	}
	return cmd
}

// duration reads a protobuf Duration {seconds, nanos}.
func (d *decoder) duration(path string, obj map[string]any) time.Duration {
	secs, _ := d.int64Member(path, obj, "seconds")
	nanos, _ := d.int64Member(path, obj, "nanos")
	const maxSeconds = int64(time.Duration(1<<63-1) / time.Second)
	if secs > maxSeconds || secs < -maxSeconds || nanos <= -1e9 || nanos >= 1e9 {
		d.fail(path, "duration out of range")
		return 0
	}
	return time.Duration(secs)*time.Second + time.Duration(nanos)
}

// dedupPeriod reads the DeduplicationPeriod one-of; Empty, like an
// absent period, leaves it unset. The engine checks its values.
func (d *decoder) dedupPeriod(path string, obj map[string]any) ledger.DeduplicationPeriod {
	if v, ok := d.member(path, obj, "DeduplicationDuration"); ok {
		var dur time.Duration
		if val, ok := d.member(join(path, "DeduplicationDuration"), v, "value"); ok {
			dur = d.duration(join(path, "DeduplicationDuration.value"), val)
		}
		return ledger.DeduplicateFor(dur)
	}
	if v, ok := d.member(path, obj, "DeduplicationOffset"); ok {
		o, _ := d.int64Member(join(path, "DeduplicationOffset"), v, "value")
		return ledger.DeduplicateAfter(ledger.Offset(o))
	}
	return ledger.DeduplicationPeriod{}
}

// submission is a validated JsCommands: the engine command, and what the
// responses need.
type submission struct {
	cmd ledger.Command
	// readers are the actAs and readAs parties: the default transaction
	// format shows their events.
	readers []daml.Party
}

// prepareSubmission validates a JsCommands for the caller, in Canton's
// order, and builds the engine command. A command to prepare for an
// interactive submission (prepare) needs the right to read as its actAs
// and readAs parties; one to submit the right to act as its actAs ones.
func (h *Handler) prepareSubmission(r *http.Request, c caller, jc *jsCommands, prepare bool) (*submission, error) {
	userID, err := submittingUser(c, jc.UserID)
	if err != nil {
		return nil, err
	}
	if len(jc.Commands) == 0 {
		return nil, missingField("commands")
	}
	if jc.CommandID == "" {
		return nil, missingField("command_id")
	}
	if err := checkSubmissionIDs(jc.CommandID, jc.WorkflowID, jc.SubmissionID); err != nil {
		return nil, err
	}
	if len(jc.ActAs) == 0 {
		return nil, missingField("act_as")
	}
	actAs, err := partyList("act_as", jc.ActAs)
	if err != nil {
		return nil, err
	}
	readAs, err := partyList("read_as", jc.ReadAs)
	if err != nil {
		return nil, err
	}
	if jc.MinLedgerTimeAbs != "" && jc.MinLedgerTimeRel != nil {
		return nil, invalidArgument("min_ledger_time_abs and min_ledger_time_rel are both set")
	}
	var minLedgerTime daml.Timestamp
	if jc.MinLedgerTimeAbs != "" {
		if minLedgerTime, err = daml.ParseTimestamp(jc.MinLedgerTimeAbs); err != nil {
			return nil, invalidField("min_ledger_time_abs", "%s is not a timestamp", fault.Quote(jc.MinLedgerTimeAbs))
		}
	}
	var minLedgerTimeRel time.Duration
	if jc.MinLedgerTimeRel != nil {
		if *jc.MinLedgerTimeRel < 0 {
			return nil, invalidField("min_ledger_time_rel", "Duration must be positive")
		}
		minLedgerTimeRel = *jc.MinLedgerTimeRel
	}
	// Rights: acting needs CanActAs for every actAs party, reading
	// CanReadAs (or CanActAs, or CanReadAsAnyParty) for every readAs party
	// and, when preparing, every actAs party.
	for _, p := range actAs {
		if prepare && !c.canRead(p) {
			return nil, permissionDenied(false, "no right to read as %s", p)
		}
		if !prepare && !c.canAct(p) {
			return nil, permissionDenied(false, "no right to act as %s", p)
		}
	}
	for _, p := range readAs {
		if !c.canRead(p) {
			return nil, permissionDenied(false, "no right to read as %s", p)
		}
	}
	run, err := h.commandBody(jc.Commands)
	if err != nil {
		return nil, err
	}
	disclosed, err := h.disclosed(r, jc.Disclosed)
	if err != nil {
		return nil, err
	}
	trace := web.TraceFrom(r.Context())
	return &submission{
		cmd: ledger.Command{
			Participant: h.cfg.Participant, UserID: userID,
			ActAs: actAs, ReadAs: readAs,
			CommandID: jc.CommandID, WorkflowID: jc.WorkflowID,
			SubmissionID: jc.SubmissionID, Deduplication: jc.Deduplication,
			MinLedgerTime: minLedgerTime, MinLedgerTimeRel: minLedgerTimeRel,
			Disclosed:    disclosed,
			Synchronizer: ledger.SynchronizerID(jc.SynchronizerID),
			TraceContext: ledger.TraceContext{TraceParent: trace.TraceParent, TraceState: trace.TraceState},
			Run:          run,
		},
		readers: union(actAs, readAs),
	}, nil
}

// checkSubmissionIDs checks the syntax of a submission's command,
// workflow and submission ids (LedgerStrings); empty ones are left to the
// caller, which requires the command id.
func checkSubmissionIDs(commandID, workflowID, submissionID string) error {
	for _, f := range []struct{ name, value string }{
		{"command_id", commandID}, {"workflow_id", workflowID}, {"submission_id", submissionID},
	} {
		if f.value == "" {
			continue
		}
		if msg := checkLedgerString(f.value); msg != "" {
			return invalidField(f.name, "%s", msg)
		}
	}
	return nil
}

// submittingUser is the user a submission is made as: a user token's
// user, which the request may repeat but not contradict; without
// authentication the request must name one.
func submittingUser(c caller, requested string) (string, error) {
	userID := requested
	if c.user != nil {
		if userID != "" && userID != c.user.ID {
			return "", permissionDenied(false, "user_id %s differs from the token's user %s", fault.Quote(userID), fault.Quote(c.user.ID))
		}
		userID = c.user.ID
	}
	switch {
	case userID == "":
		return "", missingField("user_id")
	case !ledger.ValidUserID(userID):
		return "", invalidField("user_id", "Daml-LF User ID %s is not a valid user id", fault.Quote(userID))
	}
	return userID, nil
}

// partyList checks the syntax of a list of parties.
func partyList(field string, ps []string) ([]daml.Party, error) {
	out := make([]daml.Party, 0, len(ps))
	for _, p := range ps {
		if msg := checkPartySyntax(p); msg != "" {
			return nil, invalidField(field, "%s", msg)
		}
		out = append(out, daml.Party(p))
	}
	return out, nil
}

func union(a, b []daml.Party) []daml.Party {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// disclosed decodes the disclosed contracts. A blob is a contract as the
// ledger API rendered it (createdEventBlob): it must decode, match the
// contract and template ids it is given with, and be a contract of this
// ledger, unchanged; disclosure gives visibility, never authority.
func (h *Handler) disclosed(r *http.Request, ds []jsDisclosed) ([]*ledger.Contract, error) {
	var out []*ledger.Contract
	// The epoch is read before the store is (see disclosedCache).
	epocher, cached := h.cfg.Ledger.(contractEpocher)
	var epoch uint64
	var now time.Time
	if cached && len(ds) > 0 {
		epoch, now = epocher.ContractEpoch(), time.Now()
	}
	for i, d := range ds {
		field := fmt.Sprintf("disclosed_contracts[%d]", i)
		if d.Blob == "" {
			return nil, missingField("created_event_blob")
		}
		if cached {
			if stored := h.disclosedCache.get(d.Blob, epoch, now); stored != nil {
				// The blob decoded to this contract before: the same
				// checks of the ids it is given with, with the same
				// answers.
				if d.ContractID != "" && d.ContractID != string(stored.ID) {
					return nil, invalidArgument("Mismatch between DisclosedContract.contract_id (%s) and contract_id from decoded DisclosedContract.created_event_blob (%s)", fault.Quote(d.ContractID), stored.ID)
				}
				if d.TemplateID != "" && d.TemplateID != stored.Template.Identifier.String() {
					return nil, invalidArgument("Mismatch between DisclosedContract.template_id (%s) and template_id from decoded DisclosedContract.created_event_blob (%s)", fault.Quote(d.TemplateID), stored.Template.Identifier)
				}
				out = append(out, stored)
				continue
			}
		}
		c, err := decodeBlob(d.Blob)
		if err != nil {
			return nil, invalidField(field+".created_event_blob", "the blob does not decode: %v", err)
		}
		if d.ContractID != "" && d.ContractID != string(c.ID) {
			return nil, invalidArgument("Mismatch between DisclosedContract.contract_id (%s) and contract_id from decoded DisclosedContract.created_event_blob (%s)", fault.Quote(d.ContractID), c.ID)
		}
		if d.TemplateID != "" && d.TemplateID != c.Template.Identifier.String() {
			return nil, invalidArgument("Mismatch between DisclosedContract.template_id (%s) and template_id from decoded DisclosedContract.created_event_blob (%s)", fault.Quote(d.TemplateID), c.Template.Identifier)
		}
		stored, _, err := h.cfg.Ledger.Contract(r.Context(), c.ID)
		if err != nil && !fault.Is(err, fault.NotFound) {
			return nil, err
		}
		if stored == nil || !sameContract(stored, c) {
			return nil, invalidField(field+".created_event_blob", "the blob is not a contract of this ledger: %s", c.ID)
		}
		if cached {
			h.disclosedCache.put(d.Blob, stored, epoch, now)
		}
		out = append(out, stored)
	}
	return out, nil
}

// sameContract reports whether a disclosed contract is the stored one:
// same id, template, arguments and parties.
func sameContract(a, b *ledger.Contract) bool {
	return a.ID == b.ID && a.Template.Identifier == b.Template.Identifier &&
		daml.Equal(a.Argument, b.Argument) &&
		slices.Equal(a.Signatories, b.Signatories) && slices.Equal(a.Observers, b.Observers)
}

// SubmitAndWaitResponse answers submit-and-wait.
type SubmitAndWaitResponse struct {
	UpdateID         string `json:"updateId"`
	CompletionOffset int64  `json:"completionOffset"`
}

// JsSubmitAndWaitForTransactionResponse answers
// submit-and-wait-for-transaction.
type JsSubmitAndWaitForTransactionResponse struct {
	Transaction *JsTransaction `json:"transaction"`
}

// JsSubmitAndWaitForTransactionTreeResponse answers the deprecated
// submit-and-wait-for-transaction-tree.
type JsSubmitAndWaitForTransactionTreeResponse struct {
	TransactionTree JsTransactionTree `json:"transactionTree"`
}

// submitted is a committed submission: the transaction and its offset in
// this participant's stream.
type submitted struct {
	tx     *ledger.Transaction
	offset ledger.Offset
	sub    *submission
}

// submission decodes the JsCommands at path in the body's object (the
// object itself when path is "") and validates it for the caller.
func (h *Handler) submission(r *http.Request, c caller, obj map[string]any, path string) (*submission, error) {
	d := &decoder{}
	body := obj
	if path != "" {
		var ok bool
		if body, ok = d.member("", obj, path); !ok && d.err == nil {
			d.fail(path, "missing required field")
		}
	}
	var jc *jsCommands
	if d.err == nil {
		jc = d.commands(path, body)
	}
	if d.err != nil {
		return nil, d.err
	}
	return h.prepareSubmission(r, c, jc, false)
}

// submit submits the JsCommands at path and waits for its transaction.
func (h *Handler) submit(r *http.Request, c caller, obj map[string]any, path string) (*submitted, error) {
	sub, err := h.submission(r, c, obj, path)
	if err != nil {
		return nil, err
	}
	tx, completion, err := h.cfg.Ledger.SubmitAndWait(r.Context(), sub.cmd)
	if err != nil {
		return nil, err
	}
	return &submitted{tx: tx, offset: completion.Offset, sub: sub}, nil
}

func (h *Handler) submitAndWait(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "JsCommands")
	if err != nil {
		return err
	}
	c, err := h.authenticate(r)
	if err != nil {
		return err
	}
	s, err := h.submit(r, c, obj, "")
	if err != nil {
		return err
	}
	return writeJSON(w, SubmitAndWaitResponse{UpdateID: s.tx.UpdateID, CompletionOffset: int64(s.offset)})
}

// SubmitResponse answers an asynchronous submission: empty.
type SubmitResponse struct{}

// submitAsync answers once the command is interpreted and sequencing has
// taken it: refusals before that are answered here, and the outcome is
// the completion in the submitting user's completion stream.
func (h *Handler) submitAsync(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "JsCommands")
	if err != nil {
		return err
	}
	c, err := h.authenticate(r)
	if err != nil {
		return err
	}
	sub, err := h.submission(r, c, obj, "")
	if err != nil {
		return err
	}
	// The submission goes on when the client leaves: it has been handed
	// over, and its completion reports it.
	if err := h.cfg.Ledger.SubmitAsync(context.WithoutCancel(r.Context()), sub.cmd); err != nil {
		return err
	}
	return writeJSON(w, SubmitResponse{})
}

func (h *Handler) submitAndWaitForTransaction(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "JsSubmitAndWaitForTransactionRequest")
	if err != nil {
		return err
	}
	// The format is decoded and validated before the command runs, so that
	// a bad format changes nothing.
	d := &decoder{}
	tf := d.optionalTransactionFormat(obj)
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
	s, err := h.submit(r, c, obj, "commands")
	if err != nil {
		return err
	}
	return h.writeTransaction(w, plan, s)
}

// optionalTransactionFormat reads a request's transactionFormat, or nil
// when it has none.
func (d *decoder) optionalTransactionFormat(obj map[string]any) *transactionFormat {
	if f, ok := d.member("", obj, "transactionFormat"); ok {
		return d.transactionFormat("transactionFormat", f)
	}
	return nil
}

// writeTransaction answers with a submitted transaction as plan selects
// it; without a plan, the ACS_DELTA shape of the submission's readers.
func (h *Handler) writeTransaction(w http.ResponseWriter, plan *updatePlan, s *submitted) error {
	if plan == nil {
		plan = defaultTransactionPlan(s.sub.readers, acsDelta)
	}
	tx, err := h.project(plan, s)
	if err != nil {
		return err
	}
	return writeJSON(w, JsSubmitAndWaitForTransactionResponse{Transaction: tx})
}

func (h *Handler) submitAndWaitForTransactionTree(w http.ResponseWriter, r *http.Request) error {
	obj, err := decodeBody(r, "JsCommands")
	if err != nil {
		return err
	}
	c, err := h.authenticate(r)
	if err != nil {
		return err
	}
	s, err := h.submit(r, c, obj, "")
	if err != nil {
		return err
	}
	plan := defaultTransactionPlan(s.sub.readers, ledgerEffects)
	plan.trees = true
	tx, err := h.project(plan, s)
	if err != nil {
		return err
	}
	return writeJSON(w, JsSubmitAndWaitForTransactionTreeResponse{TransactionTree: treeOf(tx)})
}

// transactionPlan compiles a requested TransactionFormat, checking the
// caller may read what it asks for; nil when none was given.
func (h *Handler) transactionPlan(c caller, tf *transactionFormat) (*updatePlan, error) {
	if tf == nil {
		return nil, nil
	}
	return h.formatPlan(c, &updateFormat{Transactions: tf})
}

// formatPlan compiles the format a command's answer is rendered in, once
// the caller is known to have the right to read what it asks for.
func (h *Handler) formatPlan(c caller, uf *updateFormat) (*updatePlan, error) {
	if err := authorize(c, uf); err != nil {
		return nil, err
	}
	return h.compileLookup(uf)
}

// defaultTransactionPlan is Canton's default transaction format for a
// submission: a wildcard filter for each actAs and readAs party, verbose,
// in the given shape.
func defaultTransactionPlan(readers []daml.Party, sh shape) *updatePlan {
	sel := &selector{byParty: map[daml.Party]*partyFilter{}, parties: readers}
	for _, p := range readers {
		sel.byParty[p] = &partyFilter{wildcard: true}
	}
	return &updatePlan{transactions: sel, shape: sh}
}

// project renders the submitted transaction as the plan selects it. A
// transaction whose events the format filters out entirely is still
// answered, with no events, as Canton answers it.
func (h *Handler) project(plan *updatePlan, s *submitted) (*JsTransaction, error) {
	pr := &projector{plan: plan, reg: h.cfg.Registry, participant: h.cfg.Participant, hosted: h.cfg.Ledger.HostedParties(h.cfg.Participant)}
	tx, err := pr.transaction(s.offset, s.tx)
	if err != nil || tx != nil {
		return tx, err
	}
	return &JsTransaction{
		UpdateID: s.tx.UpdateID, CommandID: s.tx.Submission.CommandID, WorkflowID: s.tx.WorkflowID,
		EffectiveAt: s.tx.EffectiveAt.String(), Events: []Event{}, Offset: int64(s.offset),
		SynchronizerID: string(s.tx.Synchronizer), TraceContext: traceContextOf(s.tx),
		RecordTime: s.tx.RecordTime.String(), ExternalTransactionHash: externalHashOf(s.tx),
	}, nil
}

// decodeBlob decodes a createdEventBlob: base64 of the ledger's contract
// encoding.
func decodeBlob(s string) (*ledger.Contract, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	return ledger.DecodeContract(b)
}

// commandBody resolves the commands' templates and choices and decodes
// their arguments against the types the packages describe, and returns
// the body of the engine command that runs them.
func (h *Handler) commandBody(cmds []jsCommand) (func(*ledger.Tx) error, error) {
	reg := h.cfg.Registry
	out := make([]ledger.APICommand, 0, len(cmds))
	for _, c := range cmds {
		ref, err := parseTemplateRef(c.Path+".templateId", c.TemplateID)
		if err != nil {
			return nil, err
		}
		switch c.Kind {
		case cmdCreate:
			t, err := reg.ResolveTemplate(ref)
			if err != nil {
				return nil, err
			}
			arg, err := decodeArgument(c.CreateArgument, t.Payload)
			if err != nil {
				return nil, err
			}
			out = append(out, ledger.APICommand{Create: &ledger.CreateCommand{Template: ref, Argument: arg}})
		case cmdExercise:
			ch, err := reg.ResolveChoice(ref, c.Choice)
			if err != nil {
				return nil, err
			}
			if c.ContractID == "" {
				return nil, missingField("contract_id")
			}
			arg, err := decodeArgument(c.ChoiceArgument, ch.Choice.Argument)
			if err != nil {
				return nil, err
			}
			out = append(out, ledger.APICommand{Exercise: &ledger.ExerciseCommand{
				Template: ref, ContractID: daml.ContractID(c.ContractID), Choice: c.Choice, Argument: arg}})
		case cmdCreateAndExercise:
			t, err := reg.ResolveTemplate(ref)
			if err != nil {
				return nil, err
			}
			ch, err := reg.ResolveChoice(ref, c.Choice)
			if err != nil {
				return nil, err
			}
			create, err := decodeArgument(c.CreateArgument, t.Payload)
			if err != nil {
				return nil, err
			}
			arg, err := decodeArgument(c.ChoiceArgument, ch.Choice.Argument)
			if err != nil {
				return nil, err
			}
			out = append(out, ledger.APICommand{CreateAndExercise: &ledger.CreateAndExerciseCommand{
				Template: ref, CreateArgument: create, Choice: c.Choice, ChoiceArgument: arg}})
		case cmdExerciseByKey:
			// No template sandnet runs has a key: resolution refuses it as
			// Canton refuses a template without one.
			t, err := reg.ResolveKey(ref)
			if err != nil {
				return nil, err
			}
			ch, err := reg.ResolveChoice(ref, c.Choice)
			if err != nil {
				return nil, err
			}
			key, err := decodeArgument(c.ContractKey, t.Key)
			if err != nil {
				return nil, err
			}
			arg, err := decodeArgument(c.ChoiceArgument, ch.Choice.Argument)
			if err != nil {
				return nil, err
			}
			out = append(out, ledger.APICommand{ExerciseByKey: &ledger.ExerciseByKeyCommand{
				Template: ref, ContractKey: key, Choice: c.Choice, ChoiceArgument: arg}})
		}
	}
	return ledger.RunCommands(out), nil
}

// parseTemplateRef splits a command's template or interface id:
// "#package-name:Module:Entity" or "package-id:Module:Entity". Anything
// else is a decode failure, as for the ids of filters.
func parseTemplateRef(path, s string) (daml.Identifier, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return daml.Identifier{}, undecodable("Invalid value for: body (Invalid identifier format (%s) not matching the expected format (<package>:<moduleName>:<entityName>) at '%s')", fault.Clip(s), path)
	}
	return daml.Identifier{PackageID: parts[0], ModuleName: parts[1], EntityName: parts[2]}, nil
}

// decodeArgument decodes a create or choice argument against its type,
// with the engine's answers to an argument that does not fit it
// (ledger.ArgumentError).
func decodeArgument(data json.RawMessage, t *daml.Type) (daml.Value, error) {
	v, err := daml.LedgerJSONStrict.Decode(data, t)
	if err != nil {
		return nil, ledger.ArgumentError(err)
	}
	return v, nil
}
