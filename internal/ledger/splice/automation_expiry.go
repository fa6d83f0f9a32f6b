package splice

import (
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// transferInstructionExpiryBatch is how many transfer instructions one
// AmuletRules_Amulet_ExpireTransferInstructions expires: Splice's default
// delegatelessAutomationExpiredAmuletTransferInstructionBatchSize.
const transferInstructionExpiryBatch = 100

// instructionExpired says whether the DSO expires a transfer instruction
// at now. Splice's store dates an instruction by its transfer's
// executeBefore and lists it once that is strictly past.
func instructionExpired(i AmuletTransferInstruction, now daml.Timestamp) bool {
	return i.Transfer.ExecuteBefore < now
}

// planTransferExpiries plans the expiry of the DSO's transfer
// pre-approvals and transfer instructions whose time has passed, as
// Splice's ExpireTransferPreapprovalsTrigger (one pre-approval an action)
// and ExpiredAmuletTransferInstructionTrigger (batches of instructions)
// do. Splice goes through DsoRules' delegate choices; sandnet's SV acts as
// the DSO party, so it exercises the choices they wrap.
func (a *Automation) planTransferExpiries(st *dsoState, now daml.Timestamp, due func(daml.Timestamp)) []action {
	var actions []action
	dso := a.cfg.DSO
	for _, p := range st.preapprovals {
		if p.Payload.DSO != dso {
			continue
		}
		// Splice lists a pre-approval once its expiresAt is strictly past.
		if p.Payload.ExpiresAt >= now {
			due(p.Payload.ExpiresAt + 1)
			continue
		}
		actions = append(actions, action{"expire-transfer-preapproval", func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[TransferPreapprovalExpireResult](tx, p.ID, "TransferPreapproval_Expire", TransferPreapprovalExpire{})
			return err
		}})
	}

	var expired []Contract[AmuletTransferInstruction]
	for _, i := range st.transfers {
		if i.Payload.Transfer.InstrumentID.Admin != dso {
			continue
		}
		if !instructionExpired(i.Payload, now) {
			due(i.Payload.Transfer.ExecuteBefore + 1)
			continue
		}
		expired = append(expired, i)
	}
	amuletRules := st.amuletRules.ID
	for _, arg := range expireTransferInstructionsArgs(dso, expired, st.locked) {
		actions = append(actions, action{"expire-transfer-instructions", func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[AmuletRulesAmuletExpireTransferInstructionsResult](tx, amuletRules,
				"AmuletRules_Amulet_ExpireTransferInstructions", arg)
			return err
		}})
	}
	return actions
}

// expireTransferInstructionsArgs splits expired transfer instructions into
// the arguments of AmuletRules_Amulet_ExpireTransferInstructions, a batch
// each. locked says which instructions' LockedAmulets are still active.
func expireTransferInstructionsArgs(dso daml.Party, expired []Contract[AmuletTransferInstruction], locked map[daml.ContractID]bool) []AmuletRulesAmuletExpireTransferInstructions {
	var out []AmuletRulesAmuletExpireTransferInstructions
	for batch := range slices.Chunk(expired, transferInstructionExpiryBatch) {
		arg := AmuletRulesAmuletExpireTransferInstructions{ExpectedDso: dso, Inputs: make([]AmuletRulesExpireTransferInstructionInput, 0, len(batch))}
		// The senders and receivers see their instructions expire, and the
		// DSO; Splice passes them as the choice's observers.
		var observers partyList
		for _, i := range batch {
			// Unlocking returns the amount to the sender. A lock its owner
			// already expired is gone, and asking to unlock it would fail,
			// so Splice asks only for a lock it still finds.
			arg.Inputs = append(arg.Inputs, AmuletRulesExpireTransferInstructionInput{
				TransferInstructionCid: i.ID, ExpireLock: locked[i.Payload.LockedAmulet],
			})
			observers.add(i.Payload.Transfer.Sender, i.Payload.Transfer.Receiver)
		}
		observers.add(dso)
		arg.Observers = observers.list
		out = append(out, arg)
	}
	return out
}

