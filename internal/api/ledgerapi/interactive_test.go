package ledgerapi_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/interactive"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/signing"
	"github.com/sandnet/sandnet/internal/topology"
)

// external is an external party a test onboarded: its id and the key it
// holds.
type external struct {
	party string
	key   ed25519.PrivateKey
	fp    string
}

// keyOf is a deterministic Ed25519 key per name, so that goldens are
// reproducible.
func keyOf(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("ledgerapi-test-key/" + name))
	return ed25519.NewKeyFromSeed(seed[:])
}

// fingerprints memoizes fingerprintOf, as a client holds its keys'
// fingerprints: parsing the key (which checks its point) costs the
// benchmarks' clients as much as signing.
var fingerprints sync.Map // string(public key) → fingerprint

// fingerprintOf is the fingerprint of an Ed25519 public key.
func fingerprintOf(t testing.TB, pub ed25519.PublicKey) string {
	t.Helper()
	if fp, ok := fingerprints.Load(string(pub)); ok {
		return fp.(string)
	}
	k, err := signing.ParsePublicKey(signing.KeyFormatRaw, pub, signing.KeySpecCurve25519)
	if err != nil {
		t.Fatal(err)
	}
	fp := k.Fingerprint()
	fingerprints.Store(string(pub), fp)
	return fp
}

// sig is a Signature object of data by key.
func sig(t testing.TB, key ed25519.PrivateKey, data []byte) string {
	t.Helper()
	return `{"format":"SIGNATURE_FORMAT_CONCAT","signature":"` + base64.StdEncoding.EncodeToString(ed25519.Sign(key, data)) +
		`","signedBy":"` + fingerprintOf(t, key.Public().(ed25519.PublicKey)) + `","signingAlgorithmSpec":"SIGNING_ALGORITHM_SPEC_ED25519"}`
}

// generateBody is a generate-topology request for an external party with
// name's key; extra is spliced in after the key's member.
func (e *env) generateBody(hint, name, extra string) string {
	pub := keyOf(name).Public().(ed25519.PublicKey)
	return `{"synchronizer":"` + string(e.seeded.Synchronizer) + `","partyHint":"` + hint +
		`","publicKey":{"format":"CRYPTO_KEY_FORMAT_RAW","keyData":"` + base64.StdEncoding.EncodeToString(pub) +
		`","keySpec":"SIGNING_KEY_SPEC_EC_CURVE25519"}` + extra + `}`
}

