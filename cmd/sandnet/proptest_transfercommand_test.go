package main

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The property test's legacy transfer commands: a user's external party
// is set up through the validator's setup proposal (once), then signs a
// TransferCommand to another user's party through prepare-send and
// submit-send, with the nonce the Scan's counter gives. The validator's
// automation sends it in the background; whatever it does (send, fail on
// a spent nonce, wait for funds), the supply check after the step must
// hold, and the Scan must report the command.

// setupExternal runs the setup proposal flow for x, unless its party has
// a pre-approval already.
func (r *propRun) setupExternal(x *propExternal) error {
	if r.preapproved[x.party] {
		return nil
	}
	code, data, err := r.call("setup proposal", "POST", validatorAPI+"/admin/external-party/setup-proposal", r.admin,
		map[string]string{"user_party_id": x.party})
	if err != nil {
		return err
	}
	if code == 409 && strings.Contains(string(data), "TransferPreapproval contract already exists") {
		r.markPreapproved(x.party)
		return nil
	}
	if err := wantCode("setup proposal", code, data, is200, "200 for a party without a pre-approval or proposal"); err != nil {
		return err
	}
	var created struct {
		ContractID string `json:"contract_id"`
	}
	if err := json.Unmarshal(data, &created); err != nil {
		return fail("setup proposal", "answer does not decode: %v", err)
	}
	var prep struct {
		Transaction string `json:"transaction"`
		TxHash      string `json:"tx_hash"`
	}
	if _, err := r.want200("prepare-accept", "POST", validatorAPI+"/admin/external-party/setup-proposal/prepare-accept", r.admin,
		map[string]string{"contract_id": created.ContractID, "user_party_id": x.party}, &prep); err != nil {
		return err
	}
	if _, err := r.want200("submit-accept", "POST", validatorAPI+"/admin/external-party/setup-proposal/submit-accept", r.admin,
		x.submission(prep.Transaction, prep.TxHash), nil); err != nil {
		return err
	}
	r.markPreapproved(x.party)
	return nil
}

func (r *propRun) markPreapproved(p string) {
	if r.preapproved == nil {
		r.preapproved = map[string]bool{}
	}
	r.preapproved[p] = true
}

// submission is the body of a submit endpoint: the prepared transaction
// with x's signature of its hash.
func (x *propExternal) submission(tx, hash string) map[string]any {
	h, _ := hex.DecodeString(hash)
	return map[string]any{"submission": map[string]string{
		"party_id": x.party, "transaction": tx, "signed_tx_hash": hex.EncodeToString(ed25519.Sign(x.key, h)),
		"public_key": hex.EncodeToString(x.key.Public().(ed25519.PublicKey)),
	}}
}

// nextNonce reads the sender's counter through the scan-proxy: 0 when it
// has none.
func (r *propRun) nextNonce(sender string) (int64, error) {
	code, data, err := r.call("transfer command counter", "GET", validatorAPI+"/scan-proxy/transfer-command-counter/"+url.PathEscape(sender), r.admin, nil)
	if err != nil || code == 404 {
		return 0, err
	}
	if err := wantCode("transfer command counter", code, data, is200, "200 or 404"); err != nil {
		return 0, err
	}
	var c struct {
		TransferCommandCounter struct {
			Contract struct {
				Payload struct {
					NextNonce json.Number `json:"nextNonce"`
				} `json:"payload"`
			} `json:"contract"`
		} `json:"transfer_command_counter"`
	}
	d := json.NewDecoder(strings.NewReader(string(data)))
	d.UseNumber()
	if err := d.Decode(&c); err != nil {
		return 0, fail("transfer command counter", "answer does not decode: %v", err)
	}
	n, err := strconv.ParseInt(strings.Trim(c.TransferCommandCounter.Contract.Payload.NextNonce.String(), `"`), 10, 64)
	if err != nil {
		return 0, fail("transfer command counter", "nextNonce %q is not a number", c.TransferCommandCounter.Contract.Payload.NextNonce)
	}
	return n, nil
}

