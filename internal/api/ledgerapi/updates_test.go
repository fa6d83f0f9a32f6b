package ledgerapi_test

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sandnet/sandnet/internal/api/apitest"
	"github.com/sandnet/sandnet/internal/api/ledgerapi"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Request bodies. {alice} and the like are replaced by the network's ids.
const (
	aliceWildcard   = `{"beginExclusive":0,"endInclusive":15,"filter":{"filtersByParty":{"{alice}":{}}}}`
	aliceLegacyOpen = `{"beginExclusive":0,"filter":{"filtersByParty":{"{alice}":{}}}}`
	holdingID       = `#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding`
	amuletID        = `#splice-amulet:Splice.Amulet:Amulet`
)

// txFormat builds an updateFormat body with transactions only.
func txFormat(begin, end, shape, eventFormat string) string {
	b := `{"beginExclusive":` + begin
	if end != "" {
		b += `,"endInclusive":` + end
	}
	return b + `,"updateFormat":{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_` + shape + `","eventFormat":` + eventFormat + `}}}`
}

func byParty(party, filters string) string {
	return `{"filtersByParty":{"` + party + `":` + filters + `}}`
}

func templateFilter(id string, blob bool) string {
	b := `{"cumulative":[{"identifierFilter":{"TemplateFilter":{"value":{"templateId":"` + id + `"`
	if blob {
		b += `,"includeCreatedEventBlob":true`
	}
	return b + `}}}}]}`
}

func interfaceFilter(id string, view, blob bool) string {
	b := `{"cumulative":[{"identifierFilter":{"InterfaceFilter":{"value":{"interfaceId":"` + id + `"`
	if view {
		b += `,"includeInterfaceView":true`
	}
	if blob {
		b += `,"includeCreatedEventBlob":true`
	}
	return b + `}}}}]}`
}

// tokenStandardIDs are the token standard's V1 interfaces, which the
// wallet SDK names in one filter: Holding, which Amulet implements, and
// interfaces no seeded contract implements.
var tokenStandardIDs = []string{
	holdingID,
	"#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction",
	"#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory",
	"#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory",
	"#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationInstruction",
	"#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation",
	"#splice-api-token-allocation-request-v1:Splice.Api.Token.AllocationRequestV1:AllocationRequest",
	"#splice-api-token-metadata-v1:Splice.Api.Token.MetadataV1:AnyContract",
}

// interfaceFilters is a Filters of one interface filter per id, each with
// its view.
func interfaceFilters(ids ...string) string {
	var fs []string
	for _, id := range ids {
		fs = append(fs, `{"identifierFilter":{"InterfaceFilter":{"value":{"interfaceId":"`+id+`","includeInterfaceView":true}}}}`)
	}
	return `{"cumulative":[` + strings.Join(fs, ",") + `]}`
}

type updatesCase struct {
	name string
	// path is /v2/updates unless set.
	path  string
	query string
	// user is the token's subject; noToken sends none; header sends this
	// Authorization header instead.
	user    string
	noToken bool
	header  func(t *testing.T) string
	body    string
	opts    options
	// offSpec marks requests the document does not allow.
	offSpec bool
	status  int
	// code is the JsCantonError code expected, if any.
	code string
	// same is a body, read as alice, whose response this case's must
	// equal; such cases have no golden entry of their own.
	same  string
	check func(t *testing.T, e *env, rec *httptest.ResponseRecorder)
}

const admin = "participant_admin"

