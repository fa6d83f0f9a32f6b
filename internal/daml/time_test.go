package daml

import (
	"testing"
	"time"
)

func TestTimestampFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		us                       Timestamp
		grouped, trimmed, micros string
	}{
		{0, "1970-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000000Z"},
		{1, "1970-01-01T00:00:00.000001Z", "1970-01-01T00:00:00.000001Z", "1970-01-01T00:00:00.000001Z"},
		{-1, "1969-12-31T23:59:59.999999Z", "1969-12-31T23:59:59.999999Z", "1969-12-31T23:59:59.999999Z"},
		{290000, "1970-01-01T00:00:00.290Z", "1970-01-01T00:00:00.29Z", "1970-01-01T00:00:00.290000Z"},
		{291800, "1970-01-01T00:00:00.291800Z", "1970-01-01T00:00:00.2918Z", "1970-01-01T00:00:00.291800Z"},
		{1737991837291866, "2025-01-27T15:30:37.291866Z", "2025-01-27T15:30:37.291866Z", "2025-01-27T15:30:37.291866Z"},
		{MinTimestamp, "0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000000Z"},
		{MaxTimestamp, "9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59.999999Z"},
		{951782400000000, "2000-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "2000-02-29T00:00:00.000000Z"},
	}
	for _, tc := range tests {
		if got := tc.us.String(); got != tc.grouped {
			t.Errorf("%d String() = %s, want %s", tc.us, got, tc.grouped)
		}
		if got := string(appendTimestamp(nil, tc.us, timeTrimmed)); got != tc.trimmed {
			t.Errorf("%d trimmed = %s, want %s", tc.us, got, tc.trimmed)
		}
		if got := tc.us.MicrosString(); got != tc.micros {
			t.Errorf("%d MicrosString() = %s, want %s", tc.us, got, tc.micros)
		}
		// Agree with the standard library.
		if got := tc.us.Time().Format("2006-01-02T15:04:05.000000Z"); got != tc.micros {
			t.Errorf("%d Time() = %s, want %s", tc.us, got, tc.micros)
		}
		for _, s := range []string{tc.grouped, tc.trimmed, tc.micros} {
			back, err := ParseTimestamp(s)
			if err != nil || back != tc.us {
				t.Errorf("ParseTimestamp(%s) = %d, %v; want %d", s, back, err, tc.us)
			}
		}
	}
}

func TestParseTimestampOffsets(t *testing.T) {
	t.Parallel()
	want := Timestamp(1737991837000000) // 2025-01-27T15:30:37Z
	for _, s := range []string{
		"2025-01-27T15:30:37Z",
		"2025-01-27T16:30:37+01:00",
		"2025-01-27T16:30:37+0100",
		"2025-01-27T16:30:37+01",
		"2025-01-27T10:00:37-05:30",
		"2025-01-27T16:30:37+01:00:00",
		"2025-01-27T15:30:37.000Z",
		"2025-01-27T15:30:37.000000000Z",
		"2025-01-28T09:30:37+18:00",
		"2025-01-27t15:30:37z",
	} {
		got, err := ParseTimestamp(s)
		if err != nil || got != want {
			t.Errorf("ParseTimestamp(%s) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{
		"", "2025-01-27", "2025-01-27T15:30:37", "2025-01-27 15:30:37Z", "2025-01-27T15:30:37+19:00",
		"2025-01-27T15:30:37+01:60", "2025-1-27T15:30:37Z", "2025-01-27T15:30:37.Z", "2025-01-27T15:30:37,5Z",
		"2025-01-27T15:3:37Z", "+2025-01-27T15:30:37Z", "2025-01-27T15:30:37ZZ", "2025-01-27T15:30:37+01:00[Europe/Paris]",
		"9999-12-31T23:59:59.999999-01:00", "２０２５-01-27T15:30:37Z",
	} {
		if got, err := ParseTimestamp(s); err == nil {
			t.Errorf("ParseTimestamp(%q) = %v, want an error", s, got)
		}
	}
}

func TestDates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d Date
		s string
	}{
		{0, "1970-01-01"}, {-1, "1969-12-31"}, {MinDate, "0001-01-01"}, {MaxDate, "9999-12-31"},
		{20257, "2025-06-18"}, {11016, "2000-02-29"}, {-25509, "1900-02-28"}, {-25508, "1900-03-01"},
	} {
		if got := tc.d.String(); got != tc.s {
			t.Errorf("%d.String() = %s, want %s", tc.d, got, tc.s)
		}
		if got, err := ParseDate(tc.s); err != nil || got != tc.d {
			t.Errorf("ParseDate(%s) = %d, %v", tc.s, got, err)
		}
		if got := tc.d.Time().Format(time.DateOnly); got != tc.s {
			t.Errorf("%d.Time() = %s", tc.d, got)
		}
		if got := DateFromTime(tc.d.Time().Add(23 * time.Hour)); got != tc.d {
			t.Errorf("DateFromTime = %d, want %d", got, tc.d)
		}
	}
	for _, s := range []string{"", "1900-02-29", "2025-00-01", "2025-04-31", "0000-01-01", "10000-01-01", "2025-1-1", "2025/01/01"} {
		if d, err := ParseDate(s); err == nil {
			t.Errorf("ParseDate(%q) = %d, want an error", s, d)
		}
	}
	if !MinDate.Valid() || (MinDate - 1).Valid() || !MaxDate.Valid() || (MaxDate + 1).Valid() {
		t.Error("Date.Valid bounds")
	}
	if !MinTimestamp.Valid() || (MinTimestamp - 1).Valid() || !MaxTimestamp.Valid() || (MaxTimestamp + 1).Valid() {
		t.Error("Timestamp.Valid bounds")
	}
	tm := time.Date(2025, 1, 27, 15, 30, 37, 291866999, time.UTC)
	if got := TimestampFromTime(tm); got != 1737991837291866 {
		t.Errorf("TimestampFromTime = %d", got)
	}
}