// transferCommand has user o.user's external party send o.amount to user
// o.other's party (or its external party) through a TransferCommand.
func (r *propRun) transferCommand(o op) error {
	u := r.user(o.user)
	x, err := r.externalOf(u)
	if err != nil {
		return err
	}
	if err := r.setupExternal(x); err != nil {
		return err
	}
	// Half the time the receiver is the other user's external party, set
	// up (and so pre-approved) if it is not yet; else the user's own
	// party, pre-approved only if the user asked for it.
	receiver := r.user(o.other).party
	if o.step%2 == 1 {
		rx, err := r.externalOf(r.user(o.other))
		if err != nil {
			return err
		}
		if err := r.setupExternal(rx); err != nil {
			return err
		}
		receiver = rx.party
	}
	nonce, err := r.nextNonce(x.party)
	if err != nil {
		return err
	}
	// A number literal goes as a JSON number; anything else as a string,
	// which the validator refuses.
	amount := json.RawMessage(strconv.Quote(o.amount.lit))
	if json.Valid([]byte(o.amount.lit)) && o.amount.lit != "" && (o.amount.lit[0] == '-' || o.amount.lit[0] >= '0' && o.amount.lit[0] <= '9') {
		amount = json.RawMessage(o.amount.lit)
	}
	now, err := r.now()
	if err != nil {
		return err
	}
	expires := time.UnixMicro(int64(now) + time.Hour.Microseconds()).UTC().Format(time.RFC3339Nano)
	code, data, err := r.call("prepare-send", "POST", validatorAPI+"/admin/external-party/transfer-preapproval/prepare-send", r.admin, map[string]any{
		"sender_party_id": x.party, "receiver_party_id": receiver, "amount": amount, "expires_at": expires, "nonce": nonce,
		"description": fmt.Sprint("tc-", o.step),
	})
	if err != nil {
		return err
	}
	if code == 400 && strings.Contains(string(data), "does not have a TransferPreapproval") {
		// The receiver has none, or the Scan the validator asks has not
		// yet ingested the one just created: the model is left as it is.
		return nil
	}
	want, why := amountWant(o.amount)
	if err := wantCode("prepare-send", code, data, want, why); err != nil || code != 200 {
		return err
	}
	var prep struct {
		Transaction string `json:"transaction"`
		TxHash      string `json:"tx_hash"`
		Prefix      string `json:"transfer_command_contract_id_prefix"`
	}
	if err := json.Unmarshal(data, &prep); err != nil {
		return fail("prepare-send", "answer does not decode: %v", err)
	}
	if _, err := r.want200("submit-send", "POST", validatorAPI+"/admin/external-party/transfer-preapproval/submit-send", r.admin,
		x.submission(prep.Transaction, prep.TxHash), nil); err != nil {
		return err
	}
	// The Scan ingests in the background: the command shows up shortly.
	status := fmt.Sprintf("%s/scan-proxy/transfer-command/status?sender=%s&nonce=%d", validatorAPI, url.QueryEscape(x.party), nonce)
	// The validator's automation sends the command at once, or, when the
	// sender lacks the funds, retries until it expires, as Splice's does.
	// A pending command would spend the sender's holdings whenever they
	// next suffice, under the inputs a later step picked for that party:
	// the sender withdraws it instead, as a client whose transfer cannot
	// go through does.
	withdrawAt := time.Now().Add(2 * time.Second)
	deadline := time.Now().Add(10 * time.Second)
	withdrawn := false
	for {
		code, data, err := r.call("transfer command status", "GET", status, r.admin, nil)
		if err != nil {
			return err
		}
		cid, st := commandStatus(data, prep.Prefix)
		if code == 200 && st != "" && st != "created" {
			return nil
		}
		if code != 200 && code != 404 || time.Now().After(deadline) {
			return fail("transfer command status", "the Scan does not report the command %s sent or failed: %d %s", prep.Prefix, code, short(string(data)))
		}
		if cid != "" && !withdrawn && time.Now().After(withdrawAt) {
			cmd := map[string]any{"ExerciseCommand": map[string]any{
				"templateId": transferCommandTemplate, "contractId": cid, "choice": "TransferCommand_Withdraw", "choiceArgument": map[string]any{},
			}}
			code, data, err := r.submitAs("transfer command withdraw", propActor{u: u, party: x.party, ext: x}, fmt.Sprint("tc-withdraw-", o.step), []any{cmd}, nil)
			if err != nil {
				return err
			}
			// It may have been sent meanwhile: the status says which.
			if code != 200 && code != 404 && !staleContract(code, data) {
				return fail("transfer command withdraw", "withdrawing a pending command answered %d: %s", code, short(string(data)))
			}
			withdrawn = true
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// transferCommandTemplate is the template of a TransferCommand.
const transferCommandTemplate = "#splice-amulet:Splice.ExternalPartyAmuletRules:TransferCommand"

// commandStatus finds, in a transfer-command status answer, the command
// whose contract id starts with prefix: its id and status ("" if absent).
func commandStatus(data []byte, prefix string) (cid, status string) {
	var st struct {
		Commands map[string]struct {
			Status struct {
				Status string `json:"status"`
			} `json:"status"`
		} `json:"transfer_commands_by_contract_id"`
	}
	if json.Unmarshal(data, &st) != nil {
		return "", ""
	}
	for id, c := range st.Commands {
		if strings.HasPrefix(id, prefix) {
			return id, c.Status.Status
		}
	}
	return "", ""
}
