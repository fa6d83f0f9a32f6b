package interactive

import "testing"

// BenchmarkHashV2 measures the V2 hash of the test vectors (the compact
// and the full prepared transaction), as prepare and execute compute it,
// without a trace:
//
//	go test -run '^$' -bench BenchmarkHashV2 -benchmem ./internal/interactive/
func BenchmarkHashV2(b *testing.B) {
	for _, v := range loadVectors(b) {
		pt, err := Unmarshal(v.bytes(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(v.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := HashV2(pt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
