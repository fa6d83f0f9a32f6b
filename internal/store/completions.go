package store

import (
	"context"
	"fmt"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Completions is the completion stream and the deduplication index of
// [ledger.WriteTx.AppendCompletion], [ledger.WriteTx.LastAcceptance] and
// [ledger.Store.Completions], written once for both adapters over the
// dialect seam (see dialect.go) and the tables of migration 0002. Unlike
// the update stream, whose statements each adapter tunes (PostgreSQL
// pipelines a whole append), these are a few small statements per
// command, the same on both engines but for their placeholders and the
// unlimited LIMIT.
type Completions struct {
	d Dialect
	// The fixed statements, rebound for the dialect.
	advance, insert, party, time, upsert, last, ordinal string
}

// NewCompletions returns the completion statements of a dialect.
func NewCompletions(d Dialect) *Completions {
	return &Completions{
		d: d,
		// advance resolves the participant and moves its last offset up
		// to the completion's (a rejection's own offset): one statement
		// that also proves the participant exists.
		advance: d.Rebind(`UPDATE participants
SET last_offset = CASE WHEN last_offset < $2 THEN $2 ELSE last_offset END
WHERE id = $1 RETURNING ordinal`),
		insert: d.Rebind(`INSERT INTO completions (participant, ledger_offset, user_id, body) VALUES ($1, $2, $3, $4)`),
		// party indexes the completion under one of its parties: one
		// fixed statement (prepared once) per party, as a command has
		// one or two.
		party: d.Rebind(`INSERT INTO completion_parties (participant, party, ledger_offset, user_id) VALUES ($1, $2, $3, $4)`),
		// time moves the head's last record time up to a rejection's.
		time: d.Rebind(`UPDATE head SET last_record_time = $1 WHERE id = 1 AND last_record_time < $1`),
		upsert: d.Rebind(`INSERT INTO deduplication (participant, change_id, ledger_offset, record_time, submission_id)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (participant, change_id) DO UPDATE SET ledger_offset = excluded.ledger_offset,
  record_time = excluded.record_time, submission_id = excluded.submission_id`),
		last: d.Rebind(`SELECT d.ledger_offset, d.record_time, d.submission_id
FROM deduplication d JOIN participants p ON p.ordinal = d.participant
WHERE p.id = $1 AND d.change_id = $2`),
		ordinal: d.Rebind(`SELECT ordinal FROM participants WHERE id = $1`),
	}
}

// Statements returns the fixed statements, for an adapter that prepares
// its hot statements ahead.
func (s *Completions) Statements() []string {
	return []string{s.advance, s.insert, s.party, s.time, s.upsert, s.last, s.ordinal}
}

// LastAcceptanceStatement is LastAcceptance's statement, for the query
// plan tests.
func (s *Completions) LastAcceptanceStatement() string { return s.last }

// Append is [ledger.WriteTx.AppendCompletion] on q, a write transaction.
func (s *Completions) Append(ctx context.Context, q Querier, c *ledger.Completion) error {
	body, err := ledger.EncodeCompletion(c)
	if err != nil {
		return err
	}
	var ordinal int64
	ok, err := queryRow(ctx, q, s.advance, []any{string(c.Participant), int64(c.Offset)}, &ordinal)
	if err != nil {
		return fmt.Errorf("completion at %d: %w", c.Offset, err)
	}
	if !ok {
		return ParticipantNotFound(c.Participant)
	}
	if _, err := q.Exec(ctx, s.insert, ordinal, int64(c.Offset), c.UserID, body); err != nil {
		return fmt.Errorf("completion at %d: %w", c.Offset, err)
	}
	for _, party := range Parties(c.ActAs) {
		if _, err := q.Exec(ctx, s.party, ordinal, party, int64(c.Offset), c.UserID); err != nil {
			return fmt.Errorf("completion at %d: %w", c.Offset, err)
		}
	}
	if !c.Accepted() {
		_, err := q.Exec(ctx, s.time, int64(c.RecordTime))
		return err
	}
	if change := c.ChangeID(); change != "" {
		if _, err := q.Exec(ctx, s.upsert, ordinal, string(change), int64(c.Offset), int64(c.RecordTime), c.SubmissionID); err != nil {
			return err
		}
	}
	return nil
}

// LastAcceptance is [ledger.WriteTx.LastAcceptance] on q.
func (s *Completions) LastAcceptance(ctx context.Context, q Querier, p ledger.ParticipantID, change ledger.ChangeID) (ledger.Acceptance, bool, error) {
	var off, rt int64
	var sub string
	ok, err := queryRow(ctx, q, s.last, []any{string(p), string(change)}, &off, &rt, &sub)
	if err != nil || !ok {
		return ledger.Acceptance{}, false, err
	}
	return ledger.Acceptance{Offset: ledger.Offset(off), RecordTime: daml.Timestamp(rt), SubmissionID: sub}, true, nil
}

// Read is [ledger.Store.Completions] on q.
func (s *Completions) Read(ctx context.Context, q Querier, cq ledger.CompletionQuery) ([]ledger.Completion, error) {
	var ordinal int64
	ok, err := queryRow(ctx, q, s.ordinal, []any{string(cq.Participant)}, &ordinal)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ParticipantNotFound(cq.Participant)
	}
	stmt, a := s.ReadStatement(ordinal, cq)
	rows, err := q.Query(ctx, stmt, a...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ledger.Completion
	for rows.Next() {
		var off int64
		var body []byte
		if err := rows.Scan(&off, &body); err != nil {
			return nil, err
		}
		c, err := ledger.DecodeCompletion(body)
		if err != nil {
			return nil, fmt.Errorf("completion at %d: %w", off, err)
		}
		c.Participant, c.Offset = cq.Participant, ledger.Offset(off)
		out = append(out, *c)
	}
	return out, rows.Err()
}

// ReadStatement is Read's statement, rebound, and its arguments, for the
// participant with this ordinal. Its columns are the offset and the
// completion's blob.
//
// Without parties it is a range scan of the completions' primary key
// (participant, ledger_offset), filtered by the user if one is given (the
// ledger API names parties whenever it names a user). With
// parties, each party's range of completion_parties (its primary key, or
// completion_parties_user with a user) is an arm that the engine merges
// in offset order and stops at the limit (Dialect.MergeOffsets), as the
// update stream's party filter does; the body of each offset kept is then
// looked up by primary key.
func (s *Completions) ReadStatement(ordinal int64, cq ledger.CompletionQuery) (string, []any) {
	until := int64(cq.Until)
	if until <= 0 {
		until = 1<<63 - 1
	}
	var a args
	p, after, end, limit := a.add(ordinal), a.add(int64(cq.After)), a.add(until), a.add(s.d.Limit(cq.Limit))
	user := ""
	if cq.UserID != "" {
		user = " AND user_id = " + a.add(cq.UserID)
	}
	var stmt string
	if parties := Parties(cq.Parties); len(parties) == 0 {
		stmt = `SELECT ledger_offset, body FROM completions
WHERE participant = ` + p + ` AND ledger_offset > ` + after + ` AND ledger_offset <= ` + end + user + `
ORDER BY ledger_offset LIMIT ` + limit
	} else {
		arms := make([]string, len(parties))
		for i, party := range parties {
			arms[i] = `SELECT ledger_offset FROM completion_parties WHERE participant = ` + p + ` AND party = ` + a.add(party) +
				` AND ledger_offset > ` + after + ` AND ledger_offset <= ` + end + user
		}
		// The body is a scalar subquery, not a join, so that no engine
		// joins the page to the participant's whole range.
		stmt = `SELECT o.ledger_offset, (SELECT c.body FROM completions c
  WHERE c.participant = ` + p + ` AND c.ledger_offset = o.ledger_offset)
FROM (` + s.d.MergeOffsets(arms, limit) + `) o
ORDER BY o.ledger_offset`
	}
	return s.d.Rebind(stmt), a
}
