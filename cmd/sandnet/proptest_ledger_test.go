package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// The property test's raw ledger commands: what any ledger API client may
// submit, bypassing the wallet. A user taps through the DevNet faucet
// choice with the rules and round disclosed from Scan, as the wallet SDK
// does; tries to mint itself an amulet by creating one; and tries to
// archive one of its amulets. The last two must be refused with Canton's
// DAML_AUTHORIZATION_ERROR (an amulet is the DSO's as much as its
// owner's), and whatever is answered, supply stays conserved: the checks
// after every step catch a forged or vanished amulet.

const (
	amuletRulesTemplate = "#splice-amulet:Splice.AmuletRules:AmuletRules"
	amuletTemplate      = "#splice-amulet:Splice.Amulet:Amulet"
	scanAPI             = "/api/scan/v0"
)

// scanContract is a contract as Scan serves it, with what disclosure
// needs.
type scanContract struct {
	ContractID       string          `json:"contract_id"`
	TemplateID       string          `json:"template_id"`
	Payload          json.RawMessage `json:"payload"`
	CreatedEventBlob string          `json:"created_event_blob"`
}

type disclosedContract struct {
	ContractID       string `json:"contractId"`
	TemplateID       string `json:"templateId"`
	CreatedEventBlob string `json:"createdEventBlob"`
	SynchronizerID   string `json:"synchronizerId,omitempty"`
}

func (c scanContract) disclosed(sync string) disclosedContract {
	return disclosedContract{ContractID: c.ContractID, TemplateID: c.TemplateID, CreatedEventBlob: c.CreatedEventBlob, SynchronizerID: sync}
}

// tapContext reads from Scan the amulet rules and the open round a tap
// names: the latest round already open at ledger time.
func (r *propRun) tapContext() (rules, round disclosedContract, err error) {
	var ar struct {
		Update struct {
			Contract scanContract `json:"contract"`
			DomainID string       `json:"domain_id"`
		} `json:"amulet_rules_update"`
	}
	if _, err := r.want200("scan amulet rules", "POST", scanAPI+"/amulet-rules", "", map[string]any{}, &ar); err != nil {
		return rules, round, err
	}
	var rounds struct {
		Open map[string]struct {
			Contract scanContract `json:"contract"`
			DomainID string       `json:"domain_id"`
		} `json:"open_mining_rounds"`
	}
	noneCached := map[string]any{"cached_open_mining_round_contract_ids": []string{}, "cached_issuing_round_contract_ids": []string{}}
	if _, err := r.want200("scan rounds", "POST", scanAPI+"/open-and-issuing-mining-rounds", "", noneCached, &rounds); err != nil {
		return rules, round, err
	}
	now, err := r.now()
	if err != nil {
		return rules, round, err
	}
	var best time.Time
	for _, o := range rounds.Open {
		var p struct {
			OpensAt string `json:"opensAt"`
		}
		if json.Unmarshal(o.Contract.Payload, &p) != nil {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, p.OpensAt)
		if err != nil || at.UnixMicro() > int64(now) || (!best.IsZero() && !at.After(best)) {
			continue
		}
		best, round = at, o.Contract.disclosed(o.DomainID)
	}
	if best.IsZero() {
		return rules, round, fail("no open round", "Scan lists no mining round open at %s", now)
	}
	return ar.Update.Contract.disclosed(ar.Update.DomainID), round, nil
}

// ledgerSubmit posts a JsCommands to submit-and-wait as u.
func (r *propRun) ledgerSubmit(label string, u *propUser, commandID string, commands []any, disclosed []disclosedContract) (int, []byte, error) {
	body := map[string]any{"commands": commands, "commandId": commandID, "actAs": []string{u.party}}
	if len(disclosed) > 0 {
		body["disclosedContracts"] = disclosed
	}
	return r.call(label, "POST", "/v2/commands/submit-and-wait", u.token, body)
}

