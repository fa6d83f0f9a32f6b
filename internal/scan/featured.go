package scan

import (
	"context"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// FeaturedAppRight returns the provider's FeaturedAppRight as the Scan
// ingested it (the first one, when the DSO granted several), or nil when
// the provider has none: Splice's lookup answers "none" as an empty
// result, not as an error.
func (s *Service) FeaturedAppRight(ctx context.Context, provider daml.Party) (*ledger.Contract, error) {
	st, err := s.registry(ctx)
	if err != nil {
		return nil, err
	}
	return st.featured[provider], nil
}
