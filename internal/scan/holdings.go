package scan

import (
	"context"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// MaxSummaryHoldings is the most holdings a holdings summary adds up, as
// in Splice: past it the summary fails rather than page.
const MaxSummaryHoldings = MaxPageSize

// HoldingTemplates are the templates of the holdings endpoints: Amulet
// and LockedAmulet.
var HoldingTemplates = []TemplateKey{
	KeyOf(splice.Amulet{}.TemplateID()),
	KeyOf(splice.LockedAmulet{}.TemplateID()),
}

// HoldingsRequest asks for a page of the holdings of some owners in an
// ACS snapshot. Its fields mean what [AcsRequest]'s do; Owners takes the
// place of the stakeholder and template filters.
type HoldingsRequest struct {
	Migration  int64
	RecordTime daml.Timestamp
	AtOrBefore bool
	After      int64
	PageSize   int64
	// Owners are the parties whose amulets are wanted; at least one.
	Owners []daml.Party
}

// ownersField is how Splice's holdings/state names its owner list in the
// message refusing an empty one.
const ownersField = "ownerPartyIds"

// summaryOwnersField is how Splice's holdings/summary names it.
const summaryOwnersField = "partyIds"

func emptyList(field string) error {
	return fault.New(fault.InvalidArgument, "Expected '%s' to contain at least one item, but contained none.", field)
}

// resolve applies Splice's order of checks before the owner list is
// looked at: an `at_or_before` request finds its snapshot first, so that a
// request with no snapshot before its time is a 404 whatever its owners.
func (s *Service) resolve(ctx context.Context, migration int64, t daml.Timestamp, atOrBefore bool) error {
	if !atOrBefore {
		return nil
	}
	_, err := s.Store.SnapshotAtOrBefore(ctx, migration, t)
	if fault.Is(err, fault.NotFound) {
		return fault.New(fault.NotFound, "No snapshots found before %s", t)
	}
	return err
}

// HoldingsState returns a page of the Amulet and LockedAmulet contracts of
// some owners in an ACS snapshot, in creation order. It is a page of
// [Service.Acs] filtered by stakeholder and template, less the holdings
// whose owner is not listed (a lock holder is a stakeholder of the locked
// amulets it holds): as in Splice, a page may hold fewer than PageSize
// contracts and still have a next page, its token counting the rows the
// stakeholder filter passed.
func (s *Service) HoldingsState(ctx context.Context, r HoldingsRequest) (AcsPage, error) {
	page, _, err := s.holdingsPage(ctx, r)
	return page, err
}

// holdingsPage is HoldingsState with the holding of each row it keeps,
// decoded once for the owner filter and the summary alike.
func (s *Service) holdingsPage(ctx context.Context, r HoldingsRequest) (AcsPage, []holding, error) {
	if err := CheckLimit(r.PageSize); err != nil {
		return AcsPage{}, nil, err
	}
	if len(r.Owners) == 0 {
		if err := s.resolve(ctx, r.Migration, r.RecordTime, r.AtOrBefore); err != nil {
			return AcsPage{}, nil, err
		}
		return AcsPage{}, nil, emptyList(ownersField)
	}
	page, err := s.Acs(ctx, AcsRequest{
		Migration: r.Migration, RecordTime: r.RecordTime, AtOrBefore: r.AtOrBefore,
		After: r.After, PageSize: r.PageSize, Parties: r.Owners, Templates: HoldingTemplates,
	})
	if err != nil {
		return AcsPage{}, nil, err
	}
	owners := make(map[daml.Party]bool, len(r.Owners))
	for _, p := range r.Owners {
		owners[p] = true
	}
	kept := page.Rows[:0]
	var holdings []holding
	for _, row := range page.Rows {
		h, err := holdingOf(row.Contract)
		if err != nil {
			return AcsPage{}, nil, err
		}
		if owners[h.owner] {
			kept = append(kept, row)
			holdings = append(holdings, h)
		}
	}
	page.Rows = kept
	return page, holdings, nil
}

// holding is an Amulet or a LockedAmulet as the summary counts it.
type holding struct {
	owner  daml.Party
	amount splice.ExpiringAmount
	locked bool
}

func holdingOf(c *ledger.Contract) (holding, error) {
	switch KeyOf(c.Template) {
	case HoldingTemplates[0]:
		a, err := splice.Decode[splice.Amulet](c)
		if err != nil {
			return holding{}, fault.Wrap(fault.Internal, err, "decode %s", c.ID)
		}
		return holding{owner: a.Payload.Owner, amount: a.Payload.Amount}, nil
	case HoldingTemplates[1]:
		l, err := splice.Decode[splice.LockedAmulet](c)
		if err != nil {
			return holding{}, fault.Wrap(fault.Internal, err, "decode %s", c.ID)
		}
		return holding{owner: l.Payload.Amulet.Owner, amount: l.Payload.Amulet.Amount, locked: true}, nil
	}
	return holding{}, fault.New(fault.Internal, "contract %s of %s is not a holding", c.ID, KeyOf(c.Template))
}

// HoldingsSummaryRequest asks for the holdings summary of some owners in
// an ACS snapshot.
type HoldingsSummaryRequest struct {
	Migration  int64
	RecordTime daml.Timestamp
	AtOrBefore bool
	Owners     []daml.Party
	// AsOfRound is the round the holding fees are computed as of; nil
	// means the earliest open mining round. WithFees false (the v1
	// summary) needs no round and skips the fees.
	AsOfRound *int64
	WithFees  bool
}

// HoldingsSummary is one owner's holdings added up. Amounts are the
// holdings' initial amounts; the fees are each holding's as of the
// summary's round.
type HoldingsSummary struct {
	Party               daml.Party
	TotalUnlockedCoin   daml.Numeric
	TotalLockedCoin     daml.Numeric
	TotalCoinHoldings   daml.Numeric
	HoldingFeesUnlocked daml.Numeric
	HoldingFeesLocked   daml.Numeric
	HoldingFeesTotal    daml.Numeric
	TotalAvailableCoin  daml.Numeric

	// The exact sums, in the order of the fields above.
	sums [7]daml.Sum
}

// HoldingsSummaryResult is the summary of a snapshot's holdings.
type HoldingsSummaryResult struct {
	Snapshot Snapshot
	// AsOfRound is the round the fees were computed as of (0 without
	// fees).
	AsOfRound int64
	// Summaries has one entry per listed owner with at least one holding,
	// in the order of their first holdings.
	Summaries []HoldingsSummary
}

// HoldingsSummary adds up the holdings of some owners in an ACS snapshot,
// as Splice's Scan does: the sums of the initial amounts, unlocked and
// locked, and with fees the holding fee of each holding as of the round
// (see [HoldingFeeAsOf]) and what is available unlocked after them. More
// than MaxSummaryHoldings holdings (counted as the stakeholder filter of
// [Service.HoldingsState] counts them) fail with FailedPrecondition.
func (s *Service) HoldingsSummary(ctx context.Context, r HoldingsSummaryRequest) (HoldingsSummaryResult, error) {
	defaultRound := r.WithFees && r.AsOfRound == nil
	if defaultRound || len(r.Owners) == 0 {
		// Splice finds the snapshot first. holdingsPage's Acs finds it
		// with the same check, so it is looked up here only when a check
		// before that one may fail: the default round's or the owners'.
		if err := s.resolve(ctx, r.Migration, r.RecordTime, r.AtOrBefore); err != nil {
			return HoldingsSummaryResult{}, err
		}
	}
	var round int64
	if r.WithFees {
		if !defaultRound {
			round = *r.AsOfRound
		} else {
			var err error
			if round, err = s.earliestOpenRound(ctx); err != nil {
				return HoldingsSummaryResult{}, err
			}
		}
	}
	if len(r.Owners) == 0 {
		return HoldingsSummaryResult{}, emptyList(summaryOwnersField)
	}
	req := HoldingsRequest{Migration: r.Migration, RecordTime: r.RecordTime, AtOrBefore: r.AtOrBefore, PageSize: MaxSummaryHoldings, Owners: r.Owners}
	page, holdings, err := s.holdingsPage(ctx, req)
	if err != nil {
		return HoldingsSummaryResult{}, err
	}
	if page.Next != 0 {
		// A full page: one more row past it is one too many.
		more, err := s.Acs(ctx, AcsRequest{
			Migration: r.Migration, RecordTime: page.Snapshot.RecordTime, After: page.Next, PageSize: 1,
			Parties: r.Owners, Templates: HoldingTemplates,
		})
		if err != nil {
			return HoldingsSummaryResult{}, err
		}
		if len(more.Rows) > 0 {
			return HoldingsSummaryResult{}, fault.New(fault.FailedPrecondition,
				"Size of the result exceeded the limit in queryAcsSnapshot. Result size: %d. Limit: %d", MaxSummaryHoldings+1, MaxSummaryHoldings)
		}
	}
	out := HoldingsSummaryResult{Snapshot: page.Snapshot, AsOfRound: round}
	index := map[daml.Party]int{}
	for _, h := range holdings {
		i, ok := index[h.owner]
		if !ok {
			i = len(out.Summaries)
			index[h.owner] = i
			out.Summaries = append(out.Summaries, HoldingsSummary{Party: h.owner})
		}
		var fee daml.Numeric
		if r.WithFees {
			if fee, err = HoldingFeeAsOf(h.amount, round); err != nil {
				return HoldingsSummaryResult{}, err
			}
		}
		out.Summaries[i].add(h, fee)
	}
	for i := range out.Summaries {
		if err := out.Summaries[i].finish(); err != nil {
			return HoldingsSummaryResult{}, err
		}
	}
	return out, nil
}

// add counts a holding and its fee.
func (h *HoldingsSummary) add(x holding, fee daml.Numeric) {
	amount := x.amount.InitialAmount
	if x.locked {
		h.sums[1].Add(amount)
		h.sums[4].Add(fee)
	} else {
		h.sums[0].Add(amount)
		h.sums[3].Add(fee)
		h.sums[6].Add(amount)
		h.sums[6].Add(fee.Neg())
	}
	h.sums[2].Add(amount)
	h.sums[5].Add(fee)
}

// finish turns the exact sums into Numerics, as Splice renders its
// BigDecimal sums: a sum beyond Daml's range fails there too.
func (h *HoldingsSummary) finish() error {
	dst := [7]*daml.Numeric{
		&h.TotalUnlockedCoin, &h.TotalLockedCoin, &h.TotalCoinHoldings,
		&h.HoldingFeesUnlocked, &h.HoldingFeesLocked, &h.HoldingFeesTotal, &h.TotalAvailableCoin,
	}
	for i, s := range h.sums {
		n, err := s.Numeric()
		if err != nil {
			return fault.Wrap(fault.Internal, err, "the holdings of %s add up beyond Daml's Numeric range", fault.Clip(string(h.Party)))
		}
		*dst[i] = n
	}
	return nil
}

// earliestOpenRound is the number of the open mining round created first,
// the summary's default round; none is Splice's FailedPrecondition.
// Splice takes the first in ledger event order; rounds open in number
// order (the three a network starts with in one transaction too), so the
// lowest number is that round, whereas the store's (created_at,
// contract_id) order would pick at random among rounds of one
// transaction.
func (s *Service) earliestOpenRound(ctx context.Context) (int64, error) {
	st, err := s.registry(ctx)
	if err != nil {
		return 0, err
	}
	if len(st.rounds) == 0 {
		return 0, fault.New(fault.FailedPrecondition, "No open mining rounds found.")
	}
	earliest := st.rounds[0].number
	for _, r := range st.rounds[1:] {
		earliest = min(earliest, r.number)
	}
	return earliest, nil
}

// HoldingFeeAsOf is the holding fee Splice's Scan reports for an amount as
// of a round: the rate times the rounds since the amount's creation round,
// at most the initial amount. Unlike [splice.HoldingFee], which the ledger
// charges and which is never negative, a round before the creation round
// gives a negative fee here, because Scan's summary does not clamp it.
func HoldingFeeAsOf(e splice.ExpiringAmount, round int64) (daml.Numeric, error) {
	if round >= e.CreatedAt.Number {
		return splice.HoldingFee(e, splice.Round{Number: round})
	}
	rounds, err := daml.NumericFromInt(round).Sub(daml.NumericFromInt(e.CreatedAt.Number))
	if err != nil {
		return daml.Numeric{}, fault.Wrap(fault.Internal, err, "rounds between %d and %d", e.CreatedAt.Number, round)
	}
	fee, err := e.RatePerRound.Rate.Mul(rounds)
	if err != nil {
		return daml.Numeric{}, fault.Wrap(fault.Internal, err, "the holding fee of %d rounds at %s", round-e.CreatedAt.Number, e.RatePerRound.Rate)
	}
	return fee.Min(e.InitialAmount), nil
}
