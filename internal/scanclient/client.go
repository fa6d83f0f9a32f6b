// Package scanclient is a client of the Scan API (internal/api/scanapi,
// Splice's /api/scan): what a validator reads from the DSO's Scans — the
// DSO party, the amulet rules and mining rounds it discloses to its
// transfers, the name service and the DSO's synchronizer.
//
// A client may be given several Scans. Reads whose answer must be trusted
// (the DSO party, name-service entries) are BFT reads, as Splice's
// validator does them: every Scan is asked concurrently and the answer at
// least f+1 of the n Scans agree on wins (f = (n-1)/3), provided no other
// answer has as many votes (with 3 Scans, f = 0: two agreeing Scans
// outvote a third, and three different answers are a failure). A Scan
// that does not answer (unreachable, 5xx) casts no vote; a failure a Scan
// answers (a 404, say) is a vote like any answer. Contract reads (amulet rules,
// rounds, /v0/dso) take the first Scan that answers well: a contract's
// created_event_blob is checked against its id and template, and a lying
// Scan's contract would be refused by the ledger anyway.
//
// [Peers] is what a late-joining SV's Scan reads its history from: the
// backfilling endpoints of the other SVs' Scans, every read a BFT read,
// the history items decoded by [DecodeUpdate].
//
// Errors are *fault.Error values (or ctx's error when ctx ended); a Scan's
// {"error": "…"} answer keeps the Scan's message, with its status mapped
// back to a kind (see KindOfStatus).
package scanclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
)

// Defaults of Config.
const (
	// DefaultTimeout bounds one request to one Scan.
	DefaultTimeout = 10 * time.Second
	// DefaultCacheTTL is the longest the amulet rules and the mining
	// rounds are served from the cache.
	DefaultCacheTTL = 5 * time.Second
)

// maxBody bounds what the client reads of one answer.
const maxBody = 64 << 20

// Config configures a [Client].
type Config struct {
	// URLs are the Scans' API roots, such as
	// http://127.0.0.1:7575/api/scan. At least one is required.
	URLs []string
	// HTTP sends the requests (http.DefaultClient when nil).
	HTTP *http.Client
	// Registry, when set, is the network's template registry: a contract
	// whose template it does not know is refused.
	Registry *ledger.Registry
	// Logger receives the Scans' failures and disagreements
	// (slog.Default when nil).
	Logger *slog.Logger
	// Timeout bounds one request to one Scan (DefaultTimeout when 0).
	Timeout time.Duration
	// CacheTTL is the longest the amulet rules and the rounds are served
	// from the cache (DefaultCacheTTL when 0; negative disables the
	// cache). The rounds are also refreshed after the
	// time_to_live_in_microseconds the Scan returns with them.
	CacheTTL time.Duration
}

// Client reads from one or more Scans. It is safe for concurrent use.
type Client struct {
	cfg   Config
	scans []string
	// next is where the next BFT read starts asking (see bft).
	next atomic.Uint64
	log  *slog.Logger
	// preferred is the Scan contract reads try first: the last one that
	// answered them.
	preferred atomic.Int32

	rules  cache[rulesState]
	rounds cache[roundsState]
}

// New returns a client of the Scans cfg.URLs. An empty list or a URL that
// is not http(s)://host[:port][/prefix] is an InvalidArgument error.
func New(cfg Config) (*Client, error) {
	if len(cfg.URLs) == 0 {
		return nil, fault.New(fault.InvalidArgument, "scanclient: no Scan URL")
	}
	c := &Client{cfg: cfg, log: cfg.Logger}
	for _, raw := range cfg.URLs {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, fault.Wrap(fault.InvalidArgument, err, "scanclient: invalid Scan URL %q: want http(s)://host[:port][/prefix]", raw)
		}
		c.scans = append(c.scans, strings.TrimRight(raw, "/"))
	}
	if c.cfg.HTTP == nil {
		c.cfg.HTTP = http.DefaultClient
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	if c.cfg.Timeout <= 0 {
		c.cfg.Timeout = DefaultTimeout
	}
	if c.cfg.CacheTTL == 0 {
		c.cfg.CacheTTL = DefaultCacheTTL
	}
	c.rules.init()
	c.rounds.init()
	return c, nil
}

// URLs returns the Scans the client reads, without trailing slashes.
func (c *Client) URLs() []string { return append([]string(nil), c.scans...) }

