package daml

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/sandnet/sandnet/internal/fault"
)

// Daml-LF's Time and Date cover the years 0001 to 9999, UTC.
const (
	// MinTimestamp is 0001-01-01T00:00:00.000000Z.
	MinTimestamp Timestamp = -62135596800000000
	// MaxTimestamp is 9999-12-31T23:59:59.999999Z.
	MaxTimestamp Timestamp = 253402300799999999
	// MinDate is 0001-01-01.
	MinDate Date = -719162
	// MaxDate is 9999-12-31.
	MaxDate Date = 2932896
)

const (
	microsPerSecond = 1_000_000
	secondsPerDay   = 86_400
)

// timeStyle selects how many fraction digits a timestamp gets.
type timeStyle uint8

const (
	// timeGrouped is java.time.Instant.toString and ISO_INSTANT: no fraction
	// when it is zero, otherwise 3 or 6 digits (9 never happens at µs).
	timeGrouped timeStyle = iota
	// timeTrimmed is DateTimeFormatter.ISO_DATE_TIME: the fraction with its
	// trailing zeros removed, so ".5", ".29", ".291866".
	timeTrimmed
	// timeMicros is Daml-LF's Timestamp.toString: always 6 digits.
	timeMicros
)

// Valid reports whether t is within Daml's range of times.
func (t Timestamp) Valid() bool { return t >= MinTimestamp && t <= MaxTimestamp }

// Valid reports whether d is within Daml's range of dates.
func (d Date) Valid() bool { return d >= MinDate && d <= MaxDate }

// String renders t as java.time.Instant.toString does, in UTC with 0, 3 or
// 6 fraction digits: "2025-01-27T15:30:37.291866Z", "1970-01-01T00:00:00Z".
// The Ledger API uses this form for effectiveAt, recordTime and createdAt.
func (t Timestamp) String() string {
	var buf [32]byte
	return string(appendTimestamp(buf[:0], t, timeGrouped))
}

// MicrosString renders t with exactly six fraction digits,
// "2024-05-28T14:02:08.731200Z", as Daml-LF's Timestamp.toString does.
// Splice uses this form for record_time and Contract.created_at.
func (t Timestamp) MicrosString() string {
	var buf [32]byte
	return string(appendTimestamp(buf[:0], t, timeMicros))
}

// Time returns t as a time.Time in UTC.
func (t Timestamp) Time() time.Time {
	return time.UnixMicro(int64(t)).UTC()
}

// TimestampFromTime returns tm truncated to the microsecond. It does not
// check Daml's range; see [Timestamp.Valid].
func TimestampFromTime(tm time.Time) Timestamp {
	return Timestamp(tm.UnixMicro())
}

// String renders d as "YYYY-MM-DD".
func (d Date) String() string {
	var buf [16]byte
	return string(appendDate(buf[:0], d))
}

// Time returns midnight UTC of d.
func (d Date) Time() time.Time {
	return time.Unix(int64(d)*secondsPerDay, 0).UTC()
}