// generate asks the participant under prefix for the topology of an
// external party with name's key, as the wallet SDK does.
func (e *env) generate(t testing.TB, prefix, hint, name, extra string) ledgerapi.GenerateExternalPartyTopologyResponse {
	t.Helper()
	rec := e.post(t, options{}, prefix+"/v2/parties/external/generate-topology", "alice", e.generateBody(hint, name, extra))
	if rec.Code != http.StatusOK {
		t.Fatalf("generate-topology: %d %s", rec.Code, rec.Body)
	}
	var g ledgerapi.GenerateExternalPartyTopologyResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// allocateBody is the allocate request of generated transactions, signed
// over their multi-hash by key.
func (e *env) allocateBody(t testing.TB, g ledgerapi.GenerateExternalPartyTopologyResponse, key ed25519.PrivateKey, userID string) string {
	t.Helper()
	mh, err := base64.StdEncoding.DecodeString(g.MultiHash)
	if err != nil {
		t.Fatal(err)
	}
	var txs []string
	for _, tx := range g.TopologyTransactions {
		txs = append(txs, `{"transaction":"`+tx+`"}`)
	}
	user := ""
	if userID != "" {
		user = `,"userId":"` + userID + `"`
	}
	return `{"synchronizer":"` + string(e.seeded.Synchronizer) + `","onboardingTransactions":[` + strings.Join(txs, ",") +
		`],"multiHashSignatures":[` + sig(t, key, mh) + `],"identityProviderId":""` + user + `}`
}

// onboard onboards an external party hosted on the validator participant
// and gives user alice the right to act as it.
func (e *env) onboard(t testing.TB, hint string) external {
	t.Helper()
	key := keyOf(hint)
	g := e.generate(t, "", hint, hint, "")
	rec := e.post(t, options{}, "/v2/parties/external/allocate", "participant_admin", e.allocateBody(t, g, key, "alice"))
	if rec.Code != http.StatusOK {
		t.Fatalf("allocate: %d %s", rec.Code, rec.Body)
	}
	return external{party: g.PartyID, key: key, fp: g.PublicKeyFingerprint}
}

// prepared is a prepare answer, decoded.
type prepared struct {
	b64  string
	hash []byte
	pt   *interactive.PreparedTransaction
}

// prepare prepares a JsPrepareSubmissionRequest as alice.
func (e *env) prepare(t testing.TB, body string) prepared {
	t.Helper()
	rec := e.post(t, options{}, "/v2/interactive-submission/prepare", "alice", body)
	if rec.Code != http.StatusOK {
		t.Fatalf("prepare: %d %s", rec.Code, rec.Body)
	}
	p, err := decodePrepared(rec.Body.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(p.b64)
	if err != nil {
		t.Fatal(err)
	}
	if p.pt, err = interactive.Unmarshal(raw); err != nil {
		t.Fatal(err)
	}
	h, err := interactive.HashV2(p.pt)
	if err != nil {
		t.Fatal(err)
	}
	if string(h.Final[:]) != string(p.hash) {
		t.Fatalf("the hash of the decoded prepared transaction differs from the answer's")
	}
	return p
}

// decodePrepared decodes a prepare answer as far as a client that signs
// it needs: the prepared transaction as given and its hash (pt is left
// nil).
func decodePrepared(body []byte) (prepared, error) {
	var resp ledgerapi.JsPrepareSubmissionResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return prepared{}, err
	}
	hash, err := base64.StdEncoding.DecodeString(resp.PreparedTransactionHash)
	if err != nil {
		return prepared{}, err
	}
	return prepared{b64: resp.PreparedTransaction, hash: hash}, nil
}

// executeBody is an execute request of a prepared transaction signed by x.
func executeBody(t testing.TB, p prepared, x external, submissionID string) string {
	t.Helper()
	return `{"preparedTransaction":"` + p.b64 + `","partySignatures":{"signatures":[{"party":"` + x.party + `","signatures":[` +
		sig(t, x.key, p.hash) + `]}]},"submissionId":"` + submissionID + `","hashingSchemeVersion":"HASHING_SCHEME_VERSION_V2"}`
}

// pingBody is a prepare request creating a Ping from x to bob.
func pingBody(x external, commandID string) string {
	return `{"commands":[{"CreateCommand":{"templateId":"` + pingTemplate + `","createArguments":{"id":"` + commandID +
		`","initiator":"` + x.party + `","responder":"{bob}"}}}],"commandId":"` + commandID + `","actAs":["` + x.party + `"]}`
}

// tapBody is a prepare request of a DevNet tap of amount for x, the
// DSO's contracts disclosed.
func (e *env) tapBody(t testing.TB, x external, commandID, amount string) string {
	t.Helper()
	ac, err := splice.LoadAmuletContext(t.Context(), e.net.Store(), e.seeded.DSOParty, e.net.Clock().Now())
	if err != nil {
		t.Fatal(err)
	}
	var disclosed []string
	for _, c := range ac.Disclosed() {
		blob, err := ledger.EncodeContract(c)
		if err != nil {
			t.Fatal(err)
		}
		disclosed = append(disclosed, `{"contractId":"`+string(c.ID)+`","templateId":"`+c.Template.Identifier.String()+
			`","createdEventBlob":"`+base64.StdEncoding.EncodeToString(blob)+`","synchronizerId":""}`)
	}
	return `{"commands":[{"ExerciseCommand":{"templateId":"#splice-amulet:Splice.AmuletRules:AmuletRules","contractId":"` +
		string(ac.AmuletRules.ID) + `","choice":"AmuletRules_DevNet_Tap","choiceArgument":{"receiver":"` + x.party +
		`","amount":"` + amount + `","openRound":"` + string(ac.OpenRound.ID) + `"}}}],"commandId":"` + commandID +
		`","actAs":["` + x.party + `"],"disclosedContracts":[` + strings.Join(disclosed, ",") + `]}`
}

// acceptOfferBody has alice offer x 5 CC, expiring in an hour, and
// returns a prepare request of x accepting it: a choice that reads the
// ledger time.
func (e *env) acceptOfferBody(t testing.TB, x external) string {
	t.Helper()
	alice := e.party("alice")
	offer := splice.TransferOffer{
		Sender: alice, Receiver: daml.Party(x.party), DSO: e.seeded.DSOParty,
		Amount:      splice.PaymentAmount{Amount: daml.MustNumeric("5.0"), Unit: splice.AmuletUnit},
		Description: "lunch", ExpiresAt: e.net.Clock().Now() + daml.Timestamp(time.Hour/time.Microsecond), TrackingID: "offer-1",
	}
	tx, err := e.net.Submit(t.Context(), ledger.Command{
		Participant: e.seeded.Validator.Participant, UserID: "alice", ActAs: []daml.Party{alice}, CommandID: "offer-1",
		Run: func(tx *ledger.Tx) error { _, err := ledger.Create(tx, offer); return err },
	})
	if err != nil {
		t.Fatal(err)
	}
	return `{"commands":[{"ExerciseCommand":{"templateId":"#splice-wallet:Splice.Wallet.TransferOffer:TransferOffer","contractId":"` +
		string(tx.Created()[0].ID) + `","choice":"TransferOffer_Accept","choiceArgument":{}}}],"commandId":"accept-1","actAs":["` + x.party + `"]}`
}

// resign re-encodes an edited prepared transaction and signs its new
// hash, as a client holding the party's key can.
func resign(t testing.TB, p prepared) prepared {
	t.Helper()
	h, err := interactive.HashV2(p.pt)
	if err != nil {
		t.Fatal(err)
	}
	return prepared{b64: base64.StdEncoding.EncodeToString(interactive.Marshal(p.pt)), hash: h.Final[:], pt: p.pt}
}

// amuletCreate returns the argument of the first Amulet the prepared
// transaction creates.
func amuletCreate(t testing.TB, p prepared) *daml.Record {
	t.Helper()
	for _, n := range p.pt.Transaction.Nodes {
		if c := n.Create; c != nil && c.TemplateID.EntityName == "Amulet" {
			return c.Argument.(*daml.Record)
		}
	}
	t.Fatal("the prepared transaction creates no Amulet")
	return nil
}

// TestInteractiveSubmission onboards external parties and prepares,
// signs and executes their transactions, as allowed and refused, each
// case on a network of its own: the status, Canton's error code, the
// golden response and its conformance to the document.
func TestInteractiveSubmission(t *testing.T) {
	t.Parallel()
	s := mustSpec(t)
	golden := apitest.OpenGolden(t, "interactive", *update)
	// A case's run does its setup and returns the request to check.
	type request struct{ path, user, body string }
	cases := []struct {
		name   string
		run    func(t *testing.T, e *env) request
		status int
		code   string
		// after checks the ledger once the request is answered.
		after func(t *testing.T, e *env)
	}{
		{name: "generate the topology of an external party", status: 200,
			run: func(t *testing.T, e *env) request {
				pub := keyOf("carol").Public().(ed25519.PublicKey)
				return request{"/v2/parties/external/generate-topology", "alice", `{"synchronizer":"` + string(e.seeded.Synchronizer) +
					`","partyHint":"carol","publicKey":{"format":"CRYPTO_KEY_FORMAT_RAW","keyData":"` + base64.StdEncoding.EncodeToString(pub) +
					`","keySpec":"SIGNING_KEY_SPEC_EC_CURVE25519"}}`}
			}},
		{name: "allocate an external party", status: 200,
			run: func(t *testing.T, e *env) request {
				g := e.generate(t, "", "carol", "carol", "")
				return request{"/v2/parties/external/allocate", "participant_admin", e.allocateBody(t, g, keyOf("carol"), "alice")}
			},
			after: func(t *testing.T, e *env) {
				rec := httptest.NewRecorder()
				e.handler(options{}).ServeHTTP(rec, newRequest(http.MethodGet, "/v2/parties/"+carol(t), bearer(t, "participant_admin"), ""))
				if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"isLocal":true`) {
					t.Errorf("the party is not local: %d %s", rec.Code, rec.Body)
				}
			}},
		{name: "allocate with a signature that does not verify", status: 400, code: "TOPOLOGY_INVALID_TX_SIGNATURE",
			run: func(t *testing.T, e *env) request {
				g := e.generate(t, "", "carol", "carol", "")
				body := e.allocateBody(t, g, keyOf("carol"), "")
				// carol's key signs something else.
				good := sig(t, keyOf("carol"), mustB64(t, g.MultiHash))
				return request{"/v2/parties/external/allocate", "participant_admin", strings.Replace(body, good, sig(t, keyOf("carol"), []byte("something else")), 1)}
			}},
		{name: "allocate with a signature by another key", status: 400, code: "TOPOLOGY_UNAUTHORIZED_TRANSACTION",
			run: func(t *testing.T, e *env) request {
				g := e.generate(t, "", "carol", "carol", "")
				return request{"/v2/parties/external/allocate", "participant_admin", e.allocateBody(t, g, keyOf("mallory"), "")}
			},
			after: func(t *testing.T, e *env) {
				if hs := e.net.HostingsOf(daml.Party(carol(t))); len(hs) != 0 {
					t.Errorf("the refused party is hosted: %v", hs)
				}
			}},
		{name: "allocate a party hosted on two participants, on the first", status: 200,
			run: func(t *testing.T, e *env) request {
				g := e.generate(t, "", "carol", "carol", `,"otherConfirmingParticipantUids":["`+uidOf(e.seeded.SVs[0].Participant)+`"]`)
				return request{"/v2/parties/external/allocate", "participant_admin", e.allocateBody(t, g, keyOf("carol"), "")}
			},
			after: func(t *testing.T, e *env) {
				// Hosted nowhere until the second participant approves.
				if hs := e.net.HostingsOf(daml.Party(carol(t))); len(hs) != 0 {
					t.Errorf("hosted before every participant approved: %v", hs)
				}
			}},
		{name: "allocate a party hosted on two participants, on the second", status: 200,
			run: func(t *testing.T, e *env) request {
				g := e.generate(t, "", "carol", "carol", `,"otherConfirmingParticipantUids":["`+uidOf(e.seeded.SVs[0].Participant)+`"]`)
				body := e.allocateBody(t, g, keyOf("carol"), "")
				if rec := e.post(t, options{}, "/v2/parties/external/allocate", "participant_admin", body); rec.Code != 200 {
					t.Fatalf("allocate on the validator: %d %s", rec.Code, rec.Body)
				}
				return request{"/sv/1/v2/parties/external/allocate", e.seeded.SVs[0].OperatorUser, body}
			},
			after: func(t *testing.T, e *env) {
				hs := e.net.HostingsOf(daml.Party(carol(t)))
				if len(hs) != 2 {
					t.Fatalf("hostings %v, want the validator's and SV 1's", hs)
				}
				for _, h := range hs {
					if h.Permission != ledger.PermissionConfirmation {
						t.Errorf("hosted with %s: %v", h.Permission, h)
					}
				}
			}},
		{name: "the onboarding in the party's updates", status: 200,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.expand(pingBody(x, "c1")))
				if rec := e.post(t, options{}, "/v2/interactive-submission/executeAndWait", "alice", executeBody(t, p, x, "s1")); rec.Code != 200 {
					t.Fatalf("execute: %d %s", rec.Code, rec.Body)
				}
				return request{"/v2/updates", "alice", `{"beginExclusive":0,"updateFormat":{"includeTransactions":{"eventFormat":{"filtersByParty":{"` + x.party +
					`":{"cumulative":[]}},"verbose":true},"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA"},"includeTopologyEvents":{"includeParticipantAuthorizationEvents":{"parties":["` + x.party + `"]}}}}`}
			}},
		{name: "allocate the 3.4-style set (namespace delegation, party-to-key, party-to-participant)", status: 200,
			run: func(t *testing.T, e *env) request {
				pub := keyOf("carol").Public().(ed25519.PublicKey)
				k, err := signing.ParsePublicKey(signing.KeyFormatRaw, pub, signing.KeySpecCurve25519)
				if err != nil {
					t.Fatal(err)
				}
				g, err := topology.GenerateLegacy(topology.GenerateRequest{PartyHint: "carol", PublicKey: k, LocalParticipantUID: uidOf(e.seeded.Validator.Participant)})
				if err != nil {
					t.Fatal(err)
				}
				resp := ledgerapi.GenerateExternalPartyTopologyResponse{PartyID: g.PartyID, PublicKeyFingerprint: g.Fingerprint, MultiHash: base64.StdEncoding.EncodeToString(g.MultiHash)}
				for _, tx := range g.Serialized {
					resp.TopologyTransactions = append(resp.TopologyTransactions, base64.StdEncoding.EncodeToString(tx))
				}
				return request{"/v2/parties/external/allocate", "participant_admin", e.allocateBody(t, resp, keyOf("carol"), "alice")}
			},
			after: func(t *testing.T, e *env) {
				// Its key, from the party-to-key mapping, signs its
				// transactions.
				x := external{party: carol(t), key: keyOf("carol")}
				p := e.prepare(t, e.expand(pingBody(x, "c1")))
				if rec := e.post(t, options{}, "/v2/interactive-submission/executeAndWait", "alice", executeBody(t, p, x, "s1")); rec.Code != 200 {
					t.Errorf("execute as the 3.4-style party: %d %s", rec.Code, rec.Body)
				}
			}},
		{name: "an ECDSA P-256 party executes a ping", status: 200,
			run: func(t *testing.T, e *env) request {
				priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
				if err != nil {
					t.Fatal(err)
				}
				spki, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
				if err != nil {
					t.Fatal(err)
				}
				k, err := signing.ParsePublicKey(signing.KeyFormatSPKI, spki, signing.KeySpecP256)
				if err != nil {
					t.Fatal(err)
				}
				fp := k.Fingerprint()
				ecSig := func(data []byte) string {
					d := sha256.Sum256(data)
					der, err := ecdsa.SignASN1(rand.Reader, priv, d[:])
					if err != nil {
						t.Fatal(err)
					}
					return `{"format":"SIGNATURE_FORMAT_DER","signature":"` + base64.StdEncoding.EncodeToString(der) +
						`","signedBy":"` + fp + `","signingAlgorithmSpec":"SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256"}`
				}
				rec := e.post(t, options{}, "/v2/parties/external/generate-topology", "alice", `{"synchronizer":"`+string(e.seeded.Synchronizer)+
					`","partyHint":"erin","publicKey":{"format":"CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO","keyData":"`+base64.StdEncoding.EncodeToString(spki)+
					`","keySpec":"SIGNING_KEY_SPEC_EC_P256"}}`)
				if rec.Code != 200 {
					t.Fatalf("generate: %d %s", rec.Code, rec.Body)
				}
				var g ledgerapi.GenerateExternalPartyTopologyResponse
				if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil {
					t.Fatal(err)
				}
				body := `{"synchronizer":"` + string(e.seeded.Synchronizer) + `","onboardingTransactions":[{"transaction":"` + g.TopologyTransactions[0] +
					`"}],"multiHashSignatures":[` + ecSig(mustB64(t, g.MultiHash)) + `],"userId":"alice"}`
				if rec := e.post(t, options{}, "/v2/parties/external/allocate", "participant_admin", body); rec.Code != 200 {
					t.Fatalf("allocate: %d %s", rec.Code, rec.Body)
				}
				p := e.prepare(t, e.expand(pingBody(external{party: g.PartyID}, "c1")))
				return request{"/v2/interactive-submission/executeAndWait", "alice", `{"preparedTransaction":"` + p.b64 +
					`","partySignatures":{"signatures":[{"party":"` + g.PartyID + `","signatures":[` + ecSig(p.hash) +
					`]}]},"submissionId":"s1","hashingSchemeVersion":"HASHING_SCHEME_VERSION_V2"}`}
			}},
		{name: "create and exercise", status: 200,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, `{"commands":[{"CreateAndExerciseCommand":{"templateId":"`+pingTemplate+`","createArguments":{"id":"x","initiator":"`+x.party+
					`","responder":"`+x.party+`"},"choice":"Respond","choiceArgument":{}}}],"commandId":"c1","actAs":["`+x.party+`"]}`)
				if len(p.pt.Transaction.Roots) != 2 {
					t.Errorf("roots %v, want the create and the exercise", p.pt.Transaction.Roots)
				}
				return request{"/v2/interactive-submission/executeAndWaitForTransaction", "alice", executeBody(t, p, x, "s1")}
			}},
		{name: "an input contract edited, re-hashed and re-signed", status: 400, code: ledger.CodeModelConformance,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.tapBody(t, x, "t1", "10.0"))
				// The rules' first field is the DSO party: the client
				// claims another.
				in := p.pt.Metadata.InputContracts[0].Create.Argument.(*daml.Record)
				in.Fields[0].Value = daml.Party(x.party)
				return request{"/v2/interactive-submission/executeAndWait", "alice", executeBody(t, resign(t, p), x, "s1")}
			}},
		{name: "allocate an external party twice", status: 409, code: ledger.CodeExternalPartyAlreadyExists,
			run: func(t *testing.T, e *env) request {
				e.onboard(t, "carol")
				g := e.generate(t, "", "carol", "carol", "")
				return request{"/v2/parties/external/allocate", "participant_admin", e.allocateBody(t, g, keyOf("carol"), "")}
			}},
		{name: "prepare a ping", status: 200,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				return request{"/v2/interactive-submission/prepare", "alice", e.expand(pingBody(x, "c1"))}
			}},
		{name: "prepare a tap, verbose", status: 200,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				body := strings.Replace(e.tapBody(t, x, "t1", "10.0"), `"commandId"`, `"verboseHashing":true,"commandId"`, 1)
				return request{"/v2/interactive-submission/prepare", "alice", body}
			}},
		{name: "prepare with hashing scheme V3", status: 400, code: ledger.CodeFailedToPrepare,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				body := strings.Replace(e.expand(pingBody(x, "c1")), `"commandId"`, `"hashingSchemeVersion":"HASHING_SCHEME_VERSION_V3","commandId"`, 1)
				return request{"/v2/interactive-submission/prepare", "alice", body}
			}},
		{name: "prepare two commands", status: 400, code: ledger.CodeFailedToPrepare,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				body := e.expand(pingBody(x, "c1"))
				i := strings.Index(body, `],"commandId"`)
				one := body[len(`{"commands":[`):i]
				return request{"/v2/interactive-submission/prepare", "alice", `{"commands":[` + one + "," + one + body[i:]}
			}},
		{name: "prepare without the right to read as the party", status: 403, code: "PERMISSION_DENIED",
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				return request{"/v2/interactive-submission/prepare", "bob", e.expand(pingBody(x, "c1"))}
			}},
		{name: "execute and wait", status: 200,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.expand(pingBody(x, "c1")))
				return request{"/v2/interactive-submission/executeAndWait", "alice", executeBody(t, p, x, "s1")}
			}},
		{name: "execute and wait for the transaction", status: 200,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.expand(pingBody(x, "c1")))
				return request{"/v2/interactive-submission/executeAndWaitForTransaction", "alice", executeBody(t, p, x, "s1")}
			}},
		{name: "execute a tap and wait for the transaction", status: 200,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.tapBody(t, x, "t1", "10.0"))
				return request{"/v2/interactive-submission/executeAndWaitForTransaction", "alice", executeBody(t, p, x, "s1")}
			}},
		{name: "execute without waiting", status: 200,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.expand(pingBody(x, "c1")))
				return request{"/v2/interactive-submission/execute", "alice", executeBody(t, p, x, "s1")}
			},
			after: func(t *testing.T, e *env) {
				// The outcome is the completion in alice's stream.
				deadline := time.Now().Add(10 * time.Second)
				for {
					rec := e.post(t, options{wait: 50 * time.Millisecond}, "/v2/commands/completions", "alice", `{"parties":["`+carol(t)+`"],"beginExclusive":0}`)
					if rec.Code != 200 {
						t.Fatalf("completions: %d %s", rec.Code, rec.Body)
					}
					if b := rec.Body.String(); strings.Contains(b, `"commandId":"c1"`) && strings.Contains(b, `"submissionId":"s1"`) && strings.Contains(b, `"updateId":"1220`) {
						return
					}
					if time.Now().After(deadline) {
						t.Fatalf("no accepted completion of c1: %s", rec.Body)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}},
		{name: "a time-dependent transaction executed two minutes after its preparation", status: 400, code: ledger.CodeLedgerTimeOutOfBound,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				// Accepting an offer reads the time (has it expired?).
				p := e.prepare(t, e.acceptOfferBody(t, x))
				if md := p.pt.Metadata; md.MinLedgerEffectiveTime == nil || md.MaxLedgerEffectiveTime == nil ||
					*md.MinLedgerEffectiveTime != md.PreparationTime || *md.MaxLedgerEffectiveTime != md.PreparationTime {
					t.Errorf("accepting an offer reads the time, but its ledger time is not pinned: %+v", md)
				}
				if _, err := e.net.AdvanceClock(t.Context(), 2*time.Minute); err != nil {
					t.Fatal(err)
				}
				return request{"/v2/interactive-submission/executeAndWait", "alice", executeBody(t, p, x, "s1")}
			}},
		{name: "a time-dependent transaction executed at once", status: 200,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.acceptOfferBody(t, x))
				return request{"/v2/interactive-submission/executeAndWaitForTransaction", "alice", executeBody(t, p, x, "s1")}
			}},
		{name: "a prepared transaction is not time-dependent unless it reads the time", status: 200,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.tapBody(t, x, "t1", "10.0"))
				if md := p.pt.Metadata; md.MinLedgerEffectiveTime != nil || md.MaxLedgerEffectiveTime != nil {
					t.Errorf("a tap does not read the time, but its ledger time is bounded")
				}
				if _, err := e.net.AdvanceClock(t.Context(), 2*time.Minute); err != nil {
					t.Fatal(err)
				}
				return request{"/v2/interactive-submission/executeAndWait", "alice", executeBody(t, p, x, "s1")}
			}},
		{name: "executed after its maximum record time", status: 400, code: ledger.CodeMaxRecordTimeExceeded,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				maxRT := e.net.Clock().Now() + daml.Timestamp(10*time.Second/time.Microsecond)
				p := e.prepare(t, strings.Replace(e.expand(pingBody(x, "c1")), `"commandId"`, `"maxRecordTime":"`+maxRT.String()+`","commandId"`, 1))
				if _, err := e.net.AdvanceClock(t.Context(), time.Minute); err != nil {
					t.Fatal(err)
				}
				return request{"/v2/interactive-submission/executeAndWait", "alice", executeBody(t, p, x, "s1")}
			}},
		{name: "a signature by another key", status: 400, code: ledger.CodeFailedToExecute,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.expand(pingBody(x, "c1")))
				x.key = keyOf("mallory")
				return request{"/v2/interactive-submission/executeAndWait", "alice", executeBody(t, p, x, "s1")}
			}},
		{name: "a tampered transaction under the original signature", status: 400, code: ledger.CodeFailedToExecute,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.tapBody(t, x, "t1", "10.0"))
				body := executeBody(t, p, x, "s1")
				setAmount(t, amuletCreate(t, p), "1000000.0")
				edited := resign(t, p)
				return request{"/v2/interactive-submission/executeAndWait", "alice", strings.Replace(body, p.b64, edited.b64, 1)}
			}},
		{name: "a tampered transaction, re-hashed and re-signed", status: 400, code: ledger.CodeModelConformance,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.tapBody(t, x, "t1", "10.0"))
				setAmount(t, amuletCreate(t, p), "1000000.0")
				return request{"/v2/interactive-submission/executeAndWait", "alice", executeBody(t, resign(t, p), x, "s1")}
			},
			after: func(t *testing.T, e *env) {
				if n := e.amulets(t, daml.Party(carol(t))); n != 0 {
					t.Errorf("the refused tap created %d amulets", n)
				}
			}},
		{name: "no signature of the acting party", status: 400, code: ledger.CodeFailedToExecute,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.expand(pingBody(x, "c1")))
				body := strings.Replace(executeBody(t, p, x, "s1"), `"party":"`+x.party, `"party":"`+string(e.party("bob")), 1)
				return request{"/v2/interactive-submission/executeAndWait", "alice", body}
			}},
		{name: "an unspecified hashing scheme", status: 400, code: "INVALID_FIELD",
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.expand(pingBody(x, "c1")))
				return request{"/v2/interactive-submission/executeAndWait", "alice",
					strings.Replace(executeBody(t, p, x, "s1"), "HASHING_SCHEME_VERSION_V2", "HASHING_SCHEME_VERSION_UNSPECIFIED", 1)}
			}},
		{name: "a preparation a day old", status: 400, code: ledger.CodePreparationTimeOutOfBound,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.expand(pingBody(x, "c1")))
				if _, err := e.net.AdvanceClock(t.Context(), 25*time.Hour); err != nil {
					t.Fatal(err)
				}
				return request{"/v2/interactive-submission/executeAndWait", "alice", executeBody(t, p, x, "s1")}
			}},
		{name: "a consumed input", status: 404, code: ledger.CodeInactiveContracts,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				rec := e.post(t, options{}, "/v2/commands/submit-and-wait-for-transaction", "alice",
					`{"commands":`+e.expand(createPing("p2", "{alice}", "{alice}", x.party))+`}`)
				if rec.Code != 200 {
					t.Fatalf("create a ping to carol: %d %s", rec.Code, rec.Body)
				}
				cid := createdID(t, rec)
				respond := `{"commands":[{"ExerciseCommand":{"templateId":"` + pingTemplate + `","contractId":"` + cid +
					`","choice":"Respond","choiceArgument":{}}}],"commandId":"r1","actAs":["` + x.party + `"]}`
				first := e.prepare(t, respond)
				second := e.prepare(t, strings.Replace(respond, `"r1"`, `"r2"`, 1))
				if rec := e.post(t, options{}, "/v2/interactive-submission/executeAndWait", "alice", executeBody(t, first, x, "s1")); rec.Code != 200 {
					t.Fatalf("the first response: %d %s", rec.Code, rec.Body)
				}
				return request{"/v2/interactive-submission/executeAndWait", "alice", executeBody(t, second, x, "s2")}
			}},
		{name: "execute the same transaction twice", status: 409, code: ledger.CodeDuplicateCommand,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.expand(pingBody(x, "c1")))
				if rec := e.post(t, options{}, "/v2/interactive-submission/executeAndWait", "alice", executeBody(t, p, x, "s1")); rec.Code != 200 {
					t.Fatalf("the first execution: %d %s", rec.Code, rec.Body)
				}
				return request{"/v2/interactive-submission/executeAndWait", "alice", executeBody(t, p, x, "s2")}
			}},
		{name: "execute with CanExecuteAs only", status: 200,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.expand(pingBody(x, "c1")))
				e.grant(t, userExecutor, ledger.Right{Kind: ledger.CanExecuteAs, Party: daml.Party(x.party)})
				return request{"/v2/interactive-submission/executeAndWait", userExecutor, executeBody(t, p, x, "s1")}
			}},
		{name: "execute without the right to", status: 403, code: "PERMISSION_DENIED",
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				p := e.prepare(t, e.expand(pingBody(x, "c1")))
				return request{"/v2/interactive-submission/executeAndWait", "bob", executeBody(t, p, x, "s1")}
			}},
		{name: "submit as an external party", status: 404, code: ledger.CodeNoSynchronizerForSubmission,
			run: func(t *testing.T, e *env) request {
				x := e.onboard(t, "carol")
				return request{"/v2/commands/submit-and-wait", "alice", e.expand(createPing("c1", x.party, x.party, "{bob}"))}
			}},
	}
	var (
		mu  sync.Mutex
		ran int
	)
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				req := tc.run(t, e)
				rec := e.post(t, options{}, req.path, req.user, req.body)
				mu.Lock()
				ran++
				mu.Unlock()
				if rec.Code != tc.status {
					t.Fatalf("status = %d, want %d: %s", rec.Code, tc.status, rec.Body)
				}
				if rec.Code != http.StatusOK {
					checkError(t, rec, tc.code)
				}
				golden.Check(t, tc.name, entryOf(t, rec))
				if err := s.Validate(t, newRequest(http.MethodPost, req.path, bearer(t, req.user), req.body), rec); err != nil {
					t.Errorf("request does not conform to the document: %v", err)
				}
				if tc.after != nil {
					tc.after(t, e)
				}
			})
		}
	})
	golden.Finish(t, ran == len(cases))
}