func (r *propRun) ledgerTap(o op) error {
	u := r.user(o.user)
	var code int
	var data []byte
	// The round Scan names may close (archived by the DSO's automation)
	// between the read and the tap: the ledger then refuses the tap for
	// that contract, and a client reads the context again and retries.
	for attempt := 1; ; attempt++ {
		rules, round, err := r.tapContext()
		if err != nil {
			return err
		}
		cmd := map[string]any{"ExerciseCommand": map[string]any{
			"templateId": amuletRulesTemplate, "contractId": rules.ContractID, "choice": "AmuletRules_DevNet_Tap",
			"choiceArgument": map[string]any{"receiver": u.party, "amount": o.amount.lit, "openRound": round.ContractID},
		}}
		code, data, err = r.ledgerSubmit("ledger tap", u, fmt.Sprintf("prop-tap-%d-%d", o.step, attempt), []any{cmd}, []disclosedContract{rules, round})
		if err != nil {
			return err
		}
		if attempt == 10 || !staleContract(code, data) {
			break
		}
		time.Sleep(time.Duration(attempt) * 20 * time.Millisecond)
	}
	want, why := amountWant(o.amount)
	if o.amount.class == amtMalformed {
		// The wallet API's amount rule is not the ledger API's: Daml JSON
		// takes a Numeric in any decimal notation ("1e5"), as Canton does.
		want, why = any2or4, "200 or a 4xx"
	}
	return wantCode("ledger tap", code, data, want, why)
}

// ledgerForge has a user create an amulet of its own: the DSO is a
// signatory, so the ledger must refuse it.
func (r *propRun) ledgerForge(o op) error {
	u := r.user(o.user)
	cmd := map[string]any{"CreateCommand": map[string]any{
		"templateId": amuletTemplate,
		"createArguments": map[string]any{
			"dso": r.dso, "owner": u.party,
			"amount": map[string]any{"initialAmount": o.amount.lit, "createdAt": map[string]any{"number": "0"}, "ratePerRound": map[string]any{"rate": "0.0"}},
		},
	}}
	code, data, err := r.ledgerSubmit("ledger forge", u, fmt.Sprint("prop-forge-", o.step), []any{cmd}, nil)
	if err != nil {
		return err
	}
	return wantRefusal("ledger forge", code, data, o.amount.class == amtMalformed)
}

// ledgerArchive has a user archive one of its amulets: the DSO is a
// signatory, so the ledger must refuse it.
func (r *propRun) ledgerArchive(o op) error {
	u := r.user(o.user)
	var am walletAmulets
	if _, err := r.get("amulets", validatorAPI+"/wallet/amulets", u.token, &am); err != nil {
		return err
	}
	if len(am.Amulets) == 0 {
		return nil
	}
	cid := am.Amulets[o.other%len(am.Amulets)].Contract.Contract.ContractID
	cmd := map[string]any{"ExerciseCommand": map[string]any{
		"templateId": amuletTemplate, "contractId": cid, "choice": "Archive", "choiceArgument": map[string]any{},
	}}
	code, data, err := r.ledgerSubmit("ledger archive", u, fmt.Sprint("prop-archive-", o.step), []any{cmd}, nil)
	if err != nil {
		return err
	}
	// The amulet may have been merged away since it was listed.
	if code == 404 {
		return nil
	}
	return wantRefusal("ledger archive", code, data, false)
}

// wantRefusal checks that a command a user may not submit was refused for
// want of authority; a malformed argument may be refused before that.
func wantRefusal(label string, code int, data []byte, malformed bool) error {
	var e struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(data, &e)
	switch {
	// The template's ensure runs before the authority check, as in Daml:
	// an amount the ensure refuses is refused for that.
	case code == 400 && (e.Code == "DAML_AUTHORIZATION_ERROR" || e.Code == "TEMPLATE_PRECONDITION_VIOLATED"):
		return nil
	case malformed && is4xx(code):
		return nil
	}
	return fail(label+" not refused for authority", "%s answered %d, want 400 DAML_AUTHORIZATION_ERROR: %s", label, code, short(string(data)))
}

// staleContract reports whether the ledger refused a command for using a
// contract that another transaction archived, or was archiving, at the
// same time: a race with the DSO's automation, not a broken property.
func staleContract(code int, data []byte) bool {
	return code >= 400 && code < 500 && (bytes.Contains(data, []byte("LOCKED_CONTRACTS")) || bytes.Contains(data, []byte("INACTIVE_CONTRACTS")))
}