// allocationExpiryBatch is how many allocations one
// ExternalPartyAmuletRules_ExpireAmuletAllocations expires: Splice's
// default delegatelessAutomationExpiredAmuletAllocationBatchSize.
const allocationExpiryBatch = 100

// allocationExpired says whether the DSO expires an allocation at now.
// Splice's store dates an AmuletAllocation by its settlement's
// settleBefore (not its earlier expiresAt) and lists it once that is
// strictly past; by then expiresAt, which is never later, has passed too.
func allocationExpired(a AmuletAllocation, now daml.Timestamp) bool {
	return a.Allocation.Settlement.SettleBefore < now
}

// planAllocationExpiries plans the expiry of the DSO's amulet allocations
// whose settlement deadline has passed, in batches, as Splice's
// ExpiredAmuletAllocationTrigger does (through DsoRules'
// DsoRules_ExpireAmuletAllocations, which wraps the choice sandnet's SV
// exercises as the DSO party).
func (a *Automation) planAllocationExpiries(st *dsoState, now daml.Timestamp, due func(daml.Timestamp)) []action {
	dso := a.cfg.DSO
	if len(st.externalRules) == 0 {
		return nil
	}
	var expired []Contract[AmuletAllocation]
	for _, al := range st.allocations {
		if al.Payload.Allocation.TransferLeg.InstrumentID.Admin != dso {
			continue
		}
		if !allocationExpired(al.Payload, now) {
			due(al.Payload.Allocation.Settlement.SettleBefore + 1)
			continue
		}
		expired = append(expired, al)
	}
	rules := st.externalRules[len(st.externalRules)-1].ID
	var actions []action
	for _, arg := range expireAllocationsArgs(dso, expired, st.locked) {
		actions = append(actions, action{"expire-amulet-allocations", func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[ExternalPartyAmuletRulesExpireAmuletAllocationsResult](tx, rules,
				"ExternalPartyAmuletRules_ExpireAmuletAllocations", arg)
			return err
		}})
	}
	return actions
}

// expireAllocationsArgs splits expired allocations into the arguments of
// ExternalPartyAmuletRules_ExpireAmuletAllocations, a batch each. locked
// says which allocations' LockedAmulets are still active.
func expireAllocationsArgs(dso daml.Party, expired []Contract[AmuletAllocation], locked map[daml.ContractID]bool) []ExternalPartyAmuletRulesExpireAmuletAllocations {
	var out []ExternalPartyAmuletRulesExpireAmuletAllocations
	for batch := range slices.Chunk(expired, allocationExpiryBatch) {
		arg := ExternalPartyAmuletRulesExpireAmuletAllocations{ExpectedDso: dso, Inputs: make([]ExternalPartyAmuletRulesExpireAmuletAllocationInput, 0, len(batch))}
		// Splice tells each allocation's sender and executor (not the
		// receiver, which the allocation does not name as a stakeholder).
		var observers partyList
		for _, al := range batch {
			// A lock its owner already expired is gone: Splice asks to
			// unlock only a lock it still finds.
			arg.Inputs = append(arg.Inputs, ExternalPartyAmuletRulesExpireAmuletAllocationInput{
				AllocationCid: al.ID, ExpireLock: locked[al.Payload.LockedAmulet],
			})
			observers.add(al.Payload.Allocation.TransferLeg.Sender, al.Payload.Allocation.Settlement.Executor)
		}
		arg.Observers = observers.list
		out = append(out, arg)
	}
	return out
}

// partyList collects parties once each, in the order first added.
type partyList struct {
	seen map[daml.Party]bool
	list []daml.Party
}

func (l *partyList) add(ps ...daml.Party) {
	if l.seen == nil {
		l.seen = map[daml.Party]bool{}
	}
	for _, p := range ps {
		if !l.seen[p] {
			l.seen[p] = true
			l.list = append(l.list, p)
		}
	}
}