func updatesCases() []updatesCase {
	otherSecret := func(t *testing.T) string {
		h := mustHMAC(t, []byte("another-secret-of-at-least-32-bytes!!"))
		return "Bearer " + mint(t, h, "alice", time.Hour, time.Now())
	}
	expired := func(t *testing.T) string {
		return "Bearer " + mint(t, verifier, "alice", time.Minute, time.Now().Add(-time.Hour))
	}
	cases := []updatesCase{
		// Transactions as their readers see them.
		{name: "legacy filter: alice's ACS delta", user: "alice", body: aliceWildcard, status: 200, check: checkAgainstOracle("acs", "alice", 0, 15)},
		{name: "legacy filter with verbose", user: "alice", body: `{"beginExclusive":0,"endInclusive":15,"verbose":true,"filter":{"filtersByParty":{"{alice}":{}}}}`, status: 200, same: aliceWildcard},
		{name: "flats is the same handler", path: "/v2/updates/flats", user: "alice", body: aliceWildcard, status: 200, same: aliceWildcard},
		{name: "offsets as strings", user: "alice", body: `{"beginExclusive":"0","endInclusive":"15","filter":{"filtersByParty":{"{alice}":{}}}}`, status: 200, same: aliceWildcard},
		{name: "offsets as whole numbers in other notations", user: "alice", body: `{"beginExclusive":0.0,"endInclusive":1.5e1,"filter":{"filtersByParty":{"{alice}":{}}}}`, status: 200, same: aliceWildcard},
		{name: "unknown members are ignored", user: "alice", body: `{"beginExclusive":0,"endInclusive":15,"colour":"blue","filter":{"filtersByParty":{"{alice}":{"extra":1}}}}`, status: 200, same: aliceWildcard},
		{name: "null members take their defaults", user: "alice", body: `{"beginExclusive":0,"endInclusive":15,"verbose":null,"updateFormat":null,"descendingOrder":null,"filter":{"filtersByParty":{"{alice}":null},"filtersForAnyParty":null}}`, offSpec: true, status: 200, same: aliceWildcard},
		{name: "Empty filters are a wildcard", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", `{"cumulative":[{"identifierFilter":{"Empty":{}}},{"identifierFilter":{"Empty":{}}}]}`)), status: 200, same: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", "{}"))},
		{name: "a cumulative filter without identifierFilter is a wildcard", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", `{"cumulative":[{}]}`)), status: 200, same: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", "{}"))},
		{name: "two wildcards are one", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", `{"cumulative":[{"identifierFilter":{"WildcardFilter":{"value":{}}}},{"identifierFilter":{"WildcardFilter":{"value":{"includeCreatedEventBlob":false}}}}]}`)), status: 200, same: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", "{}"))},
		{name: "ACS delta: template filter with blobs", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", templateFilter(amuletID, true))), status: 200, check: checkBlobs},
		{name: "ACS delta: interface filter with views", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", interfaceFilter(holdingID, true, false))), status: 200, check: checkHoldingViews},
		{name: "ACS delta: interface filter without views", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", interfaceFilter(holdingID, false, true))), status: 200},
		{name: "ledger effects: alice", user: "alice", body: txFormat("0", "12", "LEDGER_EFFECTS", byParty("{alice}", "{}")), status: 200, check: checkAgainstOracle("le", "alice", 0, 12)},
		{name: "token standard: every V1 interface at once", user: "alice", body: txFormat("0", "15", "LEDGER_EFFECTS", byParty("{alice}", interfaceFilters(tokenStandardIDs...))), status: 200,
			same: txFormat("0", "15", "LEDGER_EFFECTS", byParty("{alice}", interfaceFilters(holdingID)))},
		{name: "token standard: an interface nothing implements selects nothing", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", interfaceFilters(tokenStandardIDs[1]))), status: 200},
		{name: "ledger effects: Holding views", user: "alice", body: txFormat("0", "15", "LEDGER_EFFECTS", byParty("{alice}", interfaceFilter(holdingID, true, false))), status: 200, check: checkHoldingViews},
		{name: "ledger effects: template filter and wildcard of two parties", user: admin, body: txFormat("8", "12", "LEDGER_EFFECTS", `{"filtersByParty":{"{alice}":`+templateFilter(amuletID, false)+`,"{validator}":{}}}`), status: 200},
		{name: "any party: ACS delta with a transient contract", user: admin, body: txFormat("14", "15", "ACS_DELTA", `{"filtersForAnyParty":{}}`), status: 200, check: checkAgainstOracle("acs", "", 14, 15)},
		{name: "any party: ledger effects", user: userAnyReader, body: txFormat("14", "15", "LEDGER_EFFECTS", `{"filtersForAnyParty":{}}`), status: 200, check: checkAgainstOracle("le", "", 14, 15)},
		{name: "any party and a party", user: admin, body: txFormat("6", "10", "ACS_DELTA", `{"filtersByParty":{"{bob}":`+templateFilter(amuletID, true)+`},"filtersForAnyParty":`+templateFilter("#splice-wallet:Splice.Wallet.Install:WalletAppInstall", false)+`}`), status: 200},
		{name: "a party hosted elsewhere", user: admin, body: txFormat("0", "15", "ACS_DELTA", byParty("{dso}", templateFilter("#splice-amulet:Splice.ValidatorLicense:ValidatorLicense", false))), status: 200},
		{name: "a well-formed party nobody hosts", user: admin, body: txFormat("0", "15", "ACS_DELTA", byParty("nobody::1220ab", "{}")), status: 200, check: wantLen(0)},
		{name: "a reader reads alice", user: userReader, body: aliceWildcard, status: 200, same: aliceWildcard},
		{name: "descending order", user: "alice", body: `{"beginExclusive":0,"endInclusive":15,"descendingOrder":true,"filter":{"filtersByParty":{"{alice}":{}}}}`, status: 200, check: checkDescending},
		{name: "descending order with a limit takes the newest", user: "alice", query: "limit=2", body: `{"beginExclusive":0,"endInclusive":15,"descendingOrder":true,"filter":{"filtersByParty":{"{alice}":{}}}}`, status: 200, check: wantOffsets(15, 12)},
		{name: "limit cuts the list", user: "alice", query: "limit=2", body: aliceWildcard, status: 200, check: wantOffsets(2, 6)},
		{name: "limit 0 is an empty list", user: "alice", query: "limit=0", body: aliceWildcard, status: 200, check: wantLen(0)},
		{name: "negative limit is an empty list", user: "alice", query: "limit=-3", body: aliceWildcard, status: 200, check: wantLen(0)},
		{name: "begin equals end", user: "alice", body: `{"beginExclusive":10,"endInclusive":10,"filter":{"filtersByParty":{"{alice}":{}}}}`, status: 200, check: wantLen(0)},
		{name: "begin 0 and end 12 of an empty selection", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", templateFilter("#splice-amulet:Splice.Round:OpenMiningRound", false))), status: 200, check: wantLen(0)},
		{name: "topology events of one party, through the per-party index", user: admin, body: `{"beginExclusive":0,"endInclusive":15,"updateFormat":{"includeTopologyEvents":{"includeParticipantAuthorizationEvents":{"parties":["{alice}"]}}}}`, status: 200, check: wantOffsets(2)},
		{name: "transactions only: no topology events", user: "alice", body: txFormat("0", "3", "ACS_DELTA", byParty("{alice}", "{}")), status: 200, check: wantLen(0)},
		{name: "reassignments and topology only: the participant's hosting changes", user: admin, body: `{"beginExclusive":0,"endInclusive":15,"updateFormat":{"includeReassignments":{"filtersForAnyParty":{}},"includeTopologyEvents":{"includeParticipantAuthorizationEvents":{}}}}`, status: 200, check: wantOffsets(1, 2, 3)},
		{name: "an empty update format", user: "alice", body: `{"beginExclusive":0,"endInclusive":15,"updateFormat":{}}`, status: 200, check: wantLen(0)},
		{name: "bounded request with an idle timeout does not wait", user: "alice", query: "stream_idle_timeout_ms=600000", body: aliceWildcard, status: 200, same: aliceWildcard},
		{name: "open-ended: the updates and a checkpoint at the ledger end", user: "alice", query: "stream_idle_timeout_ms=0", body: `{"beginExclusive":10,"filter":{"filtersByParty":{"{alice}":{}}}}`, status: 200, check: checkCheckpointAt(15)},
		{name: "open-ended: a checkpoint even when nothing matches", user: "alice", query: "stream_idle_timeout_ms=0", body: txFormat("13", "", "ACS_DELTA", byParty("{alice}", templateFilter("#splice-amulet:Splice.Round:OpenMiningRound", false))), status: 200, check: checkCheckpointAt(15)},
		{name: "open-ended at the ledger end: nothing", user: "alice", query: "stream_idle_timeout_ms=0", body: `{"beginExclusive":15,"filter":{"filtersByParty":{"{alice}":{}}}}`, status: 200, check: wantLen(0)},
		{name: "open-ended with a limit stops at the limit", user: "alice", query: "limit=1&stream_idle_timeout_ms=600000", body: aliceLegacyOpen, status: 200, check: wantOffsets(2)},
		{name: "SV participant: its own offsets", path: "/sv/1/v2/updates", user: admin, body: txFormat("0", "4", "ACS_DELTA", byParty("{dso}", templateFilter("#splice-dso-governance:Splice.DsoRules:DsoRules", false))), status: 200},
		{name: "auth none: no token reads any party", opts: options{authNone: true}, noToken: true, offSpec: true, body: txFormat("14", "15", "ACS_DELTA", `{"filtersForAnyParty":{}}`), status: 200, check: checkAgainstOracle("acs", "", 14, 15)},
		{name: "auth none: a garbage token is ignored", opts: options{authNone: true}, header: header("Bearer not-a-jwt"), body: aliceWildcard, status: 200, same: aliceWildcard},

		// The node limit.
		{name: "413: more than the node limit", user: "alice", opts: options{max: 3}, body: aliceWildcard, status: 413, code: "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED"},
		{name: "413: a limit above the node limit", user: "alice", opts: options{max: 3}, query: "limit=4", body: aliceWildcard, status: 413, code: "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED"},
		{name: "413: a limit at the node limit cuts silently", user: "alice", opts: options{max: 3}, query: "limit=3", body: aliceWildcard, status: 200, check: wantLen(3)},
		{name: "413: exactly the node limit", user: "alice", opts: options{max: 6}, body: aliceWildcard, status: 200, same: aliceWildcard, check: wantLen(6)},
		{name: "413: open-ended lists count the checkpoint", user: "alice", opts: options{max: 6}, query: "stream_idle_timeout_ms=0", body: aliceLegacyOpen, status: 413, code: "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED"},

		// Undecodable input: 400 text/plain.
		{name: "400: empty body", user: "alice", body: ``, offSpec: true, status: 400},
		{name: "400: not JSON", user: "alice", body: `beginExclusive=0`, offSpec: true, status: 400},
		{name: "400: truncated JSON", user: "alice", body: `{"beginExclusive":0,`, offSpec: true, status: 400},
		{name: "400: trailing data", user: "alice", body: aliceWildcard + `{}`, status: 400},
		{name: "400: an array body", user: "alice", body: `[]`, offSpec: true, status: 400},
		{name: "400: beginExclusive missing", user: "alice", body: `{"endInclusive":15,"filter":{"filtersByParty":{"{alice}":{}}}}`, offSpec: true, status: 400},
		{name: "400: beginExclusive null", user: "alice", body: `{"beginExclusive":null,"filter":{"filtersByParty":{"{alice}":{}}}}`, offSpec: true, status: 400},
		{name: "400: beginExclusive a boolean", user: "alice", body: `{"beginExclusive":true,"filter":{"filtersByParty":{"{alice}":{}}}}`, offSpec: true, status: 400},
		{name: "400: beginExclusive a fraction", user: "alice", body: `{"beginExclusive":1.5,"filter":{"filtersByParty":{"{alice}":{}}}}`, offSpec: true, status: 400},
		{name: "400: beginExclusive not a number", user: "alice", body: `{"beginExclusive":"zero","filter":{"filtersByParty":{"{alice}":{}}}}`, offSpec: true, status: 400},
		// The document's validator does not check int64 ranges, nor what
		// follows the body's JSON value: these two pass it.
		{name: "400: beginExclusive beyond int64", user: "alice", body: `{"beginExclusive":9223372036854775808,"filter":{"filtersByParty":{"{alice}":{}}}}`, status: 400},
		{name: "400: endInclusive an object", user: "alice", body: `{"beginExclusive":0,"endInclusive":{},"filter":{"filtersByParty":{"{alice}":{}}}}`, offSpec: true, status: 400},
		{name: "400: verbose a string", user: "alice", body: `{"beginExclusive":0,"verbose":"yes","filter":{"filtersByParty":{"{alice}":{}}}}`, offSpec: true, status: 400},
		{name: "400: descendingOrder a number", user: "alice", body: `{"beginExclusive":0,"endInclusive":15,"descendingOrder":1,"filter":{"filtersByParty":{"{alice}":{}}}}`, offSpec: true, status: 400},
		{name: "400: filter an array", user: "alice", body: `{"beginExclusive":0,"filter":[]}`, offSpec: true, status: 400},
		{name: "400: cumulative an object", user: "alice", body: `{"beginExclusive":0,"filter":{"filtersByParty":{"{alice}":{"cumulative":{}}}}}`, offSpec: true, status: 400},
		{name: "400: an identifier filter with two cases", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", `{"cumulative":[{"identifierFilter":{"Empty":{},"WildcardFilter":{"value":{}}}}]}`)), offSpec: true, status: 400},
		{name: "400: an identifier filter with no case", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", `{"cumulative":[{"identifierFilter":{}}]}`)), offSpec: true, status: 400},
		{name: "400: an unknown identifier filter", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", `{"cumulative":[{"identifierFilter":{"PartyFilter":{"value":{}}}}]}`)), offSpec: true, status: 400},
		{name: "400: a template filter without value", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", `{"cumulative":[{"identifierFilter":{"TemplateFilter":{}}}]}`)), offSpec: true, status: 400},
		{name: "400: an identifier of two parts", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", templateFilter("#splice-amulet:Amulet", false))), offSpec: true, status: 400},
		{name: "400: an identifier of four parts", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", templateFilter("#splice-amulet:Splice:Amulet:Amulet", false))), offSpec: true, status: 400},
		{name: "400: an unknown transaction shape", user: "alice", body: txFormat("0", "15", "FLAT", byParty("{alice}", "{}")), offSpec: true, status: 400},
		{name: "400: topology parties not strings", user: admin, body: `{"beginExclusive":0,"updateFormat":{"includeTopologyEvents":{"includeParticipantAuthorizationEvents":{"parties":[1]}}}}`, offSpec: true, status: 400},
		{name: "400: limit not a number", user: "alice", query: "limit=ten", body: aliceWildcard, offSpec: true, status: 400},
		{name: "400: limit beyond int64", user: "alice", query: "limit=9223372036854775808", body: aliceWildcard, offSpec: true, status: 400},
		{name: "400: stream_idle_timeout_ms not a number", user: "alice", query: "stream_idle_timeout_ms=1s", body: aliceWildcard, offSpec: true, status: 400},
		{name: "400: stream_idle_timeout_ms negative", user: "alice", query: "stream_idle_timeout_ms=-1", body: aliceWildcard, offSpec: true, status: 400},
		{name: "400: a body over 4 MiB", user: "alice", body: `{"beginExclusive":0,"pad":"` + strings.Repeat("x", 4<<20) + `"}`, status: 400},
		{name: "400: decoding comes before authentication", noToken: true, body: `{`, offSpec: true, status: 400},

		// The JSON layer's rule on filter and updateFormat.
		{name: "filter and updateFormat", user: "alice", body: `{"beginExclusive":0,"filter":{"filtersByParty":{"{alice}":{}}},"updateFormat":{}}`, status: 400, code: "INVALID_ARGUMENT"},
		{name: "verbose true and updateFormat", user: "alice", body: `{"beginExclusive":0,"verbose":true,"updateFormat":{}}`, status: 400, code: "INVALID_ARGUMENT"},
		// verbose: false is the proto3 default, so it is no second way of
		// asking: the wallet SDK sends it beside every updateFormat.
		{name: "verbose false beside updateFormat", user: "alice", body: `{"beginExclusive":0,"endInclusive":15,"verbose":false,"updateFormat":{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersByParty":{"{alice}":{}}}}}}`, status: 200, same: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", "{}"))},
		{name: "verbose false beside updateFormat on flats", path: "/v2/updates/flats", user: "alice", body: `{"beginExclusive":0,"endInclusive":15,"verbose":false,"updateFormat":{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersByParty":{"{alice}":{}}}}}}`, status: 200, same: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", "{}"))},
		{name: "neither filter nor updateFormat", user: "alice", body: `{"beginExclusive":0,"verbose":true}`, status: 400, code: "INVALID_ARGUMENT"},
		{name: "the JSON layer's rule comes before authentication", noToken: true, offSpec: true, body: `{"beginExclusive":0}`, status: 400, code: "INVALID_ARGUMENT"},

		// Authentication and authorization.
		{name: "401: no token", noToken: true, offSpec: true, body: aliceWildcard, status: 401},
		{name: "401: basic credentials", header: header("Basic YWxpY2U6eA=="), offSpec: true, body: aliceWildcard, status: 401},
		{name: "401: garbage token", header: header("Bearer not-a-jwt"), body: aliceWildcard, status: 401},
		{name: "401: token signed with another secret", header: otherSecret, body: aliceWildcard, status: 401},
		{name: "401: expired token", header: expired, body: aliceWildcard, status: 401},
		{name: "403: unknown user", user: "mallory", body: aliceWildcard, status: 403},
		{name: "403: deactivated user", user: userRetired, body: aliceWildcard, status: 403},
		{name: "403: bob reads alice", user: "bob", body: aliceWildcard, status: 403},
		{name: "403: one party of two unreadable", user: "alice", body: `{"beginExclusive":0,"filter":{"filtersByParty":{"{alice}":{},"{bob}":{}}}}`, status: 403},
		{name: "403: alice reads any party", user: "alice", body: txFormat("0", "15", "ACS_DELTA", `{"filtersForAnyParty":{}}`), status: 403},
		{name: "403: a party's reassignments", user: "bob", body: `{"beginExclusive":0,"updateFormat":{"includeReassignments":{"filtersByParty":{"{alice}":{}}}}}`, status: 403},
		{name: "403: topology events of all parties", user: "alice", body: `{"beginExclusive":0,"updateFormat":{"includeTopologyEvents":{"includeParticipantAuthorizationEvents":{"parties":[]}}}}`, status: 403},
		{name: "403: topology events of another party", user: "alice", body: `{"beginExclusive":0,"updateFormat":{"includeTopologyEvents":{"includeParticipantAuthorizationEvents":{"parties":["{bob}"]}}}}`, status: 403},
		{name: "403: the legacy filter's topology events need read rights too", user: userReader, body: `{"beginExclusive":0,"filter":{"filtersByParty":{"{bob}":{}}}}`, status: 403},
		{name: "403: CanExecuteAs does not read", user: userExecutor, body: aliceWildcard, status: 403},
		{name: "403: ParticipantAdmin does not read party data", user: userAdminOnly, body: aliceWildcard, status: 403},
		{name: "403: another participant's user", path: "/sv/1/v2/updates", user: "alice", body: aliceWildcard, status: 403},
		{name: "authorization comes before validation", user: "bob", body: `{"beginExclusive":-1,"filter":{"filtersByParty":{"{alice}":{}}}}`, status: 403},

		// Validation.
		{name: "NEGATIVE_OFFSET", user: "alice", body: `{"beginExclusive":-1,"filter":{"filtersByParty":{"{alice}":{}}}}`, status: 400, code: "NEGATIVE_OFFSET"},
		{name: "NON_POSITIVE_OFFSET: zero", user: "alice", body: `{"beginExclusive":0,"endInclusive":0,"filter":{"filtersByParty":{"{alice}":{}}}}`, status: 400, code: "NON_POSITIVE_OFFSET"},
		{name: "NON_POSITIVE_OFFSET: negative", user: "alice", body: `{"beginExclusive":0,"endInclusive":"-5","filter":{"filtersByParty":{"{alice}":{}}}}`, status: 400, code: "NON_POSITIVE_OFFSET"},
		{name: "DESCENDING_ORDER_MISSING_END", user: "alice", body: `{"beginExclusive":0,"descendingOrder":true,"filter":{"filtersByParty":{"{alice}":{}}}}`, status: 400, code: "DESCENDING_ORDER_MISSING_END"},
		{name: "MISSING_FIELD: transaction shape unspecified", user: "alice", body: txFormat("0", "15", "UNSPECIFIED", byParty("{alice}", "{}")), status: 400, code: "MISSING_FIELD"},
		{name: "MISSING_FIELD: transaction shape absent", user: "alice", offSpec: true, body: `{"beginExclusive":0,"updateFormat":{"includeTransactions":{"eventFormat":{"filtersByParty":{"{alice}":{}}}}}}`, status: 400, code: "MISSING_FIELD"},
		{name: "MISSING_FIELD: event format absent", user: "alice", offSpec: true, body: `{"beginExclusive":0,"updateFormat":{"includeTransactions":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA"}}}`, status: 400, code: "MISSING_FIELD"},
		{name: "MISSING_FIELD: templateId", user: "alice", offSpec: true, body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", `{"cumulative":[{"identifierFilter":{"TemplateFilter":{"value":{"includeCreatedEventBlob":true}}}}]}`)), status: 400, code: "MISSING_FIELD"},
		{name: "MISSING_FIELD: interfaceId", user: "alice", offSpec: true, body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", `{"cumulative":[{"identifierFilter":{"InterfaceFilter":{"value":{"includeInterfaceView":true}}}}]}`)), status: 400, code: "MISSING_FIELD"},
		{name: "INVALID_ARGUMENT: unrecognized transaction shape", user: "alice", offSpec: true, body: `{"beginExclusive":0,"updateFormat":{"includeTransactions":{"transactionShape":"UNRECOGNIZED","eventFormat":{"filtersByParty":{"{alice}":{}}}}}}`, status: 400, code: "INVALID_ARGUMENT"},
		{name: "INVALID_ARGUMENT: no filters", user: "alice", body: txFormat("0", "15", "ACS_DELTA", `{"filtersByParty":{}}`), status: 400, code: "INVALID_ARGUMENT"},
		{name: "INVALID_ARGUMENT: legacy filter without filters", user: "alice", body: `{"beginExclusive":0,"filter":{}}`, status: 400, code: "INVALID_ARGUMENT"},
		{name: "INVALID_ARGUMENT: a malformed party", user: admin, body: txFormat("0", "15", "ACS_DELTA", byParty("alice@example", "{}")), status: 400, code: "INVALID_ARGUMENT"},
		{name: "INVALID_FIELD: a malformed topology party", user: admin, body: `{"beginExclusive":0,"updateFormat":{"includeTopologyEvents":{"includeParticipantAuthorizationEvents":{"parties":["notParseableString@"]}}}}`, status: 400, code: "INVALID_FIELD"},
		{name: "INVALID_FIELD: package-id form", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", templateFilter("dbeda50efee6c5e53959638ef5422116723a9a6137fcdd4d2d82544291726a88:Splice.Amulet:Amulet", false))), status: 400, code: "INVALID_FIELD"},
		{name: "INVALID_FIELD: a package name without #", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", interfaceFilter("splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding", true, false))), status: 400, code: "INVALID_FIELD"},
		{name: "INVALID_FIELD: a malformed module name", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", templateFilter("#splice-amulet:Splice..Amulet:Amulet", false))), status: 400, code: "INVALID_FIELD"},
		{name: "INVALID_FIELD: an empty package name", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", templateFilter("#:Splice.Amulet:Amulet", false))), status: 400, code: "INVALID_FIELD"},
		{name: "OFFSET_AFTER_LEDGER_END: begin", user: "alice", body: `{"beginExclusive":16,"filter":{"filtersByParty":{"{alice}":{}}}}`, status: 400, code: "OFFSET_AFTER_LEDGER_END"},
		{name: "OFFSET_AFTER_LEDGER_END: end", user: "alice", body: `{"beginExclusive":0,"endInclusive":16,"filter":{"filtersByParty":{"{alice}":{}}}}`, status: 400, code: "OFFSET_AFTER_LEDGER_END"},
		{name: "OFFSET_OUT_OF_RANGE", user: "alice", body: `{"beginExclusive":8,"endInclusive":6,"filter":{"filtersByParty":{"{alice}":{}}}}`, status: 400, code: "OFFSET_OUT_OF_RANGE"},
		{name: "PACKAGE_NAMES_NOT_FOUND", user: "alice", body: txFormat("0", "15", "ACS_DELTA", `{"filtersByParty":{"{alice}":{"cumulative":[{"identifierFilter":{"TemplateFilter":{"value":{"templateId":"#no-such-package:A:B"}}}},{"identifierFilter":{"InterfaceFilter":{"value":{"interfaceId":"#another-package:C:D"}}}},{"identifierFilter":{"TemplateFilter":{"value":{"templateId":"#splice-amulet:Splice.Amulet:Nope"}}}}]}}}`), status: 404, code: "PACKAGE_NAMES_NOT_FOUND"},
		{name: "NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", templateFilter("#splice-amulet:Splice.Amulet:Nope", false))), status: 404, code: "NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME"},
		{name: "NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME: an interface named as a template", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", templateFilter(holdingID, false))), status: 404, code: "NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME"},
		{name: "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME: an unknown entity of a token-standard package", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", interfaceFilters("#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:AllocationView"))), status: 404, code: "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME"},
		{name: "INVALID_FIELD: an interface in package-id form", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", interfaceFilters("55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281:Splice.Api.Token.TransferInstructionV1:TransferInstruction"))), status: 400, code: "INVALID_FIELD"},
		{name: "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME", user: "alice", body: txFormat("0", "15", "ACS_DELTA", byParty("{alice}", interfaceFilter(amuletID, true, false))), status: 404, code: "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME"},
		{name: "unknown packages in reassignment filters", user: "alice", body: `{"beginExclusive":0,"updateFormat":{"includeReassignments":{"filtersByParty":{"{alice}":` + templateFilter("#nope:A:B", false) + `}}}}`, status: 404, code: "PACKAGE_NAMES_NOT_FOUND"},
		{name: "the ledger end is checked before package names", user: "alice", body: txFormat("16", "", "ACS_DELTA", byParty("{alice}", templateFilter("#nope:A:B", false))), status: 400, code: "OFFSET_AFTER_LEDGER_END"},
	}
	return cases
}

func header(v string) func(t *testing.T) string { return func(*testing.T) string { return v } }

func TestUpdates(t *testing.T) {
	t.Parallel()
	e := shared(t)
	s := mustSpec(t)
	cases := updatesCases()
	golden := apitest.OpenGolden(t, "updates", *update)
	var ran atomic.Int32
	t.Run("cases", func(t *testing.T) {
		seen := map[string]bool{}
		for _, tc := range cases {
			if seen[tc.name] {
				t.Fatalf("duplicate case %q", tc.name)
			}
			seen[tc.name] = true
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				path := tc.path
				if path == "" {
					path = "/v2/updates"
				}
				target := path
				if tc.query != "" {
					target += "?" + tc.query
				}
				var authz string
				switch {
				case tc.header != nil:
					authz = tc.header(t)
				case !tc.noToken:
					authz = bearer(t, tc.user)
				}
				body := e.expand(tc.body)
				rec := e.answerCase(t, tc.opts, newRequest(http.MethodPost, target, authz, body), tc.status, tc.code, &ran)
				if tc.same != "" {
					sameAs(t, e, rec, tc.same)
				} else if len(body) < 1<<20 {
					golden.Check(t, tc.name, entryOf(t, rec))
				}
				if len(body) < 1<<20 {
					checkConformance(t, s, newRequest(http.MethodPost, target, authz, body), rec, tc.offSpec)
				}
				if rec.Code == http.StatusOK && strings.Contains(tc.body, `"endInclusive"`) {
					if _, cps := transactions(decodeList(t, rec)); len(cps) != 0 {
						t.Errorf("a bounded request got %d offset checkpoints", len(cps))
					}
				}
				if tc.check != nil {
					tc.check(t, e, rec)
				}
				if strings.Contains(tc.body, `"endInclusive"`) && tc.opts.buffer == 0 {
					sameStreamed(t, e, tc.opts, target, authz, body, rec)
				}
			})
		}
	})
	golden.Finish(t, int(ran.Load()) == len(cases))
}

// checkError checks a JsCantonError: its code (or the redacted shape of
// 401 and 403), and that it names the request's trace id.
func checkError(t *testing.T, rec *httptest.ResponseRecorder, code string) {
	t.Helper()
	je := decodeError(t, rec)
	if je.TraceID == nil || *je.TraceID != traceID {
		t.Errorf("traceId = %v, want %s", je.TraceID, traceID)
	}
	if rec.Code == http.StatusUnauthorized || rec.Code == http.StatusForbidden {
		if je.ErrorCategory != -1 || !strings.Contains(je.Code, traceID) || len(je.Context) > 1 {
			t.Errorf("a %d must be redacted: %+v", rec.Code, je)
		}
		return
	}
	if je.Code != code {
		t.Errorf("code = %q, want %q (cause %q)", je.Code, code, je.Cause)
	}
	if je.Context["tid"] != traceID || je.Context["participant"] == "" || je.Context["category"] == "" {
		t.Errorf("context = %v", je.Context)
	}
}

// sameAs checks that a response equals the one alice gets for another
// body.
func sameAs(t *testing.T, e *env, rec *httptest.ResponseRecorder, body string) {
	t.Helper()
	other := httptest.NewRecorder()
	e.handler(options{}).ServeHTTP(other, newRequest(http.MethodPost, "/v2/updates", bearer(t, "alice"), e.expand(body)))
	if other.Code != http.StatusOK || rec.Body.String() != other.Body.String() {
		t.Errorf("response differs from that of %s:\n got %.1000s\nwant %.1000s", body, rec.Body, other.Body)
	}
}

func wantLen(n int) func(t *testing.T, e *env, rec *httptest.ResponseRecorder) {
	return func(t *testing.T, e *env, rec *httptest.ResponseRecorder) {
		t.Helper()
		if got := decodeList(t, rec); len(got) != n {
			t.Errorf("%d elements, want %d", len(got), n)
		}
	}
}

func wantOffsets(offsets ...int64) func(t *testing.T, e *env, rec *httptest.ResponseRecorder) {
	return func(t *testing.T, e *env, rec *httptest.ResponseRecorder) {
		t.Helper()
		// The offsets of the transactions and topology transactions.
		list := decodeList(t, rec)
		_, cps := transactions(list)
		var got []int64
		for _, u := range list {
			switch {
			case u.Update.Transaction != nil:
				got = append(got, u.Update.Transaction.Value.Offset)
			case u.Update.TopologyTransaction != nil:
				got = append(got, u.Update.TopologyTransaction.Value.Offset)
			}
		}
		if !slices.Equal(got, offsets) || len(cps) != 0 {
			t.Errorf("offsets %v and %d checkpoints, want %v and none", got, len(cps), offsets)
		}
	}
}

func checkDescending(t *testing.T, e *env, rec *httptest.ResponseRecorder) {
	txs, _ := transactions(decodeList(t, rec))
	if len(txs) < 2 || !slices.IsSortedFunc(txs, func(a, b ledgerapi.JsTransaction) int { return int(b.Offset - a.Offset) }) {
		t.Errorf("offsets are not descending: %v", txs)
	}
	// The same transactions as in ascending order.
	asc := httptest.NewRecorder()
	e.handler(options{}).ServeHTTP(asc, newRequest(http.MethodPost, "/v2/updates", bearer(t, "alice"), e.expand(aliceWildcard)))
	ascTxs, _ := transactions(decodeList(t, asc))
	slices.Reverse(ascTxs)
	if len(ascTxs) != len(txs) {
		t.Fatalf("%d transactions descending, %d ascending", len(txs), len(ascTxs))
	}
	for i := range txs {
		if txs[i].UpdateID != ascTxs[i].UpdateID || len(txs[i].Events) != len(ascTxs[i].Events) {
			t.Errorf("transaction %d differs", i)
		}
	}
}

func checkCheckpointAt(offset int64) func(t *testing.T, e *env, rec *httptest.ResponseRecorder) {
	return func(t *testing.T, e *env, rec *httptest.ResponseRecorder) {
		t.Helper()
		list := decodeList(t, rec)
		if len(list) == 0 || list[len(list)-1].Update.OffsetCheckpoint == nil {
			t.Fatalf("the list does not end with a checkpoint: %s", rec.Body)
		}
		cp := list[len(list)-1].Update.OffsetCheckpoint.Value
		if cp.Offset != offset || len(cp.SynchronizerTimes) != 1 || cp.SynchronizerTimes[0].SynchronizerID != string(e.seeded.Synchronizer) {
			t.Errorf("checkpoint %+v, want offset %d on %s", cp, offset, e.seeded.Synchronizer)
		}
		// The checkpoint's time is the network's watermark at the ledger
		// end (the shared network commits nothing more): at or after the
		// record time of the update there.
		ups, err := e.net.Store().Updates(t.Context(), ledger.UpdateQuery{Participant: e.seeded.Validator.Participant, After: ledger.Offset(offset - 1), Until: ledger.Offset(offset)})
		if err != nil || len(ups) != 1 {
			t.Fatalf("update at %d: %v", offset, err)
		}
		end, at, err := e.net.Watermark(t.Context(), e.seeded.Validator.Participant)
		if err != nil || end != ledger.Offset(offset) {
			t.Fatalf("watermark at %d, want %d: %v", end, offset, err)
		}
		if got, want := cp.SynchronizerTimes[0].RecordTime, at.String(); got != want {
			t.Errorf("checkpoint time %s, want the watermark %s", got, want)
		}
		if at < ups[0].Transaction.RecordTime {
			t.Errorf("watermark %s before the update's record time %s", at, ups[0].Transaction.RecordTime)
		}
	}
}

// checkBlobs checks that every created event carries a blob that decodes
// to the contract the event shows.
func checkBlobs(t *testing.T, e *env, rec *httptest.ResponseRecorder) {
	txs, _ := transactions(decodeList(t, rec))
	n := 0
	for _, tx := range txs {
		for _, ev := range tx.Events {
			c := ev.CreatedEvent
			if c == nil {
				continue
			}
			n++
			b, err := base64.StdEncoding.DecodeString(c.CreatedEventBlob)
			if err != nil {
				t.Fatalf("blob of %s: %v", c.ContractID, err)
			}
			back, err := ledger.DecodeContract(b)
			if err != nil {
				t.Fatalf("blob of %s does not decode: %v", c.ContractID, err)
			}
			if string(back.ID) != c.ContractID || back.Template.Identifier.String() != c.TemplateID {
				t.Errorf("blob of %s holds %s", c.ContractID, back.ID)
			}
			stored, _, err := e.net.Store().Contract(t.Context(), back.ID)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := ledger.EncodeContract(stored)
			if string(want) != string(b) {
				t.Errorf("blob of %s is not the stored contract", c.ContractID)
			}
		}
	}
	if n == 0 {
		t.Error("no created events")
	}
}

// checkHoldingViews checks that every created Amulet carries its Holding
// view, computed by the registry.
func checkHoldingViews(t *testing.T, e *env, rec *httptest.ResponseRecorder) {
	txs, _ := transactions(decodeList(t, rec))
	n := 0
	for _, tx := range txs {
		for _, ev := range tx.Events {
			c := ev.CreatedEvent
			if c == nil {
				continue
			}
			n++
			if len(c.InterfaceViews) != 1 {
				t.Fatalf("%s has %d views", c.ContractID, len(c.InterfaceViews))
			}
			v := c.InterfaceViews[0]
			if !strings.HasSuffix(v.InterfaceID, ":Splice.Api.Token.HoldingV1:Holding") || v.ViewStatus.Code != 0 || len(v.ViewValue) == 0 ||
				v.ImplementationPackageID == nil || *v.ImplementationPackageID != c.RepresentativePackageID {
				t.Errorf("view of %s: %+v", c.ContractID, v)
			}
			if c.CreatedEventBlob != "" {
				t.Errorf("%s has a blob nobody asked for", c.ContractID)
			}
		}
	}
	if n == 0 {
		t.Error("no created events")
	}
}
