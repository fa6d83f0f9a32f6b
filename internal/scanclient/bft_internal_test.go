package scanclient

import "testing"

func TestFaults(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]int{1: 0, 2: 0, 3: 0, 4: 1, 6: 1, 7: 2, 10: 3} {
		if got := faults(n); got != want {
			t.Errorf("faults(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestTally(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		votes   []string
		pending int
		need    int
		winner  string
		ok      bool
		done    bool
	}{
		{"one Scan answered", []string{"a"}, 0, 1, "a", true, true},
		{"nothing yet", nil, 3, 1, "", false, false},
		{"first of three may be outvoted", []string{"a"}, 2, 1, "", false, false},
		{"two of three agree early", []string{"a", "a"}, 1, 1, "a", true, true},
		{"one liar of three", []string{"a", "b", "a"}, 0, 1, "a", true, true},
		{"three different answers", []string{"a", "b", "c"}, 0, 1, "", false, true},
		{"a tie", []string{"a", "b"}, 0, 1, "", false, true},
		{"tie may still break", []string{"a", "b"}, 1, 1, "", false, false},
		{"four Scans, f=1: two agree, two left", []string{"a", "a"}, 2, 2, "", false, false},
		{"four Scans, f=1: three agree", []string{"a", "a", "a"}, 1, 2, "a", true, true},
		{"four Scans, one silent, one liar", []string{"a", "b", "a"}, 0, 2, "a", true, true},
		{"four Scans, only one answered", []string{"a"}, 0, 2, "", false, true},
		{"cannot reach need any more", []string{"a", "b", "c"}, 1, 3, "", false, true},
		{"no answers at all", nil, 0, 1, "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, ok, done := tally(tt.votes, tt.pending, tt.need)
			if w != tt.winner || ok != tt.ok || done != tt.done {
				t.Errorf("tally(%q, %d, %d) = %q %v %v, want %q %v %v", tt.votes, tt.pending, tt.need, w, ok, done, tt.winner, tt.ok, tt.done)
			}
		})
	}
}
