package scanapi_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/fault"
)

// tapArgs are the choice arguments the wallet SDK's tap sends: the DSO as
// sender, no inputs and an extra transfer.lock: null.
const tapArgs = `{"expectedAdmin":"DSO::1220aa","transfer":{"sender":"DSO::1220aa","receiver":"alice::1220bb","amount":"100","instrumentId":{"admin":"DSO::1220aa","id":"Amulet"},"lock":null,"requestedAt":"2026-01-05T08:59:00.000Z","executeBefore":"2026-01-06T09:00:00.000Z","inputHoldingCids":[],"meta":{"values":{}}},"extraArgs":{"context":{"values":{}},"meta":{"values":{}}}}`

// fullArgs name inputs, meta and a context of every AnyValue kind.
const fullArgs = `{"expectedAdmin":"DSO::1220aa","transfer":{"sender":"alice::1220bb","receiver":"bob::1220cc","amount":12.5,"instrumentId":{"admin":"DSO::1220aa","id":"Amulet"},"requestedAt":"2026-01-05T08:59:00Z","executeBefore":"2026-01-06T09:00:00Z","inputHoldingCids":["00aa","00bb"],"meta":{"values":{"splice.lfdecentralizedtrust.org/reason":"deposit"}}},"extraArgs":{"context":{"values":{"a":{"tag":"AV_ContractId","value":"00cc"},"b":{"tag":"AV_Bool","value":true},"c":{"tag":"AV_List","value":[{"tag":"AV_Text","value":"x"},{"tag":"AV_Map","value":{"d":{"tag":"AV_Int","value":"3"}}}]},"e":{"tag":"AV_RelTime","value":{"microseconds":"5"}},"f":{"tag":"AV_Party","value":"p::1"},"g":{"tag":"AV_Date","value":"2026-01-05"},"h":{"tag":"AV_Time","value":"2026-01-05T00:00:00Z"},"i":{"tag":"AV_Decimal","value":"1.5"}}},"meta":{"values":{}}}}`

func TestDecodeTransferFactoryTransfer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body       string
		sender, receiver string
		// bad is a substring of the 400's message; empty when it decodes.
		bad string
	}{
		{name: "the SDK's tap", body: tapArgs, sender: "DSO::1220aa", receiver: "alice::1220bb"},
		{name: "every AnyValue kind", body: fullArgs, sender: "alice::1220bb", receiver: "bob::1220cc"},
		{name: "not an object", body: `[]`, bad: "does not contain a valid `TransferFactory_Transfer`"},
		{name: "a string", body: `"x"`, bad: "does not contain a valid `TransferFactory_Transfer`"},
		{name: "empty object", body: `{}`, bad: "does not contain a valid `TransferFactory_Transfer`"},
		{name: "no extraArgs", body: strings.Replace(tapArgs, `,"extraArgs":{"context":{"values":{}},"meta":{"values":{}}}`, "", 1), bad: "extraArgs"},
		{name: "an unknown field", body: strings.Replace(tapArgs, `"lock":null`, `"lock":{}`, 1), bad: "lock"},
		{name: "amount not a number", body: strings.Replace(tapArgs, `"amount":"100"`, `"amount":"lots"`, 1), bad: "amount"},
		{name: "a bad time", body: strings.Replace(tapArgs, `"2026-01-06T09:00:00.000Z"`, `"tomorrow"`, 1), bad: "executeBefore"},
		{name: "a bad AnyValue tag", body: strings.Replace(fullArgs, `"AV_Bool"`, `"AV_Boolean"`, 1), bad: "does not contain a valid"},
		{name: "a malformed sender", body: strings.Replace(tapArgs, `"sender":"DSO::1220aa"`, `"sender":"DSO"`, 1), bad: "Invalid party ID"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, r, err := scanapi.DecodeTransferFactoryTransfer([]byte(tc.body))
			if tc.bad == "" {
				if err != nil || string(s) != tc.sender || string(r) != tc.receiver {
					t.Fatalf("got %q %q %v", s, r, err)
				}
				return
			}
			if err == nil || !fault.Is(err, fault.InvalidArgument) || !strings.Contains(err.Error(), tc.bad) {
				t.Fatalf("got %v, want an invalid argument with %q", err, tc.bad)
			}
		})
	}
}

// FuzzDecodeTransferFactoryTransfer: arbitrary choice arguments never
// panic and fail only as invalid arguments.
func FuzzDecodeTransferFactoryTransfer(f *testing.F) {
	for _, s := range []string{tapArgs, fullArgs, `{}`, `null`, `[1,2]`, `{"transfer":{"amount":1e400}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if _, _, err := scanapi.DecodeTransferFactoryTransfer([]byte(body)); err != nil && !fault.Is(err, fault.InvalidArgument) {
			t.Fatalf("%q: %v", body, err)
		}
	})
}

// FuzzTransferInstructionRequests sends arbitrary bodies to the
// transfer-factory and the allocation-factory, and arbitrary ids and
// bodies to the transfer instructions' and allocations' choice contexts:
// they must never panic nor answer 5xx.
func FuzzTransferInstructionRequests(f *testing.F) {
	for i, body := range []string{
		`{"choiceArguments":` + tapArgs + `,"excludeDebugFields":true}`,
		`{"choiceArguments":` + fullArgs + `}`,
		`{"choiceArguments":{}}`, `{"choiceArguments":null}`, `{"choiceArguments":"x","excludeDebugFields":1}`,
		`{}`, `{"meta":{"a":"b"},"excludeDebugFields":false}`, `null`, `[]`, ``,
		`{"choiceArguments":{"expectedAdmin":"dso::1220","allocation":{}},"excludeDebugFields":true}`,
		`{"choiceArguments":[1]}`, `{"choiceArguments":" {}"}`, `{"meta":null}`,
	} {
		f.Add(uint8(i), "00abc", body)
	}
	f.Fuzz(func(t *testing.T, endpoint uint8, id, body string) {
		e := shared(t)
		path := "/registry/transfer-instruction/v1/transfer-factory"
		switch choice := int(endpoint) % 8; {
		case choice > 0 && choice < 4:
			path = "/registry/transfer-instruction/v1/" + url.PathEscape(id) + "/choice-contexts/" + []string{"accept", "reject", "withdraw"}[choice-1]
		case choice == 4:
			path = "/registry/allocation-instruction/v1/allocation-factory"
		case choice > 4:
			path = "/registry/allocations/v1/" + url.PathEscape(id) + "/choice-contexts/" + []string{"execute-transfer", "withdraw", "cancel"}[choice-5]
		}
		u, err := url.Parse(registryRoot + path)
		if err != nil {
			return
		}
		req := httptest.NewRequest(http.MethodPost, registryRoot+"/", strings.NewReader(body))
		req.URL = u
		rec := httptest.NewRecorder()
		e.ScanHandler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("POST %s %q: %d %s", u, body, rec.Code, rec.Body)
		}
	})
}
