package scan

import (
	"context"
	"slices"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// NetworkSource is the Source of a Scan that runs in the same process as its
// ledger: it reads the SV participant's stream from the network engine.
type NetworkSource struct {
	Network     *ledger.Network
	Participant ledger.ParticipantID
	DSO         daml.Party
}

var _ Source = (*NetworkSource)(nil)

// Read returns the participant's updates after offset after that the DSO
// party sees, projected to it.
func (s *NetworkSource) Read(ctx context.Context, after ledger.Offset, limit int) (Batch, error) {
	// The end first, so that a batch reaching it can carry a checkpoint
	// there. The head is one consistent read: every update sequenced
	// after it has a later record time than its last one, so that is a
	// checkpoint time at its offsets, found without the write lock.
	head, err := s.Network.Store().Head(ctx)
	if err != nil {
		return Batch{}, err
	}
	end, at := head.Offsets[s.Participant], head.LastRecordTime
	if end <= after {
		// Nothing new: the watermark moves with the clock, which takes
		// the write lock to rule out a commit in flight.
		if end, at, err = s.Network.Watermark(ctx, s.Participant); err != nil {
			return Batch{}, err
		}
		if end <= after {
			return Batch{End: after, Checkpoint: Checkpoint{Offset: after, RecordTime: at, Migration: head.MigrationID}}, nil
		}
	}
	ups, err := s.Network.Store().Updates(ctx, ledger.UpdateQuery{
		Participant: s.Participant, After: after, Until: end, Limit: limit,
		Parties: []daml.Party{s.DSO},
	})
	if err != nil {
		return Batch{}, err
	}
	b := Batch{End: end, Checkpoint: Checkpoint{Offset: end, RecordTime: at, Migration: head.MigrationID}}
	if len(ups) == limit {
		// There may be more before end: this batch ends at its last update.
		b.End, b.Checkpoint = ups[len(ups)-1].Offset, Checkpoint{}
	}
	for _, u := range ups {
		if r := u.Reassignment; r != nil {
			if slices.Contains(r.Parties(), s.DSO) {
				b.Updates = append(b.Updates, Update{Offset: u.Offset, Reassignment: r})
			}
			continue
		}
		if u.Transaction == nil {
			continue // topology: not part of Scan's history
		}
		if up, ok := DSOView(u.Offset, u.Transaction, s.DSO); ok {
			b.Updates = append(b.Updates, up)
		}
	}
	return b, nil
}

// DSOView returns a transaction as a Scan keeps it: projected to the DSO
// party, with the contracts it adds to and removes from the DSO party's
// active contract set. ok is false when the DSO party sees nothing of it.
func DSOView(offset ledger.Offset, t *ledger.Transaction, dso daml.Party) (Update, bool) {
	p := t.Project([]daml.Party{dso})
	if p == nil {
		return Update{}, false
	}
	u := Update{Offset: offset, Transaction: p}
	for _, c := range p.Created() {
		if slices.Contains(c.Stakeholders(), dso) {
			u.Created = append(u.Created, c)
		}
	}
	for i := range p.Events {
		x := p.Events[i].Exercised
		if x != nil && x.Consuming && slices.Contains(x.Stakeholders, dso) {
			u.Archived = append(u.Archived, x.ContractID)
		}
	}
	return u, true
}

// Wait returns at the next commit, clock advance, once ledger time reaches
// until, or when ctx ends. It returns at once when the participant already
// has updates after offset after.
func (s *NetworkSource) Wait(ctx context.Context, after ledger.Offset, until daml.Timestamp) error {
	committed, advanced := s.Network.Committed(), s.Network.Clock().Advanced()
	head, err := s.Network.Store().Head(ctx)
	if err != nil {
		return err
	}
	if head.Offsets[s.Participant] > after {
		return nil
	}
	var timer <-chan time.Time
	if until != 0 {
		d := time.Duration(until-s.Network.Clock().Now()) * time.Microsecond
		if d <= 0 {
			return nil
		}
		t := time.NewTimer(d)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-committed:
	case <-advanced:
	case <-timer:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// Now returns the network's ledger time.
func (s *NetworkSource) Now(context.Context) (daml.Timestamp, error) {
	return s.Network.Clock().Now(), nil
}

// Hostings returns the participants hosting party on synchronizer.
func (s *NetworkSource) Hostings(_ context.Context, synchronizer ledger.SynchronizerID, party daml.Party) ([]ledger.ParticipantID, error) {
	var out []ledger.ParticipantID
	for _, h := range s.Network.HostingsOf(party) {
		if h.Synchronizer == synchronizer {
			out = append(out, h.Participant)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
