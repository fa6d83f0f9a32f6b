package main

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/interactive"
	"github.com/sandnet/sandnet/internal/signing"
)

// The property test's external parties: each user may hold one, whose key
// the test keeps, as a wallet does. It taps through the interactive
// submission service: prepare, sign the hash, execute. Sometimes the test
// plays the party cheating on its own transaction: it raises the amount
// the tap creates, re-hashes and re-signs, which the re-interpretation at
// execution must refuse (LOCAL_VERDICT_FAILED_MODEL_CONFORMANCE_CHECK);
// the supply check after every step catches a cheat that got through.

// propExternal is a user's external party and its key.
type propExternal struct {
	party string
	key   ed25519.PrivateKey
	fp    string
}

// externalOf returns user u's external party, onboarding it on first use
// with an Ed25519 key derived from the user's name: generate-topology, the
// multi-hash signed, allocate with the user given the right to act as it.
func (r *propRun) externalOf(u *propUser) (*propExternal, error) {
	if x := r.external[u.name]; x != nil {
		return x, nil
	}
	seed := sha256.Sum256([]byte("proptest-external/" + u.name))
	key := ed25519.NewKeyFromSeed(seed[:])
	pub := key.Public().(ed25519.PublicKey)
	k, err := signing.ParsePublicKey(signing.KeyFormatRaw, pub, signing.KeySpecCurve25519)
	if err != nil {
		return nil, err
	}
	x := &propExternal{key: key, fp: k.Fingerprint()}
	sync := string(r.sn.seeded.Synchronizer)
	var g struct {
		PartyID              string   `json:"partyId"`
		TopologyTransactions []string `json:"topologyTransactions"`
		MultiHash            string   `json:"multiHash"`
	}
	if _, err := r.want200("generate-topology", "POST", "/v2/parties/external/generate-topology", u.token, map[string]any{
		"synchronizer": sync, "partyHint": "ext-" + u.name,
		"publicKey": map[string]string{"format": "CRYPTO_KEY_FORMAT_RAW", "keyData": base64.StdEncoding.EncodeToString(pub), "keySpec": "SIGNING_KEY_SPEC_EC_CURVE25519"},
	}, &g); err != nil {
		return nil, err
	}
	mh, err := base64.StdEncoding.DecodeString(g.MultiHash)
	if err != nil {
		return nil, fail("generate-topology", "multiHash %q is not base64", g.MultiHash)
	}
	var txs []map[string]string
	for _, t := range g.TopologyTransactions {
		txs = append(txs, map[string]string{"transaction": t})
	}
	if _, err := r.want200("allocate external party", "POST", "/v2/parties/external/allocate", r.admin, map[string]any{
		"synchronizer": sync, "onboardingTransactions": txs, "multiHashSignatures": []any{x.signature(mh)}, "userId": u.name,
	}, nil); err != nil {
		return nil, err
	}
	x.party = g.PartyID
	if r.external == nil {
		r.external = map[string]*propExternal{}
	}
	r.external[u.name] = x
	return x, nil
}

func (x *propExternal) signature(data []byte) map[string]string {
	return map[string]string{
		"format": "SIGNATURE_FORMAT_CONCAT", "signature": base64.StdEncoding.EncodeToString(ed25519.Sign(x.key, data)),
		"signedBy": x.fp, "signingAlgorithmSpec": "SIGNING_ALGORITHM_SPEC_ED25519",
	}
}

// externalTap taps for a user's external party by interactive submission;
// o.other > 0 cheats: the prepared amulet's amount is doubled and the
// transaction re-signed, which must be refused.
func (r *propRun) externalTap(o op) error {
	// As for a ledger tap (ledgerTap), the round Scan names may close
	// between the read and the execution: read it again and retry.
	for attempt := 1; ; attempt++ {
		err := r.externalTapOnce(o, attempt)
		if err != errStaleContract || attempt == 10 {
			if err == errStaleContract {
				return fail("external tap", "a contract of the tap's context was archived 10 times in a row")
			}
			return err
		}
		time.Sleep(time.Duration(attempt) * 20 * time.Millisecond)
	}
}

// errStaleContract is an attempt that raced an archival (staleContract).
var errStaleContract = errors.New("a contract of the command was archived meanwhile")

