package bufpool

import "testing"

func TestPool(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		size int
	}{{"small", 10}, {"at the limit", 64}, {"outsized", 65}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := &Pool{Max: 64}
			h := p.Get()
			if len(*h) != 0 {
				t.Fatalf("Get gave %d bytes, want an empty buffer", len(*h))
			}
			b := append((*h)[:0], make([]byte, tc.size)...)
			p.Put(h, b)
			// A kept buffer is the handle's, emptied; an outsized one is
			// not, and the handle stays as it was.
			wantCap := cap(b)
			if wantCap > p.Max {
				wantCap = 0
			}
			if len(*h) != 0 || cap(*h) != wantCap {
				t.Errorf("after Put, the handle holds len %d cap %d, want 0 and %d", len(*h), cap(*h), wantCap)
			}
			if g := p.Get(); len(*g) != 0 || cap(*g) > p.Max {
				t.Errorf("Get after Put gave len %d cap %d, want empty within %d", len(*g), cap(*g), p.Max)
			}
		})
	}
}
