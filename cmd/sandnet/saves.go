package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/store"
	"github.com/sandnet/sandnet/internal/store/pgstore"
	"github.com/sandnet/sandnet/internal/store/sqlitestore"
)

// saver saves the whole network and restores it (the admin API's
// /saves routes). One save or restore runs at a time: another asked for
// meanwhile is refused with 409 rather than queued, so that a test suite
// never restores a network that a save still copies.
type saver struct {
	// ctx is the process's: a restored node lives in it.
	ctx   context.Context
	main  *Main
	srv   *server
	saves store.Saves
	close func()

	running sync.Mutex
}

func newSaver(ctx context.Context, m *Main, srv *server) (*saver, error) {
	s := &saver{ctx: ctx, main: m, srv: srv, close: func() {}}
	if m.Config.DatabaseURL == "" {
		sq := sqlitestore.NewSaves(m.Config.DataDir)
		s.saves, s.close = sq, sq.Close
		return s, nil
	}
	pg, err := pgstore.OpenSaves(ctx, m.Config.DatabaseURL, m.Config.DBSchema)
	if err != nil {
		return nil, fmt.Errorf("open PostgreSQL for saves: %w", err)
	}
	s.saves, s.close = pg, pg.Close
	return s, nil
}

// begin takes the one save-or-restore slot, and checks that the network
// served runs nothing a save must not cut across.
func (s *saver) begin(ctx context.Context, what string) (*node, func(), error) {
	if !s.running.TryLock() {
		return nil, nil, fault.New(fault.AlreadyExists, "cannot %s now: another save or restore is running; try again when it has finished", what)
	}
	n, err := s.srv.awaitNode(ctx)
	if err != nil {
		s.running.Unlock()
		return nil, nil, err
	}
	busy, err := n.busy(ctx)
	if err == nil && busy != "" {
		err = fault.New(fault.AlreadyExists, "cannot %s while %s runs; try again when it has finished", what, busy)
	}
	if err != nil {
		s.running.Unlock()
		return nil, nil, err
	}
	return n, s.running.Unlock, nil
}

// Save implements admin.Saver.
func (s *saver) Save(ctx context.Context, name string) (store.SaveInfo, error) {
	n, done, err := s.begin(ctx, "save")
	if err != nil {
		return store.SaveInfo{}, err
	}
	defer done()
	if name == "" {
		if name, err = s.nextName(ctx); err != nil {
			return store.SaveInfo{}, err
		}
	}
	start := time.Now()
	info, err := s.saves.Save(ctx, store.SaveRequest{Name: name, Participant: n.seeded.Validator.Participant, Live: n.stores()})
	if err != nil {
		return store.SaveInfo{}, err
	}
	s.main.Logger.Info("network saved", "save", name, "ledger_end", info.LedgerEnd, "size_bytes", info.SizeBytes,
		"took", time.Since(start).Round(time.Millisecond))
	return info, nil
}

// nextName is the default name of a new save: save-<n>, one more than
// the largest n saved so far.
func (s *saver) nextName(ctx context.Context) (string, error) {
	all, err := s.saves.List(ctx)
	if err != nil {
		return "", err
	}
	next := 1
	for _, sv := range all {
		if k, err := strconv.Atoi(strings.TrimPrefix(sv.Name, "save-")); err == nil && strings.HasPrefix(sv.Name, "save-") && k >= next {
			next = k + 1
		}
	}
	return fmt.Sprintf("save-%d", next), nil
}

// Saves implements admin.Saver.
func (s *saver) Saves(ctx context.Context) ([]store.SaveInfo, error) { return s.saves.List(ctx) }

// GetSave implements admin.Saver.
func (s *saver) GetSave(ctx context.Context, name string) (store.SaveInfo, error) {
	return s.saves.Get(ctx, name)
}

// DeleteSave implements admin.Saver. A save being restored cannot be
// deleted meanwhile.
func (s *saver) DeleteSave(ctx context.Context, name string) error {
	if !s.running.TryLock() {
		return fault.New(fault.AlreadyExists, "cannot delete a save now: a save or restore is running; try again when it has finished")
	}
	defer s.running.Unlock()
	return s.saves.Delete(ctx, name)
}

// errRestored is the cause that ends the requests and streams of a node
// replaced by a restore.
func errRestored(name string) error {
	return fault.New(fault.Unavailable, "the network was restored from save %q: open the stream again", name)
}

// Restore implements admin.Saver: it checks the save without touching
// the network (an unknown or damaged save is refused with the network
// unchanged), then takes the node out of service (its requests and
// streams end, new ones wait), closes it, puts the saved stores in place
// and opens a node on them, whose clock resumes at the saved ledger time.
func (s *saver) Restore(ctx context.Context, name string) (store.SaveInfo, error) {
	n, done, err := s.begin(ctx, "restore")
	if err != nil {
		return store.SaveInfo{}, err
	}
	defer done()
	if err := n.restorable(ctx); err != nil {
		return store.SaveInfo{}, err
	}
	start := time.Now()
	info, rs, err := s.saves.Prepare(ctx, name)
	if err != nil {
		return store.SaveInfo{}, err
	}
	prepared := time.Since(start)
	// From here on the restore finishes even if its caller leaves.
	ctx = context.WithoutCancel(ctx)
	n = s.srv.takeNode(fmt.Sprintf("restoring save %q", name))
	n.close(errRestored(name))
	closed := time.Since(start)
	if err := rs.Apply(ctx); err != nil {
		s.main.Logger.Error("restore failed: the stores may be half restored", "save", name, "err", err)
		s.srv.failed(fmt.Sprintf("restoring save %q failed: %v", name, err))
		return store.SaveInfo{}, fmt.Errorf("restore %s: %w", name, err)
	}
	applied := time.Since(start)
	deps := s.srv.deps
	deps.resumeAt = info.LedgerTime
	next, err := openNode(s.ctx, deps)
	if err != nil {
		s.main.Logger.Error("the restored network did not open", "save", name, "err", err)
		s.srv.failed(fmt.Sprintf("the network restored from save %q did not open: %v", name, err))
		return store.SaveInfo{}, fmt.Errorf("open the network restored from %s: %w", name, err)
	}
	s.srv.setNode(next)
	s.main.Logger.Info("network restored", "save", name, "ledger_end", info.LedgerEnd,
		"took", time.Since(start).Round(time.Millisecond), "checked", prepared.Round(time.Millisecond),
		"closed", closed.Round(time.Millisecond), "applied", applied.Round(time.Millisecond))
	return info, nil
}
