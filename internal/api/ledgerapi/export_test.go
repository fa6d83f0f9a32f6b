package ledgerapi

import (
	"bufio"
	"encoding/json"
	"io"
	"math"

	"github.com/sandnet/sandnet/internal/ledger"
)

// EncodeFromMemory renders updates already in memory as POST /v2/updates
// would for a GetUpdatesRequest body, and writes the array to w: the same
// projection and encoding, without the store and without HTTP. It returns
// the number of elements. The benchmarks use it as the ceiling of the
// list's throughput.
func (h *Handler) EncodeFromMemory(body []byte, ups []ledger.ParticipantUpdate, w io.Writer) (int, error) {
	req, err := decodeGetUpdatesRequest(body)
	if err != nil {
		return 0, err
	}
	uf, err := effectiveFormat(req, false)
	if err != nil {
		return 0, err
	}
	plan, err := compile(req, uf)
	if err != nil {
		return 0, err
	}
	if err := plan.resolve(h.cfg.Registry); err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(w, flushBytes)
	_ = bw.WriteByte('[')
	l := &lister{h: h, plan: plan, take: math.MaxInt}
	l.emit = func(b json.RawMessage) error {
		if l.n > 1 {
			_ = bw.WriteByte(',')
		}
		_, err := bw.Write(b)
		return err
	}
	pr := l.projector()
	for i := range ups {
		tx, err := pr.transaction(ups[i].Offset, ups[i].Transaction)
		if err != nil {
			return l.n, err
		}
		if tx != nil {
			if err := l.add(JsGetUpdatesResponse{Update: Update{Transaction: &Wrapped[JsTransaction]{Value: *tx}}}); err != nil {
				return l.n, err
			}
		}
	}
	_ = bw.WriteByte(']')
	return l.n, bw.Flush()
}
