package scanapi

import (
	"context"
	_ "embed"
	"net/http"
	"strconv"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/scan"
)

// RegistryPrefix is where a Scan serves the token standard's registry API,
// relative to the root of its host (not under Prefix), as Splice's Scan
// does.
const RegistryPrefix = "/registry"

// registryOpenAPI is the registry API's OpenAPI 3.0 document, served at
// <root>/registry/openapi.yaml.
//
//go:embed registry.yaml
var registryOpenAPI []byte

// RegistryOpenAPI returns the registry API's OpenAPI document.
func RegistryOpenAPI() []byte { return registryOpenAPI }

// RegistryInfo is GET /registry/metadata/v1/info.
type RegistryInfo struct {
	AdminID       string         `json:"adminId"`
	SupportedAPIs map[string]int `json:"supportedApis"`
}

// Instrument is a token-standard instrument on the wire. totalSupply and
// totalSupplyAsOf are left out together when the Scan has no snapshot.
type Instrument struct {
	ID              string         `json:"id"`
	Name            string         `json:"name"`
	Symbol          string         `json:"symbol"`
	TotalSupply     string         `json:"totalSupply,omitempty"`
	TotalSupplyAsOf string         `json:"totalSupplyAsOf,omitempty"`
	Decimals        int            `json:"decimals"`
	SupportedAPIs   map[string]int `json:"supportedApis"`
}

// InstrumentOf renders an instrument.
func InstrumentOf(in scan.Instrument) Instrument {
	out := Instrument{ID: in.ID, Name: in.Name, Symbol: in.Symbol, Decimals: in.Decimals, SupportedAPIs: in.SupportedAPIs}
	if s := in.Supply; s != nil {
		out.TotalSupply, out.TotalSupplyAsOf = s.Total.String(), s.AsOf.String()
	}
	return out
}

// ListInstrumentsResponse is GET /registry/metadata/v1/instruments: every
// instrument on one page, so there is never a nextPageToken.
type ListInstrumentsResponse struct {
	Instruments []Instrument `json:"instruments"`
}

// RegisterRegistry adds the registry routes under root+RegistryPrefix to
// mux: root is "" for the Scan at its host's root, "/sv/k" for SV k's.
// They are unauthenticated, as the Scan's own.
func (h *Handler) RegisterRegistry(mux *http.ServeMux, root string) {
	p := root + RegistryPrefix
	mux.Handle("GET "+p+"/metadata/v1/info", h.serve(h.registryInfo))
	mux.Handle("GET "+p+"/metadata/v1/instruments", h.serve(h.listInstruments))
	mux.Handle("GET "+p+"/metadata/v1/instruments/{id}", h.serve(h.getInstrument))
	mux.Handle("POST "+p+"/transfer-instruction/v1/transfer-factory", h.serve(h.transferFactory))
	for _, c := range []scan.TransferInstructionChoice{scan.ChoiceAccept, scan.ChoiceReject, scan.ChoiceWithdraw} {
		mux.Handle("POST "+p+"/transfer-instruction/v1/{id}/choice-contexts/"+string(c), h.serve(h.choiceContext(func(ctx context.Context, id daml.ContractID) (scan.ChoiceContext, error) {
			return h.svc.TransferInstructionContext(ctx, id, c)
		})))
	}
	mux.Handle("POST "+p+"/allocation-instruction/v1/allocation-factory", h.serve(h.allocationFactory))
	for _, c := range scan.AllocationChoices() {
		mux.Handle("POST "+p+"/allocations/v1/{id}/choice-contexts/"+string(c), h.serve(h.choiceContext(func(ctx context.Context, id daml.ContractID) (scan.ChoiceContext, error) {
			return h.svc.AllocationContext(ctx, id, c)
		})))
	}
	mux.HandleFunc("GET "+p+"/openapi.yaml", serveRegistryOpenAPI)
	mux.HandleFunc(p+"/", web.NotFound)
}

func (h *Handler) registryInfo(w http.ResponseWriter, _ *http.Request) error {
	web.WriteJSON(w, http.StatusOK, RegistryInfo{AdminID: string(h.svc.Config.DSO), SupportedAPIs: scan.RegistryAPIs()})
	return nil
}

// listInstruments ignores pageSize and pageToken, as Splice's Scan does:
// its one instrument always fits a page.
func (h *Handler) listInstruments(w http.ResponseWriter, r *http.Request) error {
	ins, err := h.svc.Instruments(r.Context())
	if err != nil {
		return err
	}
	out := ListInstrumentsResponse{Instruments: make([]Instrument, len(ins))}
	for i, in := range ins {
		out.Instruments[i] = InstrumentOf(in)
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) getInstrument(w http.ResponseWriter, r *http.Request) error {
	in, err := h.svc.Instrument(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, InstrumentOf(in))
	return nil
}

func serveRegistryOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Content-Length", strconv.Itoa(len(registryOpenAPI)))
	_, _ = w.Write(registryOpenAPI)
}