// DateFromTime returns the UTC calendar day of tm.
func DateFromTime(tm time.Time) Date {
	return Date(floorDiv(tm.Unix(), secondsPerDay))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// civil converts days since the epoch to a proleptic Gregorian date
// (Howard Hinnant's algorithm), which needs no time.Time allocation.
func civil(days int64) (year, month, day int64) {
	z := days + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// daysFromCivil is the inverse of civil.
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func daysInMonth(y, m int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	default:
		return 31
	}
}

func appendPadded(dst []byte, v int64, width int) []byte {
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], v, 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

func appendDate(dst []byte, d Date) []byte {
	y, m, day := civil(int64(d))
	dst = appendPadded(dst, y, 4)
	dst = append(dst, '-')
	dst = appendPadded(dst, m, 2)
	dst = append(dst, '-')
	return appendPadded(dst, day, 2)
}

func appendTimestamp(dst []byte, t Timestamp, style timeStyle) []byte {
	us := int64(t)
	secs := floorDiv(us, microsPerSecond)
	frac := us - secs*microsPerSecond
	days := floorDiv(secs, secondsPerDay)
	sod := secs - days*secondsPerDay
	dst = appendDate(dst, Date(days))
	dst = append(dst, 'T')
	dst = appendPadded(dst, sod/3600, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, sod/60%60, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, sod%60, 2)
	switch style {
	case timeMicros:
		dst = append(dst, '.')
		dst = appendPadded(dst, frac, 6)
	case timeGrouped:
		if frac != 0 {
			dst = append(dst, '.')
			if frac%1000 == 0 {
				dst = appendPadded(dst, frac/1000, 3)
			} else {
				dst = appendPadded(dst, frac, 6)
			}
		}
	case timeTrimmed:
		if frac != 0 {
			var buf [8]byte
			digits := appendPadded(buf[:0], frac, 6)
			for digits[len(digits)-1] == '0' {
				digits = digits[:len(digits)-1]
			}
			dst = append(dst, '.')
			dst = append(dst, digits...)
		}
	}
	return append(dst, 'Z')
}

var (
	errTimestampRange = errors.New("timestamp outside Daml's range 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z")
	errDateRange      = errors.New("date outside Daml's range 0001-01-01 to 9999-12-31")
)

// digits parses s[i:i+n] as a decimal number; ok is false if any byte is
// not a digit or s is too short.
func digits(s string, i, n int) (int64, bool) {
	if i+n > len(s) {
		return 0, false
	}
	var v int64
	for _, c := range []byte(s[i : i+n]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// parseDateAt parses "YYYY-MM-DD" at the start of s and returns the days
// since the epoch.
func parseDateAt(s string) (int64, bool) {
	y, ok1 := digits(s, 0, 4)
	m, ok2 := digits(s, 5, 2)
	d, ok3 := digits(s, 8, 2)
	if !ok1 || !ok2 || !ok3 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	if y < 1 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) {
		return 0, false
	}
	return daysFromCivil(y, m, d), true
}

// ParseDate parses an ISO-8601 calendar date, "2025-06-18", within Daml's
// range.
func ParseDate(s string) (Date, error) {
	if len(s) != 10 {
		return 0, fmt.Errorf("invalid date %s: want YYYY-MM-DD", fault.Quote(s))
	}
	days, ok := parseDateAt(s)
	if !ok {
		return 0, fmt.Errorf("invalid date %s: want YYYY-MM-DD", fault.Quote(s))
	}
	if d := Date(days); d.Valid() {
		return d, nil
	}
	return 0, fmt.Errorf("invalid date %s: %w", fault.Quote(s), errDateRange)
}

// ParseTimestamp parses an ISO-8601 instant with an offset, as the Ledger
// API's decoders (Instant.parse, ISO_DATE_TIME) accept it:
// "2025-01-27T15:30:37.291866Z", "2025-01-27T16:30:37+01:00",
// "2025-01-27T15:30Z". Seconds are optional; the fraction may have up to 9
// digits and is truncated to the microsecond, as Canton does.
func ParseTimestamp(s string) (Timestamp, error) {
	t, err := parseTimestamp(s)
	if err != nil {
		return 0, fmt.Errorf("invalid timestamp %s: %w", fault.Quote(s), err)
	}
	return t, nil
}

func parseTimestamp(s string) (Timestamp, error) {
	errSyntax := errors.New("want an ISO-8601 instant such as 2025-01-27T15:30:37.291866Z")
	if len(s) < 17 || len(s) > 64 {
		return 0, errSyntax
	}
	days, ok := parseDateAt(s)
	if !ok || (s[10] != 'T' && s[10] != 't') {
		return 0, errSyntax
	}
	hh, ok1 := digits(s, 11, 2)
	mm, ok2 := digits(s, 14, 2)
	if !ok1 || !ok2 || s[13] != ':' || hh > 23 || mm > 59 {
		return 0, errSyntax
	}
	i := 16
	var ss, frac int64
	if i < len(s) && s[i] == ':' {
		v, ok := digits(s, i+1, 2)
		if !ok || v > 59 {
			return 0, errSyntax
		}
		ss = v
		i += 3
		if i < len(s) && s[i] == '.' {
			i++
			start := i
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			n := i - start
			if n == 0 || n > 9 {
				return 0, errSyntax
			}
			// Keep the first six digits (microseconds); the rest is
			// truncated like Canton's getNano / 1000.
			for k := 0; k < 6; k++ {
				frac *= 10
				if k < n {
					frac += int64(s[start+k] - '0')
				}
			}
		}
	}
	offset, ok := parseOffset(s[i:])
	if !ok {
		return 0, errSyntax
	}
	secs := days*secondsPerDay + hh*3600 + mm*60 + ss - offset
	t := Timestamp(secs*microsPerSecond + frac)
	if !t.Valid() {
		return 0, errTimestampRange
	}
	return t, nil
}

// parseOffset parses "Z", "+HH:MM", "+HH:MM:SS", "+HHMM" or "+HH" and
// returns the offset in seconds.
func parseOffset(s string) (int64, bool) {
	if s == "Z" || s == "z" {
		return 0, true
	}
	if len(s) < 3 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	h, ok := digits(s, 1, 2)
	if !ok {
		return 0, false
	}
	var m, sec int64
	switch rest := s[3:]; {
	case rest == "":
	case len(rest) == 2:
		if m, ok = digits(rest, 0, 2); !ok {
			return 0, false
		}
	case len(rest) == 3 && rest[0] == ':':
		if m, ok = digits(rest, 1, 2); !ok {
			return 0, false
		}
	case len(rest) == 6 && rest[0] == ':' && rest[3] == ':':
		if m, ok = digits(rest, 1, 2); !ok {
			return 0, false
		}
		if sec, ok = digits(rest, 4, 2); !ok {
			return 0, false
		}
	default:
		return 0, false
	}
	if h > 18 || m > 59 || sec > 59 || (h == 18 && (m > 0 || sec > 0)) {
		return 0, false
	}
	off := h*3600 + m*60 + sec
	if s[0] == '-' {
		off = -off
	}
	return off, true
}
