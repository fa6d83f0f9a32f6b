package pgstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sandnet/sandnet/internal/fault"
)

// TryLead implements [store.Leader] with a session-level advisory lock held
// on a connection of its own: PostgreSQL releases it when that session
// ends, so a leader that crashes or loses its connection is replaced
// without any lease expiry to wait for. The connection is opened outside the
// pool so that leadership never takes a connection from the queries.
//
// While leading, the connection is pinged every second; a failed ping ends
// leadership (lost is closed). That interval bounds how long this process
// may still believe it leads after PostgreSQL dropped its session and
// another process took over, so leader work should be idempotent, as
// sandnet's automation is (it acts through [Ledger.Write], which re-checks
// state under the write lock).
func (l *Ledger) TryLead(ctx context.Context) (lost <-chan struct{}, ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	cfg := l.conn.Copy()
	// Named, so that an operator looking at pg_stat_activity sees which
	// session holds leadership.
	cfg.RuntimeParams["application_name"] = "sandnet leader " + l.schema
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, false, interpret(err)
	}
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, l.leadKey).Scan(&got); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, false, interpret(err)
	}
	if !got {
		conn.Close(context.WithoutCancel(ctx))
		return nil, false, nil
	}
	l.leadMu.Lock()
	if l.closed {
		l.leadMu.Unlock()
		conn.Close(context.WithoutCancel(ctx))
		return nil, false, fault.New(fault.Unavailable, "ledger store is closed")
	}
	l.leases.Add(1)
	l.leadMu.Unlock()
	done := make(chan struct{})
	go l.hold(ctx, conn, done)
	return done, true, nil
}

// hold keeps the lease's connection alive until the lease ends, then
// releases the lock and closes done.
func (l *Ledger) hold(ctx context.Context, conn *pgx.Conn, done chan struct{}) {
	defer l.leases.Done()
	defer close(done)
	bg := context.WithoutCancel(ctx)
	t := time.NewTicker(l.leaseCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
		case <-l.closing:
		case <-t.C:
			pctx, cancel := context.WithTimeout(bg, l.leaseCheck)
			err := conn.Ping(pctx)
			cancel()
			if err == nil {
				continue
			}
			// The session is gone or unusable: so is the lock.
			cctx, cancel := context.WithTimeout(bg, time.Second)
			conn.Close(cctx)
			cancel()
			return
		}
		// Unlock explicitly rather than rely on the close, so that the next
		// TryLead, in this process or another, succeeds at once.
		uctx, cancel := context.WithTimeout(bg, 5*time.Second)
		_, _ = conn.Exec(uctx, `SELECT pg_advisory_unlock($1)`, l.leadKey)
		conn.Close(uctx)
		cancel()
		return
	}
}
