package scan

import (
	"context"
	"time"
)

// IngestWait bounds how long a Scan read that misses waits for the Scan to
// ingest what its participant has already committed (awaitIngested).
const IngestWait = 2 * time.Second

// ingestPoll is how often awaitIngested looks at the cursor again.
const ingestPoll = 5 * time.Millisecond

// awaitIngested returns once the Scan's cursor has reached its
// participant's end (a read after the cursor finds nothing), after
// IngestWait, or when ctx ends; a lookup that missed is then repeated.
//
// Why: a wallet acts on a contract as soon as its ledger shows it (the
// receiver lists a pending transfer instruction and asks the registry for
// its accept context at once), and Scan learns of it only when its
// ingester has stored the transaction. Splice's Scan lags its SV's
// participant too, by seconds, and its registry answers 404 meanwhile;
// sandnet runs everything on one machine, where the lag is milliseconds,
// so a lookup that misses waits for it instead of failing the wallet's
// flow at random. A lookup of an id that does not exist costs one read of
// the participant's stream when the Scan is caught up.
func (s *Service) awaitIngested(ctx context.Context) error {
	deadline := time.Now().Add(IngestWait)
	for {
		cur, err := s.Store.Cursor(ctx)
		if err != nil {
			return err
		}
		b, err := s.Source.Read(ctx, cur.Offset, 1)
		if err != nil {
			return err
		}
		if b.End <= cur.Offset || time.Now().After(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(ingestPoll):
		}
	}
}