func mustB64(t testing.TB, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// uidOf is a participant's unique identifier, as topology transactions
// name it.
func uidOf(p ledger.ParticipantID) string { return strings.TrimPrefix(string(p), "PAR::") }

// carol is the id of the external party the cases onboard as "carol".
func carol(t testing.TB) string {
	return "carol::" + fingerprintOf(t, keyOf("carol").Public().(ed25519.PublicKey))
}

// setAmount sets the amount of an Amulet argument.
func setAmount(t testing.TB, amulet *daml.Record, amount string) {
	t.Helper()
	for i, f := range amulet.Fields {
		if f.Label == "amount" {
			// ExpiringAmount{initialAmount, createdAt, ratePerRound}
			r := f.Value.(*daml.Record)
			r.Fields[0].Value = daml.MustNumeric(amount)
			amulet.Fields[i].Value = r
			return
		}
	}
	t.Fatal("no amount field")
}

// amulets counts a party's active Amulet contracts.
func (e *env) amulets(t testing.TB, owner daml.Party) int {
	t.Helper()
	cs, err := e.net.Store().ActiveContracts(t.Context(), ledger.ContractFilter{Templates: []ledger.TemplateID{splice.Amulet{}.TemplateID()}, Stakeholder: owner})
	if err != nil {
		t.Fatal(err)
	}
	return len(cs)
}

// createdID returns the id of the first contract a transaction answer
// creates.
func createdID(t testing.TB, rec *httptest.ResponseRecorder) string {
	t.Helper()
	var resp ledgerapi.JsSubmitAndWaitForTransactionResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		t.Fatal(err)
	}
	for _, ev := range resp.Transaction.Events {
		if ev.CreatedEvent != nil {
			return ev.CreatedEvent.ContractID
		}
	}
	t.Fatalf("no created event in %s", rec.Body)
	return ""
}