func (r *propRun) externalTapOnce(o op, attempt int) error {
	u := r.user(o.user)
	x, err := r.externalOf(u)
	if err != nil {
		return err
	}
	rules, round, err := r.tapContext()
	if err != nil {
		return err
	}
	cmd := map[string]any{"ExerciseCommand": map[string]any{
		"templateId": amuletRulesTemplate, "contractId": rules.ContractID, "choice": "AmuletRules_DevNet_Tap",
		"choiceArgument": map[string]any{"receiver": x.party, "amount": o.amount.lit, "openRound": round.ContractID},
	}}
	code, data, err := r.call("external prepare", "POST", "/v2/interactive-submission/prepare", u.token, map[string]any{
		"commands": []any{cmd}, "commandId": fmt.Sprintf("prop-ext-tap-%d-%d", o.step, attempt), "actAs": []string{x.party},
		"disclosedContracts": []disclosedContract{rules, round},
	})
	if err != nil {
		return err
	}
	if staleContract(code, data) {
		return errStaleContract
	}
	want, why := amountWant(o.amount)
	if o.amount.class == amtMalformed {
		want, why = any2or4, "200 or a 4xx"
	}
	if err := wantCode("external prepare", code, data, want, why); err != nil || code != 200 {
		return err
	}
	var prep struct {
		PreparedTransaction     string `json:"preparedTransaction"`
		PreparedTransactionHash string `json:"preparedTransactionHash"`
	}
	if err := json.Unmarshal(data, &prep); err != nil {
		return fail("external prepare", "answer does not decode: %v", err)
	}
	raw, err := base64.StdEncoding.DecodeString(prep.PreparedTransaction)
	if err != nil {
		return fail("external prepare", "preparedTransaction is not base64")
	}
	pt, err := interactive.Unmarshal(raw)
	if err != nil {
		return fail("external prepare", "the prepared transaction does not decode: %v", err)
	}
	h, err := interactive.HashV2(pt)
	if err != nil {
		return fail("external prepare", "the prepared transaction does not hash: %v", err)
	}
	if base64.StdEncoding.EncodeToString(h.Final[:]) != prep.PreparedTransactionHash {
		return fail("external prepare hash", "the hash of the prepared transaction is not the answer's")
	}
	cheat := o.other > 0 && raiseAmulet(pt)
	if cheat {
		if h, err = interactive.HashV2(pt); err != nil {
			return fail("external cheat", "the edited transaction does not hash: %v", err)
		}
		prep.PreparedTransaction = base64.StdEncoding.EncodeToString(interactive.Marshal(pt))
	}
	code, data, err = r.call("external execute", "POST", "/v2/interactive-submission/executeAndWait", u.token, map[string]any{
		"preparedTransaction": prep.PreparedTransaction,
		"partySignatures": map[string]any{"signatures": []any{map[string]any{
			"party": x.party, "signatures": []any{x.signature(h.Final[:])},
		}}},
		"submissionId": fmt.Sprintf("prop-ext-%d-%d", o.step, attempt), "hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2",
	})
	if err != nil {
		return err
	}
	if staleContract(code, data) {
		return errStaleContract
	}
	if !cheat {
		return wantCode("external execute", code, data, is200, "200 for a tap prepared and signed as it is")
	}
	var e struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(data, &e)
	if code != 400 || e.Code != "LOCAL_VERDICT_FAILED_MODEL_CONFORMANCE_CHECK" {
		return fail("external cheat not refused", "an edited, re-signed tap answered %d: %s", code, short(string(data)))
	}
	return nil
}

// raiseAmulet doubles the initial amount of the first amulet a prepared
// transaction creates; it reports whether there was one.
func raiseAmulet(pt *interactive.PreparedTransaction) bool {
	for _, n := range pt.Transaction.Nodes {
		c := n.Create
		if c == nil || c.TemplateID.EntityName != "Amulet" {
			continue
		}
		arg, ok := c.Argument.(*daml.Record)
		if !ok {
			return false
		}
		for _, f := range arg.Fields {
			amt, ok := f.Value.(*daml.Record)
			if f.Label != "amount" || !ok || len(amt.Fields) == 0 {
				continue
			}
			n, ok := amt.Fields[0].Value.(daml.Numeric)
			if !ok {
				return false
			}
			doubled, err := n.Add(n)
			if err != nil {
				return false
			}
			amt.Fields[0].Value = doubled
			return true
		}
	}
	return false
}
