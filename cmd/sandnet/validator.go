package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/sandnet/sandnet/internal/api/scanapi"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/ledger/splice"
	"github.com/sandnet/sandnet/internal/scanclient"
	"github.com/sandnet/sandnet/internal/store/pgstore"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
	"github.com/sandnet/sandnet/internal/validator"
)

// validatorNode is the validator app: its own store, the Scan client it
// reads the DSO's contracts with, and its background work (the
// transaction log and the wallet automation).
type validatorNode struct {
	store     validator.Store
	scan      *scanclient.Client
	validator *validator.Validator
}

// openValidatorStore opens the validator's database: <dataDir>/validator.db,
// or the schema <prefix>_validator on PostgreSQL.
func openValidatorStore(ctx context.Context, dataDir, databaseURL, prefix string) (validator.Store, error) {
	if databaseURL != "" {
		s, err := pgstore.OpenValidator(ctx, databaseURL, prefix+"_validator")
		if err != nil {
			return nil, fmt.Errorf("open the validator's PostgreSQL schema: %w", err)
		}
		return s, nil
	}
	s, err := sqlitestore.OpenValidator(ctx, filepath.Join(dataDir, "validator.db"))
	if err != nil {
		return nil, fmt.Errorf("open the validator's SQLite database: %w", err)
	}
	return s, nil
}

// newValidatorNode builds the validator of a seeded network. It reads the
// Scan at scanURL over HTTP, as a real validator reads the SVs' Scans.
func newValidatorNode(st validator.Store, net *ledger.Network, seeded *splice.Seeded, scanURL string, log *slog.Logger) (*validatorNode, error) {
	sc, err := scanclient.New(scanclient.Config{
		URLs: []string{scanURL}, HTTP: &http.Client{Timeout: 30 * time.Second}, Registry: net.Registry(), Logger: log,
	})
	if err != nil {
		return nil, err
	}
	v := seeded.Validator
	val := validator.New(validator.Config{
		Participant: v.Participant, Party: v.Party, OperatorUser: v.OperatorUser,
		DSO: seeded.DSOParty, AnsAcronym: seeded.AnsAcronym,
	}, net, sc, st, log)
	return &validatorNode{store: st, scan: sc, validator: val}, nil
}

// scanURLOf is the base URL of the Scan served on a listener address.
func scanURLOf(addr string) string { return "http://" + addr + scanapi.Prefix }

// run keeps the transaction log current and runs the wallet automation
// until ctx ends.
func (n *validatorNode) run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { _ = n.validator.TxLog().Run(ctx) })
	wg.Go(func() { _ = n.validator.Automation().Run(ctx) })
	wg.Wait()
	return nil
}
