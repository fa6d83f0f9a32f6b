package ledgerapi

import (
	"net/http"
	"net/url"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// GetConnectedSynchronizersResponse lists the synchronizers a participant
// is connected to.
type GetConnectedSynchronizersResponse struct {
	ConnectedSynchronizers []ConnectedSynchronizer `json:"connectedSynchronizers"`
}

// ConnectedSynchronizer is one synchronizer, with the permission the
// participant hosts the requested party at.
type ConnectedSynchronizer struct {
	SynchronizerAlias string `json:"synchronizerAlias"`
	SynchronizerID    string `json:"synchronizerId"`
	Permission        string `json:"permission"`
}

// The ParticipantPermission enum's names.
const (
	permissionUnspecified = "PARTICIPANT_PERMISSION_UNSPECIFIED"
)

var permissionNames = map[ledger.Permission]string{
	ledger.PermissionSubmission:   "PARTICIPANT_PERMISSION_SUBMISSION",
	ledger.PermissionConfirmation: "PARTICIPANT_PERMISSION_CONFIRMATION",
	ledger.PermissionObservation:  "PARTICIPANT_PERMISSION_OBSERVATION",
}

// singleQuery returns a query parameter given at most once.
func singleQuery(q url.Values, name string) (string, error) {
	vs := q[name]
	if len(vs) > 1 {
		return "", undecodable("Invalid value for: query parameter %s (expected a single value, got %d)", name, len(vs))
	}
	if len(vs) == 0 {
		return "", nil
	}
	return vs[0], nil
}

// GET /v2/state/connected-synchronizers: the synchronizers the
// participant (this one, or the one participantId names) is connected
// to. sandnet runs one synchronizer per migration and every participant
// is connected to those of the current migration. With party, only those
// on which the participant hosts the party, each with the permission it
// hosts it at; without, each with an unspecified permission. A
// participant the network does not know is connected to none.
//
// Reading a party's hosting needs the right to read as it (or
// ParticipantAdmin); the synchronizers alone only an active user.
func (h *Handler) connectedSynchronizers(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	party, err := singleQuery(q, "party")
	if err != nil {
		return err
	}
	participant, err := singleQuery(q, "participantId")
	if err != nil {
		return err
	}
	idp, err := singleQuery(q, "identityProviderId")
	if err != nil {
		return err
	}
	c, err := h.authenticate(r)
	if err != nil {
		return err
	}
	if idp != "" {
		return invalidArgument("Provided identity_provider_id %s is not known: sandnet has only the default identity provider (\"\")", fault.Quote(idp))
	}
	if party != "" {
		if msg := checkPartySyntax(party); msg != "" {
			return invalidField("party", "%s", msg)
		}
		if !c.canRead(daml.Party(party)) && requireAdmin(c) != nil {
			return permissionDenied(false, "no right to read as %s", party)
		}
	}
	target := h.cfg.Participant
	if participant != "" {
		target = ledger.ParticipantID(participant)
	}
	head, err := h.cfg.Ledger.Head(r.Context())
	if err != nil {
		return err
	}
	syncs, err := h.cfg.Ledger.Synchronizers(r.Context())
	if err != nil {
		return err
	}
	hs, err := h.cfg.Ledger.Hostings(r.Context())
	if err != nil {
		return err
	}
	known := target == h.cfg.Participant
	permission := map[ledger.SynchronizerID]ledger.Permission{}
	for _, x := range hs {
		if x.Participant != target {
			continue
		}
		known = true
		if x.Party == daml.Party(party) {
			permission[x.Synchronizer] = x.Permission
		}
	}
	resp := GetConnectedSynchronizersResponse{ConnectedSynchronizers: []ConnectedSynchronizer{}}
	if !known {
		return writeJSON(w, resp)
	}
	for _, s := range syncs {
		if s.MigrationID != head.MigrationID {
			continue
		}
		perm := permissionUnspecified
		if party != "" {
			p, ok := permission[s.ID]
			if !ok {
				continue
			}
			if perm = permissionNames[p]; perm == "" {
				perm = permissionUnspecified
			}
		}
		resp.ConnectedSynchronizers = append(resp.ConnectedSynchronizers, ConnectedSynchronizer{
			SynchronizerAlias: s.Alias, SynchronizerID: string(s.ID), Permission: perm,
		})
	}
	return writeJSON(w, resp)
}
