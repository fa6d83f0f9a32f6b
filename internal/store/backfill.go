package store

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/sandnet/sandnet/internal/scan"
)

// BackfillOrder returns the updates of a [scan.Store.Backfill] batch in
// history order: (migration, record time, synchronizer), import updates
// first within their migration, ties broken by update id. Peers send
// updates newest first; storing them oldest first makes the stores'
// insertion order (which breaks ties between import updates in History
// and UpdatesBefore) that of an in-order ingestion, whatever order the
// batch came in.
func BackfillOrder(us []scan.Update) []*scan.Update {
	out := make([]*scan.Update, len(us))
	for i := range us {
		out[i] = &us[i]
	}
	rt := func(u *scan.Update) int64 {
		if u.Import {
			return math.MinInt64
		}
		return int64(u.RecordTime())
	}
	slices.SortStableFunc(out, func(a, b *scan.Update) int {
		return cmp.Or(
			cmp.Compare(a.MigrationID(), b.MigrationID()),
			cmp.Compare(rt(a), rt(b)),
			strings.Compare(string(a.Synchronizer()), string(b.Synchronizer())),
			strings.Compare(a.UpdateID(), b.UpdateID()),
		)
	})
	return out
}
