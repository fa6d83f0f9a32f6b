package scan

import (
	"context"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// What a Scan tells an external party's wallet about its legacy transfer
// commands: the sender's TransferCommandCounter (the nonce to sign next),
// and what became of the commands it signed with a nonce, read from the
// history as Splice's Scan reads them from its transaction log.

// MaxTransferCommands is how many commands of one sender and nonce a
// status lookup reports, as Splice's Scan bounds it.
const MaxTransferCommands = 100

// transferCommandWindow is how far back a status lookup searches: Splice
// reports the commands created in the last 24 hours.
const transferCommandWindow = 24 * time.Hour

// The statuses and failure kinds of a transfer command, as Scan spells
// them.
const (
	TransferCommandCreated = "created"
	TransferCommandSent    = "sent"
	TransferCommandFailed  = "failed"

	FailureKindFailed    = "failed"
	FailureKindExpired   = "expired"
	FailureKindWithdrawn = "withdrawn"
)

// TransferCommandStatus is a transfer command and what became of it.
type TransferCommandStatus struct {
	// Contract is the TransferCommand as created.
	Contract *ledger.Contract
	// Status is created, sent or failed; FailureKind and Reason say why a
	// failed one failed.
	Status      string
	FailureKind string
	Reason      string
}

// TransferCommandCounter returns the sender's active counter, or nil when
// the DSO has not created one yet (the next nonce is then 0).
func (s *Service) TransferCommandCounter(ctx context.Context, sender daml.Party) (*ledger.Contract, error) {
	counters, err := ActiveDecoded[splice.TransferCommandCounter](ctx, s)
	if err != nil {
		return nil, err
	}
	for _, c := range counters {
		if c.Payload.Sender == sender && c.Payload.DSO == s.Config.DSO {
			return c.Contract, nil
		}
	}
	return nil, nil
}

// ExternalPartyAmuletRules returns the DSO's ExternalPartyAmuletRules
// (the latest created); a fault.NotFound when there is none.
func (s *Service) ExternalPartyAmuletRules(ctx context.Context) (*ledger.Contract, error) {
	st, err := s.registry(ctx)
	if err != nil {
		return nil, err
	}
	return st.externalPartyAmuletRules()
}

// TransferCommandStatuses reports the sender's transfer commands with the
// nonce created in the last 24 hours of ledger time (at most
// MaxTransferCommands), keyed by contract id, with the status the latest
// transaction on each gives it.
func (s *Service) TransferCommandStatuses(ctx context.Context, sender daml.Party, nonce int64) (map[daml.ContractID]*TransferCommandStatus, error) {
	now, err := s.Now(ctx)
	if err != nil {
		return nil, err
	}
	migrations, err := s.Store.Migrations(ctx)
	if err != nil {
		return nil, err
	}
	var migration int64
	if len(migrations) > 0 {
		migration = migrations[len(migrations)-1].ID
	}
	after := &HistoryPosition{Migration: migration, RecordTime: now - daml.Timestamp(transferCommandWindow.Microseconds())}
	out := map[daml.ContractID]*TransferCommandStatus{}
	commandID := splice.TransferCommand{}.TemplateID()
	for {
		page, err := s.Store.History(ctx, HistoryQuery{After: after, Limit: MaxPageSize})
		if err != nil {
			return nil, err
		}
		for _, u := range page {
			t := u.Transaction
			if t == nil {
				continue
			}
			for _, e := range t.Events {
				switch {
				case e.Created != nil && sameTemplate(e.Created.Template, commandID):
					if len(out) >= MaxTransferCommands {
						continue
					}
					c, err := splice.Decode[splice.TransferCommand](e.Created)
					if err != nil {
						return nil, fault.Wrap(fault.Internal, err, "decode a transfer command")
					}
					if c.Payload.Sender == sender && c.Payload.Nonce == nonce {
						out[e.Created.ID] = &TransferCommandStatus{Contract: e.Created, Status: TransferCommandCreated}
					}
				case e.Exercised != nil && e.Exercised.Consuming && sameTemplate(e.Exercised.Template, commandID):
					st, ok := out[e.Exercised.ContractID]
					if !ok {
						continue
					}
					if err := st.settle(e.Exercised); err != nil {
						return nil, err
					}
				}
			}
		}
		if len(page) < MaxPageSize {
			return out, nil
		}
		last := page[len(page)-1]
		after = &HistoryPosition{Migration: last.MigrationID(), RecordTime: last.RecordTime()}
	}
}

func sameTemplate(a, b ledger.TemplateID) bool {
	return a.ModuleName == b.ModuleName && a.EntityName == b.EntityName
}

// settle records the choice that consumed a transfer command: a send's
// result (sent, or failed with its reason), a withdrawal or an expiry.
func (st *TransferCommandStatus) settle(x *ledger.Exercised) error {
	switch x.Choice {
	case "TransferCommand_Send":
		var res splice.TransferCommandSendResult
		if err := daml.ToGo(x.ExerciseResult, &res); err != nil {
			return fault.Wrap(fault.Internal, err, "decode a transfer command's result")
		}
		if f := res.Result.TransferCommandResultFailure; f != nil {
			st.Status, st.FailureKind, st.Reason = TransferCommandFailed, FailureKindFailed, f.Reason.String()
		} else {
			st.Status = TransferCommandSent
		}
	case "TransferCommand_Withdraw":
		st.Status, st.FailureKind, st.Reason = TransferCommandFailed, FailureKindWithdrawn, "The TransferCommand has been withdrawn by the sender"
	case "TransferCommand_Expire":
		st.Status, st.FailureKind, st.Reason = TransferCommandFailed, FailureKindExpired, "The TransferCommand has expired"
	}
	return nil
}
