package validator

import (
	"strings"
	"unicode/utf8"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger/splice"
)

// The bounds of what the transaction log stores. A transfer's keys are
// indexed (PostgreSQL's btree refuses an entry over about 2.7 kB), and
// PostgreSQL's text refuses NUL and invalid UTF-8: content beyond them is
// refused at the wallet API and skipped by the log, never stored.
const (
	// MaxTrackingIDBytes fits every tracking id the TransferOffer template
	// allows (fewer than splice.MaxOfferTextLength characters, at most 4
	// bytes each).
	MaxTrackingIDBytes = 4 * (splice.MaxOfferTextLength - 1)
	// MaxIDBytes bounds parties, update ids and contract ids; Canton's are
	// at most 255 characters.
	MaxIDBytes = 512
	// MaxReasonBytes bounds a stored failure reason; a longer one (a
	// withdrawal's free text) is cut.
	MaxReasonBytes = 1024
)

// CheckAmount is the one check of every amount a wallet user asks to move
// or mint (transfer offers, taps, payments): it must be positive. Splice's
// wallet endpoints and templates accept zero and negative amounts and
// leave an offer no one can complete; sandnet refuses them before they
// reach the ledger (docs/decisions.md). what names the amount in the
// message ("Tap amount").
func CheckAmount(what string, amount daml.Numeric) error {
	if amount.Sign() <= 0 {
		return fault.New(fault.InvalidArgument, "%s must be positive, got %s", what, amount)
	}
	return nil
}

// CheckTrackingID refuses a tracking id the transaction log could not
// keep: empty (the log finds transfers by it), longer than
// MaxTrackingIDBytes, or text a database cannot store.
func CheckTrackingID(id string) error {
	switch {
	case id == "":
		return fault.New(fault.InvalidArgument, "tracking_id must not be empty")
	case len(id) > MaxTrackingIDBytes:
		return fault.New(fault.InvalidArgument, "tracking_id %s is longer than %d bytes", fault.Quote(id), MaxTrackingIDBytes)
	case !storable(id):
		return fault.New(fault.InvalidArgument, "tracking_id %s contains a NUL character or invalid UTF-8", fault.Quote(id))
	}
	return nil
}

// Check refuses an event that cannot be a transfer's stored state: one
// without the keys it is found by, with text a database cannot store or
// beyond the bounds above, or in an unknown state. Both store adapters
// refuse such an event; the transaction log skips it.
func (e *TransferEvent) Check() error {
	if err := CheckTrackingID(e.TrackingID); err != nil {
		return fault.Wrap(fault.InvalidArgument, err, "transfer event of update %s has an unusable tracking id", fault.Quote(e.UpdateID))
	}
	if e.Sender == "" || e.Receiver == "" {
		return fault.New(fault.InvalidArgument, "transfer %s without a sender or a receiver", fault.Quote(e.TrackingID))
	}
	for _, id := range []string{string(e.Sender), string(e.Receiver), e.UpdateID, string(e.ContractID)} {
		if len(id) > MaxIDBytes || !storable(id) {
			return fault.New(fault.InvalidArgument, "transfer %s has an unusable party or id %s", fault.Quote(e.TrackingID), fault.Quote(id))
		}
	}
	if len(e.Reason) > MaxReasonBytes || !storable(e.Reason) {
		return fault.New(fault.InvalidArgument, "transfer %s has an unusable reason %s", fault.Quote(e.TrackingID), fault.Quote(e.Reason))
	}
	switch e.State {
	case TransferCreated, TransferAccepted, TransferCompleted:
		return nil
	case TransferFailed:
		switch e.FailureKind {
		case FailureExpired, FailureRejected, FailureWithdrawn:
			return nil
		}
		return fault.New(fault.InvalidArgument, "failed transfer %s of unknown failure kind %s", fault.Quote(e.TrackingID), fault.Quote(string(e.FailureKind)))
	}
	return fault.New(fault.InvalidArgument, "transfer %s in unknown state %s", fault.Quote(e.TrackingID), fault.Quote(string(e.State)))
}

// storable reports whether every database can store s as text.
func storable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// cleanText makes free text from the ledger storable: invalid UTF-8 and
// NUL become U+FFFD, and text beyond max bytes is cut (at a rune
// boundary) and ends in "…".
func cleanText(s string, max int) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
	if len(s) <= max {
		return s
	}
	const ellipsis = "…"
	n := max - len(ellipsis)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + ellipsis
}
