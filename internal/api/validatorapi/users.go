package validatorapi

import (
	"bytes"
	"io"
	"net/http"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/daml"
)

// ValidatorUserResponse is GET /v0/validator-user: the validator
// operator's party and ledger API user.
type ValidatorUserResponse struct {
	PartyID  string `json:"party_id"`
	UserName string `json:"user_name"`
	Featured bool   `json:"featured"`
}

func (h *Handler) validatorUser(w http.ResponseWriter, r *http.Request) error {
	featured, err := h.v.Featured(r.Context())
	if err != nil {
		return err
	}
	cfg := h.v.Config()
	web.WriteJSON(w, http.StatusOK, ValidatorUserResponse{PartyID: string(cfg.Party), UserName: cfg.OperatorUser, Featured: featured})
	return nil
}

// PartyResponse answers onboarding: the user's party.
type PartyResponse struct {
	PartyID string `json:"party_id"`
}

// register onboards the token's subject. The body is optional; when sent
// it must be null or an object, whose fields are ignored.
func (h *Handler) register(w http.ResponseWriter, r *http.Request, user string) error {
	if err := decodeOptional(r); err != nil {
		return err
	}
	party, err := h.v.Onboard(r.Context(), user, "")
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, PartyResponse{PartyID: string(party)})
	return nil
}

// decodeOptional reads an optional body that must be blank, null or a
// JSON object.
func decodeOptional(r *http.Request) error {
	if r.Body == nil {
		return nil
	}
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, web.MaxBodyBytes))
	if err != nil {
		return badRequest("Failed to decode: the request body is larger than %d bytes", web.MaxBodyBytes)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	var body *map[string]any
	return web.DecodeJSON(r, &body)
}

// OnboardUserRequest is the body of POST /v0/admin/users.
type OnboardUserRequest struct {
	Name                 *string `json:"name"`
	PartyID              *string `json:"party_id"`
	CreatePartyIfMissing *bool   `json:"createPartyIfMissing"`
}

// onboardUser onboards a user as the operator: with a new party, or with
// an existing party hosted on the validator's participant.
func (h *Handler) onboardUser(w http.ResponseWriter, r *http.Request) error {
	var req OnboardUserRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Name == nil {
		return missing("name")
	}
	var party daml.Party
	if req.PartyID != nil {
		party = daml.Party(*req.PartyID)
	}
	// createPartyIfMissing: sandnet derives party ids from the network
	// seed and cannot allocate a party with a chosen id, so a party_id
	// must name a hosted party either way.
	got, err := h.v.Onboard(r.Context(), *req.Name, party)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, PartyResponse{PartyID: string(got)})
	return nil
}

// ListUsersResponse is GET /v0/admin/users.
type ListUsersResponse struct {
	Usernames []string `json:"usernames"`
}

func (h *Handler) listUsers(w http.ResponseWriter, r *http.Request) error {
	names, err := h.v.Users(r.Context())
	if err != nil {
		return err
	}
	if names == nil {
		names = []string{}
	}
	web.WriteJSON(w, http.StatusOK, ListUsersResponse{Usernames: names})
	return nil
}

// UserStatusResponse is GET /v0/wallet/user-status.
type UserStatusResponse struct {
	PartyID             string `json:"party_id"`
	UserOnboarded       bool   `json:"user_onboarded"`
	UserWalletInstalled bool   `json:"user_wallet_installed"`
	HasFeaturedAppRight bool   `json:"has_featured_app_right"`
}

func (h *Handler) userStatus(w http.ResponseWriter, r *http.Request, user string) error {
	st, err := h.v.UserStatus(r.Context(), user)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, UserStatusResponse{
		PartyID: string(st.Party), UserOnboarded: st.Onboarded,
		UserWalletInstalled: st.WalletInstalled, HasFeaturedAppRight: st.HasFeaturedAppRight,
	})
	return nil
}
