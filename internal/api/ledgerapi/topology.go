package ledgerapi

import (
	"slices"

	"github.com/sandnet/sandnet/internal/ledger"
)

// JsTopologyTransaction is a change of party hosting, as the participant
// it concerns sees it: the authorization events about itself.
type JsTopologyTransaction struct {
	UpdateID       string          `json:"updateId"`
	Offset         int64           `json:"offset"`
	SynchronizerID string          `json:"synchronizerId"`
	RecordTime     string          `json:"recordTime"`
	Events         []TopologyEvent `json:"events"`
	TraceContext   *TraceContext   `json:"traceContext"`
}

// TopologyEvent is the TopologyEvent message: its event one-of, each case
// wrapped in {"value": …}.
type TopologyEvent struct {
	Event TopologyEventCase `json:"event"`
}

// TopologyEventCase is the one-of; exactly one field is set.
type TopologyEventCase struct {
	ParticipantAuthorizationAdded   *Wrapped[ParticipantAuthorization]        `json:"ParticipantAuthorizationAdded,omitempty"`
	ParticipantAuthorizationChanged *Wrapped[ParticipantAuthorization]        `json:"ParticipantAuthorizationChanged,omitempty"`
	ParticipantAuthorizationRevoked *Wrapped[ParticipantAuthorizationRevoked] `json:"ParticipantAuthorizationRevoked,omitempty"`
}

// ParticipantAuthorization says that a participant hosts a party, and at
// which permission.
type ParticipantAuthorization struct {
	PartyID               string `json:"partyId"`
	ParticipantID         string `json:"participantId"`
	ParticipantPermission string `json:"participantPermission"`
}

// ParticipantAuthorizationRevoked says that a participant no longer hosts
// a party.
type ParticipantAuthorizationRevoked struct {
	PartyID       string `json:"partyId"`
	ParticipantID string `json:"participantId"`
}

// participantPermission is the ParticipantPermission enum value of a
// hosting permission.
func participantPermission(p ledger.Permission) string {
	switch p {
	case ledger.PermissionSubmission:
		return "PARTICIPANT_PERMISSION_SUBMISSION"
	case ledger.PermissionConfirmation:
		return "PARTICIPANT_PERMISSION_CONFIRMATION"
	case ledger.PermissionObservation:
		return "PARTICIPANT_PERMISSION_OBSERVATION"
	}
	return "PARTICIPANT_PERMISSION_UNSPECIFIED"
}

// topology renders the events of t that the request selects: those about
// this participant, of the parties the topology format names (any party
// when it names none). It is nil when the request asks for no topology
// events or selects none of t's.
func (pr *projector) topology(offset ledger.Offset, t *ledger.TopologyTransaction) *JsTopologyTransaction {
	parties := pr.plan.topology
	if parties == nil || pr.plan.trees {
		return nil
	}
	var events []TopologyEvent
	for _, e := range t.Events {
		if e.Participant != pr.participant || (len(parties) > 0 && !slices.Contains(parties, e.Party)) {
			continue
		}
		auth := ParticipantAuthorization{PartyID: string(e.Party), ParticipantID: string(e.Participant),
			ParticipantPermission: participantPermission(e.Permission)}
		var c TopologyEventCase
		switch e.Kind {
		case ledger.AuthorizationAdded:
			c.ParticipantAuthorizationAdded = &Wrapped[ParticipantAuthorization]{Value: auth}
		case ledger.AuthorizationChanged:
			c.ParticipantAuthorizationChanged = &Wrapped[ParticipantAuthorization]{Value: auth}
		case ledger.AuthorizationRevoked:
			c.ParticipantAuthorizationRevoked = &Wrapped[ParticipantAuthorizationRevoked]{Value: ParticipantAuthorizationRevoked{
				PartyID: auth.PartyID, ParticipantID: auth.ParticipantID,
			}}
		default:
			continue
		}
		events = append(events, TopologyEvent{Event: c})
	}
	if len(events) == 0 {
		return nil
	}
	return &JsTopologyTransaction{
		UpdateID:       t.UpdateID,
		Offset:         int64(offset),
		SynchronizerID: string(t.Synchronizer),
		RecordTime:     t.RecordTime.String(),
		Events:         events,
		TraceContext:   traceContext(t.UpdateID, ledger.TraceContext{}),
	}
}
