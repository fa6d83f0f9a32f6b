package splice

import (
	"slices"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// planTransferCommandCounters plans a TransferCommandCounter for each
// sender with a pending TransferCommand and no counter yet, one action a
// sender, senders in the order their commands are listed. The delegate's
// automation waits for the counter before it sends.
func (a *Automation) planTransferCommandCounters(st *dsoState) []action {
	dso := a.cfg.DSO
	have := map[daml.Party]bool{}
	for _, c := range st.counters {
		if c.Payload.DSO == dso {
			have[c.Payload.Sender] = true
		}
	}
	var senders []daml.Party
	for _, c := range st.transferCommands {
		s := c.Payload.Sender
		if c.Payload.DSO != dso || have[s] || slices.Contains(senders, s) {
			continue
		}
		senders = append(senders, s)
	}
	dsoRules := st.dsoRules.ID
	actions := make([]action, 0, len(senders))
	for _, s := range senders {
		actions = append(actions, action{"create-transfer-command-counter", func(tx *ledger.Tx) error {
			_, err := ledger.Exercise[DsoRulesCreateTransferCommandCounterResult](tx, dsoRules,
				"DsoRules_CreateTransferCommandCounter", DsoRulesCreateTransferCommandCounter{Sender: s})
			return err
		}})
	}
	return actions
}
