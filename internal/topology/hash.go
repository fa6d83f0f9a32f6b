package topology

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/sandnet/sandnet/internal/signing"
)

// MultiHash returns the hash one signature signs to cover several
// topology transactions, Canton's MultiTransactionSignature combined
// hash: Hash(PurposeMultiTopologyTransaction, int32(n) ‖ for each distinct
// hash in ascending hex order: int32(len) ‖ hash), n the number of
// distinct hashes. The order of hashes does not matter, nor do repeats.
func MultiHash(hashes [][]byte) []byte {
	sorted := slices.Clone(hashes)
	// Byte order is hex order: each byte maps to two hex digits in
	// ascending order.
	slices.SortFunc(sorted, bytes.Compare)
	sorted = slices.CompactFunc(sorted, bytes.Equal)
	data := binary.BigEndian.AppendUint32(nil, uint32(len(sorted)))
	for _, h := range sorted {
		data = binary.BigEndian.AppendUint32(data, uint32(len(h)))
		data = append(data, h...)
	}
	return signing.Hash(signing.PurposeMultiTopologyTransaction, data)
}
