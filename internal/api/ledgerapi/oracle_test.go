package ledgerapi_test

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// The oracle restates the ledger API's visibility rules over the stored
// transactions, written plainly and apart from the handler, for wildcard
// filters:
//
//   - a participant holds the nodes a party it hosts witnesses;
//   - ACS_DELTA shows creates and consuming exercises (as archives) of
//     contracts one of the requested parties is a stakeholder of (any
//     party: one the participant hosts), leaving out contracts the
//     transaction both creates and archives; witnesses are the
//     stakeholders among the requested parties (any party: all of them);
//   - LEDGER_EFFECTS shows the creates and exercises one of the requested
//     parties witnesses (any party: every node held); witnesses are the
//     node's witnesses among the requested parties (any party: all);
//   - commandId is set when the transaction was submitted on this
//     participant by one of the requested parties (any party: always).

// oracleEvent is what the oracle predicts of one event.
type oracleEvent struct {
	offset    int64
	node      int32
	kind      string
	witnesses string
	acsDelta  bool
}

func (o oracleEvent) String() string {
	return fmt.Sprintf("%d/%d %s %s acsDelta=%v", o.offset, o.node, o.kind, o.witnesses, o.acsDelta)
}

func joinParties(ps []daml.Party) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	slices.Sort(s)
	return strings.Join(s, ",")
}

func among(ps, of []daml.Party) []daml.Party {
	var out []daml.Party
	for _, p := range ps {
		if slices.Contains(of, p) {
			out = append(out, p)
		}
	}
	return out
}

// checkAgainstOracle checks a response to a wildcard filter of user's party
// (any party when user is "") over (begin, end] against the oracle.
func checkAgainstOracle(shape, user string, begin, end ledger.Offset) func(t *testing.T, e *env, rec *httptest.ResponseRecorder) {
	return func(t *testing.T, e *env, rec *httptest.ResponseRecorder) {
		t.Helper()
		anyParty := user == ""
		var parties []daml.Party
		if !anyParty {
			parties = []daml.Party{e.party(user)}
		}
		participant := e.seeded.Validator.Participant
		hosted := e.net.HostedParties(participant)
		ups, err := e.net.Store().Updates(t.Context(), ledger.UpdateQuery{Participant: participant, After: begin, Until: end})
		if err != nil {
			t.Fatal(err)
		}
		var want []oracleEvent
		wantCommand := map[int64]string{}
		for _, u := range ups {
			tx := u.Transaction
			if tx == nil {
				continue // topology: the oracle checks transactions
			}
			created, consumed := map[daml.ContractID]bool{}, map[daml.ContractID]bool{}
			for _, c := range tx.Created() {
				created[c.ID] = true
			}
			for _, id := range tx.Consumed() {
				consumed[id] = true
			}
			readersOf := func(ps []daml.Party) []daml.Party {
				if anyParty {
					if len(among(ps, hosted)) == 0 {
						return nil
					}
					return ps
				}
				return among(ps, parties)
			}
			n := len(want)
			for _, ev := range tx.Events {
				if len(among(ev.Witnesses, hosted)) == 0 {
					continue
				}
				var stake []daml.Party
				transient := false
				if c := ev.Created; c != nil {
					stake = c.Stakeholders()
					transient = consumed[c.ID]
				} else if x := ev.Exercised; x.Consuming {
					stake = x.Stakeholders
					transient = created[x.ContractID]
				}
				inDelta := !transient && len(readersOf(stake)) > 0
				if shape == "acs" {
					if !inDelta {
						continue
					}
					kind := "Created"
					if ev.Exercised != nil {
						kind = "Archived"
					}
					want = append(want, oracleEvent{int64(u.Offset), ev.NodeID, kind, joinParties(readersOf(stake)), true})
					continue
				}
				ws := ev.Witnesses
				if !anyParty {
					ws = among(ws, parties)
				}
				if len(ws) == 0 {
					continue
				}
				kind := "Created"
				if ev.Exercised != nil {
					kind = "Exercised"
				}
				want = append(want, oracleEvent{int64(u.Offset), ev.NodeID, kind, joinParties(ws), inDelta})
			}
			if len(want) > n {
				cmd := ""
				if tx.Submission.Participant == participant && (anyParty || len(among(tx.Submission.ActAs, parties)) > 0) {
					cmd = tx.Submission.CommandID
				}
				wantCommand[int64(u.Offset)] = cmd
			}
		}

		txs, _ := transactions(decodeList(t, rec))
		var got []oracleEvent
		for _, tx := range txs {
			cmd, ok := wantCommand[tx.Offset]
			if !ok {
				t.Errorf("transaction at %d should not be listed", tx.Offset)
			} else if tx.CommandID != cmd {
				t.Errorf("transaction at %d: commandId %q, want %q", tx.Offset, tx.CommandID, cmd)
			}
			for _, ev := range tx.Events {
				switch {
				case ev.CreatedEvent != nil:
					c := ev.CreatedEvent
					got = append(got, oracleEvent{c.Offset, c.NodeID, "Created", joinParties(c.WitnessParties), c.AcsDelta})
				case ev.ArchivedEvent != nil:
					a := ev.ArchivedEvent
					got = append(got, oracleEvent{a.Offset, a.NodeID, "Archived", joinParties(a.WitnessParties), true})
				case ev.ExercisedEvent != nil:
					x := ev.ExercisedEvent
					got = append(got, oracleEvent{x.Offset, x.NodeID, "Exercised", joinParties(x.WitnessParties), x.AcsDelta})
				}
			}
		}
		if len(want) == 0 {
			t.Fatal("the oracle expects nothing: the case tests nothing")
		}
		if !slices.Equal(got, want) {
			t.Errorf("events differ from the oracle's:\n got %v\nwant %v", got, want)
		}
	}
}