// grant gives a user of the validator participant a right.
func (e *env) grant(t testing.TB, user string, r ledger.Right) {
	t.Helper()
	if _, err := e.net.UpdateUser(t.Context(), e.seeded.Validator.Participant, user, func(u *ledger.User) error {
		u.Rights = append(u.Rights, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// FuzzInteractive posts arbitrary bodies to the external-party and
// interactive-submission endpoints of a network of the fuzzer's own:
// nothing may answer a 5xx, every refusal is Canton's (text/plain for
// undecodable input, a JsCantonError otherwise), and whatever the input,
// the ledger keeps serving: a valid prepare still succeeds afterwards.
func FuzzInteractive(f *testing.F) {
	e := newEnv(f)
	x := e.onboard(f, "carol")
	ping := e.expand(pingBody(x, "f1"))
	p := e.prepare(f, ping)
	g := e.generate(f, "", "dave", "dave", "")
	seeds := map[string][]string{
		"/v2/interactive-submission/prepare": {ping, e.tapBody(f, x, "f2", "1e5"),
			strings.Replace(ping, `"commandId"`, `"minLedgerTime":{"time":{"MinLedgerTimeRel":{"value":{"seconds":-5}}}},"maxRecordTime":"x","commandId"`, 1)},
		"/v2/interactive-submission/executeAndWait": {executeBody(f, p, x, "s1"),
			strings.Replace(executeBody(f, p, x, "s2"), p.b64[:40], "AAAA", 1),
			`{"preparedTransaction":"CgA=","partySignatures":{"signatures":[{"party":"a::1220","signatures":[{"format":"SIGNATURE_FORMAT_RAW","signature":"AA==","signedBy":"","signingAlgorithmSpec":""}]}]},"submissionId":"","hashingSchemeVersion":"HASHING_SCHEME_VERSION_V2"}`},
		"/v2/parties/external/generate-topology": {`{"synchronizer":"` + string(e.seeded.Synchronizer) + `","partyHint":"x","publicKey":{"format":"CRYPTO_KEY_FORMAT_DER","keyData":"MCowBQYDK2VwAyEA","keySpec":"SIGNING_KEY_SPEC_EC_P256"},"confirmationThreshold":-1}`},
		"/v2/parties/external/allocate":          {e.allocateBody(f, g, keyOf("dave"), ""), e.allocateBody(f, g, keyOf("eve"), "alice")},
	}
	paths := []string{"/v2/interactive-submission/prepare", "/v2/interactive-submission/execute", "/v2/interactive-submission/executeAndWait",
		"/v2/interactive-submission/executeAndWaitForTransaction", "/v2/parties/external/generate-topology", "/v2/parties/external/allocate"}
	for path, bodies := range seeds {
		for _, b := range bodies {
			f.Add(path, b)
		}
	}
	f.Add(paths[0], `[]`)
	f.Add(paths[1], `null`)
	h := e.handler(options{authNone: true})
	f.Fuzz(func(t *testing.T, path, body string) {
		if !slices.Contains(paths, path) {
			path = paths[len(path)%len(paths)]
		}
		body = strings.Replace(body, `"commandId"`, `"userId":"alice","commandId"`, 1)
		body = strings.Replace(body, `"submissionId"`, `"userId":"alice","submissionId"`, 1)
		fuzzAnswer(t, h, path, body)
		after := httptest.NewRecorder()
		h.ServeHTTP(after, newRequest(http.MethodPost, "/v2/interactive-submission/prepare", "", strings.Replace(ping, `"commandId"`, `"userId":"alice","commandId"`, 1)))
		if after.Code != http.StatusOK {
			t.Fatalf("after %s %q, a valid prepare answers %d: %s", path, body, after.Code, after.Body)
		}
	})
}