// KindOfStatus maps a Scan's error status back to the fault kind the Scan
// answered it for (the inverse of the Scan's own mapping): 400
// InvalidArgument, 401 Unauthenticated, 403 PermissionDenied, 404
// NotFound, 409 AlreadyExists, 429 Aborted, any other 4xx InvalidArgument,
// and 5xx (or anything else) Unavailable, so the caller may retry.
func KindOfStatus(status int) fault.Kind {
	switch {
	case status == http.StatusBadRequest:
		return fault.InvalidArgument
	case status == http.StatusUnauthorized:
		return fault.Unauthenticated
	case status == http.StatusForbidden:
		return fault.PermissionDenied
	case status == http.StatusNotFound:
		return fault.NotFound
	case status == http.StatusConflict:
		return fault.AlreadyExists
	case status == http.StatusTooManyRequests:
		return fault.Aborted
	case status >= 400 && status < 500:
		return fault.InvalidArgument
	}
	return fault.Unavailable
}

// errorBody is the Scan's error answer.
type errorBody struct {
	Error string `json:"error"`
}

// call sends one request to the Scan at base and decodes a 2xx answer into
// out. body, when not nil, is sent as JSON.
func (c *Client) call(ctx context.Context, base, method, path string, query url.Values, body, out any) error {
	u := base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fault.Wrap(fault.Internal, err, "encode a Scan request")
		}
		rd = bytes.NewReader(b)
	}
	rctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, method, u, rd)
	if err != nil {
		return fault.Wrap(fault.InvalidArgument, err, "build a Scan request %s %s", method, u)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.cfg.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fault.Wrap(fault.Unavailable, err, "Scan %s unreachable", base)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fault.Wrap(fault.Unavailable, err, "Scan %s: read the answer to %s %s", base, method, path)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return statusError(base, method, path, resp.StatusCode, data)
	}
	if raw, ok := out.(*[]byte); ok {
		*raw = data // the caller decodes it, or not (see Peers.updates)
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fault.Wrap(fault.Unavailable, err, "Scan %s: undecodable answer to %s %s", base, method, path)
	}
	return nil
}

// statusError is a Scan's non-2xx answer as a fault: the Scan's message
// as is, the request in the cause.
func statusError(base, method, path string, status int, body []byte) *fault.Error {
	var eb errorBody
	msg := ""
	if json.Unmarshal(body, &eb) == nil {
		msg = eb.Error
	}
	if msg == "" {
		msg = strings.TrimSpace(string(body))
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		msg = fmt.Sprintf("Scan answered %d %s", status, msg)
	}
	return fault.Wrap(KindOfStatus(status), fmt.Errorf("scan %s: %s %s: %d", base, method, path, status), "%s", msg)
}

// first runs read against the Scans one after the other, starting with
// the preferred one, and returns the first success. When every Scan
// fails it returns a failure other than Unavailable if any Scan answered
// one (a 404, say), else the first failure.
func first[T any](ctx context.Context, c *Client, what string, read func(ctx context.Context, base string) (T, error)) (T, error) {
	var zero T
	var firstErr, answered error
	n := len(c.scans)
	start := int(c.preferred.Load())
	for k := range n {
		i := (start + k) % n
		v, err := read(ctx, c.scans[i])
		if err == nil {
			if i != start {
				c.preferred.Store(int32(i))
			}
			return v, nil
		}
		if ctx.Err() != nil {
			return zero, ctx.Err()
		}
		c.log.WarnContext(ctx, "Scan read failed", "read", what, "scan", c.scans[i], "err", err)
		if firstErr == nil {
			firstErr = err
		}
		if answered == nil && !fault.Is(err, fault.Unavailable) {
			answered = err
		}
	}
	if answered != nil {
		return zero, answered
	}
	return zero, firstErr
}

// cache is a value refreshed by one caller at a time.
type cache[T any] struct {
	// refresh is held by the one caller refreshing the value.
	refresh chan struct{}

	mu    sync.Mutex
	gen   uint64 // bumped by invalidate
	val   T
	has   bool
	until time.Time
}

func (k *cache[T]) init() { k.refresh = make(chan struct{}, 1) }

// get returns the value if it is fresh.
func (k *cache[T]) get(now time.Time) (T, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.val, k.has && now.Before(k.until)
}

// last returns the latest value, fresh or not, and the generation to
// store its successor under.
func (k *cache[T]) last() (T, bool, uint64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.val, k.has, k.gen
}

// put stores a value fetched in generation gen, fresh until until unless
// the cache was invalidated meanwhile.
func (k *cache[T]) put(v T, gen uint64, until time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.val, k.has = v, true
	if k.gen == gen {
		k.until = until
	}
}

func (k *cache[T]) invalidate() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.gen++
	k.until = time.Time{}
}

// lock takes the refresh lock, or fails when ctx ends first.
func (k *cache[T]) lock(ctx context.Context) error {
	select {
	case k.refresh <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (k *cache[T]) unlock() { <-k.refresh }

// Invalidate makes the next AmuletRules and OpenAndIssuingRounds ask a
// Scan again: call it when the ledger refuses a command because a
// disclosed rules or round contract is no longer active.
func (c *Client) Invalidate() {
	c.rules.invalidate()
	c.rounds.invalidate()
}
