package splice

import (
	"slices"
	"strings"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
)

// This file holds the small Daml data types many Splice modules share:
// rounds, relative times, rates, expiring amounts, locks, schedules and
// the standard library's tuples and sets.

// Round is Splice.Types:Round, a mining round number.
type Round struct {
	Number int64 `daml:"number"`
}

// DamlIdentifier implements daml.Identified.
func (Round) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.Types", "Round")
}

// RelTime is DA.Time's RelTime, a duration in microseconds. Its package is
// daml-stdlib's, whose id depends on the SDK, so it carries no identifier.
type RelTime struct {
	Microseconds int64 `daml:"microseconds"`
}

// Rel converts a Go duration to a RelTime.
func Rel(d time.Duration) RelTime { return RelTime{Microseconds: d.Microseconds()} }

// Duration converts the RelTime to a Go duration.
func (r RelTime) Duration() time.Duration { return time.Duration(r.Microseconds) * time.Microsecond }

// addRel adds a relative time to a timestamp, as Daml's addRelTime.
func addRel(t daml.Timestamp, r RelTime) daml.Timestamp {
	return t + daml.Timestamp(r.Microseconds)
}

// Tuple2 is DA.Types' Tuple2, a Daml pair.
type Tuple2[A, B any] struct {
	First  A `daml:"_1"`
	Second B `daml:"_2"`
}

// Set is DA.Set's Set: a map from the elements to unit.
type Set[K comparable] struct {
	Map daml.Map[K, daml.Unit] `daml:"map"`
}

// Has reports whether k is in the set.
func (s Set[K]) Has(k K) bool {
	_, ok := s.Map.Get(k)
	return ok
}

// TextSet builds a DA.Set of texts in Daml's (sorted) order.
func TextSet(elems ...string) Set[string] {
	sorted := slices.Clone(elems)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	m := make(daml.Map[string, daml.Unit], 0, len(sorted))
	for _, e := range sorted {
		m = append(m, daml.MapEntry[string, daml.Unit]{Key: e})
	}
	return Set[string]{Map: m}
}

// mapOf builds a DA.Map with its entries sorted by key, as Daml keeps
// them. Keys are texts or parties here; both sort as strings.
func mapOf[K ~string, V any](entries map[K]V) daml.Map[K, V] {
	keys := make([]K, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	m := make(daml.Map[K, V], 0, len(keys))
	for _, k := range keys {
		m = append(m, daml.MapEntry[K, V]{Key: k, Value: entries[k]})
	}
	return m
}

// mapInsert returns m with k set to v, keeping the key order.
func mapInsert[K ~string, V any](m daml.Map[K, V], k K, v V) daml.Map[K, V] {
	out := make(daml.Map[K, V], 0, len(m)+1)
	inserted := false
	for _, e := range m {
		switch {
		case e.Key == k:
			out = append(out, daml.MapEntry[K, V]{Key: k, Value: v})
			inserted = true
			continue
		case !inserted && k < e.Key:
			out = append(out, daml.MapEntry[K, V]{Key: k, Value: v})
			inserted = true
		}
		out = append(out, e)
	}
	if !inserted {
		out = append(out, daml.MapEntry[K, V]{Key: k, Value: v})
	}
	return out
}

// RatePerRound is Splice.Fees:RatePerRound.
type RatePerRound struct {
	Rate daml.Numeric `daml:"rate"`
}

// DamlIdentifier implements daml.Identified.
func (RatePerRound) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.Fees", "RatePerRound")
}

// FixedFee is Splice.Fees:FixedFee.
type FixedFee struct {
	Fee daml.Numeric `daml:"fee"`
}

// DamlIdentifier implements daml.Identified.
func (FixedFee) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.Fees", "FixedFee")
}

// SteppedRate is Splice.Fees:SteppedRate, a piecewise linear fee: the
// initial rate up to the first step, then each step's rate above it.
type SteppedRate struct {
	InitialRate daml.Numeric                         `daml:"initialRate"`
	Steps       []Tuple2[daml.Numeric, daml.Numeric] `daml:"steps"`
}

// DamlIdentifier implements daml.Identified.
func (SteppedRate) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.Fees", "SteppedRate")
}

// ExpiringAmount is Splice.Fees:ExpiringAmount: an amount created in a
// round that loses ratePerRound every round after (the holding fee).
type ExpiringAmount struct {
	InitialAmount daml.Numeric `daml:"initialAmount"`
	CreatedAt     Round        `daml:"createdAt"`
	RatePerRound  RatePerRound `daml:"ratePerRound"`
}

// DamlIdentifier implements daml.Identified.
func (ExpiringAmount) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.Fees", "ExpiringAmount")
}

// TimeLock is Splice.Expiry:TimeLock, the lock of a LockedAmulet.
type TimeLock struct {
	Holders    []daml.Party   `daml:"holders"`
	ExpiresAt  daml.Timestamp `daml:"expiresAt"`
	OptContext *string        `daml:"optContext"`
}

// DamlIdentifier implements daml.Identified.
func (TimeLock) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.Expiry", "TimeLock")
}

// Schedule is Splice.Schedule:Schedule, a value changing at future times.
// sandnet's networks never schedule future values; the field is kept for
// the payload's shape.
type Schedule[T, A any] struct {
	InitialValue A              `daml:"initialValue"`
	FutureValues []Tuple2[T, A] `daml:"futureValues"`
}

// DamlIdentifier implements daml.Identified.
func (Schedule[T, A]) DamlIdentifier() daml.Identifier {
	return PackageAmulet.Identifier("Splice.Schedule", "Schedule")
}

// Metadata is the token standard's Splice.Api.Token.MetadataV1:Metadata.
type Metadata struct {
	Values map[string]string `daml:"values"`
}

// DamlIdentifier implements daml.Identified.
func (Metadata) DamlIdentifier() daml.Identifier {
	return PackageTokenMetadata.Identifier(moduleTokenMetadataV1, "Metadata")
}

// showDecimal renders a Decimal as Daml's `show` does: no trailing zeros,
// but at least one digit after the point ("0.5", "10.0").
func showDecimal(n daml.Numeric) string {
	s := n.String()
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = strings.TrimRight(s, "0")
		if strings.HasSuffix(s, ".") {
			s += "0"
		}
	}
	return s
}

// num parses a decimal constant of this package; it panics on a typo.
func num(s string) daml.Numeric { return daml.MustNumeric(s) }

func ptr[T any](v T) *T { return &v }
