package ledgerclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/sandnet/sandnet/internal/daml"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/ledger"
	"github.com/sandnet/sandnet/internal/scan"
)

// Defaults of Config.
const (
	// DefaultPageSize is how many updates one list request reads at most:
	// well under the ledger API's default node limit of 200.
	DefaultPageSize = 100
	// DefaultWaitIdle is the longest a Wait long poll lasts without news.
	DefaultWaitIdle = 2 * time.Second
)

// Config configures a [Client].
type Config struct {
	// BaseURL is the participant's ledger API root, such as
	// http://127.0.0.1:7575/sv/1.
	BaseURL string
	// HTTP sends the requests (http.DefaultClient when nil).
	HTTP *http.Client
	// Token returns the bearer token of the ledger API; nil sends none.
	Token func(ctx context.Context) (string, error)
	// Party is the DSO party, whose view the client reads.
	Party daml.Party
	// Registry types the Daml values of the updates.
	Registry *ledger.Registry
	// PageSize is the most updates one list request reads
	// (DefaultPageSize when 0); it must not exceed the server's node
	// limit (http-list-max-elements-limit).
	PageSize int
	// MigrationID is the migration id of the updates when AdminURL is not
	// set (and of those before the first migration start the admin API
	// lists): the JSON Ledger API does not carry it.
	MigrationID int64
	// AdminURL is the root of sandnet's admin API (the listener's root,
	// such as http://127.0.0.1:7575), used for the ledger clock (Now),
	// party hostings (Hostings) and where each migration starts in the
	// participant's stream (the updates' and checkpoints' migration ids).
	// Hostings fails without it.
	AdminURL string
	// AdminToken returns the admin API's bearer token (an operator's);
	// nil sends none.
	AdminToken func(ctx context.Context) (string, error)
	// WaitIdle is the longest Wait blocks when nothing happens
	// (DefaultWaitIdle when 0): ledger time can move without a commit.
	WaitIdle time.Duration
}

// Client reads a participant's update stream over the JSON Ledger API. It
// implements scan.Source and is safe for concurrent use.
type Client struct {
	cfg Config

	mu sync.Mutex
	// participantID caches the id of the participant read (empty until
	// first asked).
	participantID ledger.ParticipantID
	// origins caches where the reassigned contracts were created.
	origins map[daml.ContractID]origin
}

var _ scan.Source = (*Client)(nil)

// New returns a client. A malformed BaseURL or AdminURL is reported by the
// first call that uses it.
func New(cfg Config) *Client {
	if cfg.HTTP == nil {
		cfg.HTTP = http.DefaultClient
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize = DefaultPageSize
	}
	if cfg.WaitIdle <= 0 {
		cfg.WaitIdle = DefaultWaitIdle
	}
	cfg.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/")
	cfg.AdminURL = strings.TrimSuffix(cfg.AdminURL, "/")
	return &Client{cfg: cfg}
}

// endpoint is one of the two APIs the client calls.
type endpoint struct {
	name  string // for messages
	root  string
	token func(ctx context.Context) (string, error)
}

func (c *Client) ledgerAPI() endpoint {
	return endpoint{name: "ledger API", root: c.cfg.BaseURL, token: c.cfg.Token}
}

func (c *Client) adminAPI() endpoint {
	return endpoint{name: "admin API", root: c.cfg.AdminURL, token: c.cfg.AdminToken}
}

// call sends a request and decodes a 2xx JSON response into out. Errors
// are *fault.Error values (see httpError), or ctx's error when ctx ended.
func (c *Client) call(ctx context.Context, ep endpoint, method, path string, query url.Values, body, out any) error {
	u, err := url.Parse(ep.root + path)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fault.Wrap(fault.InvalidArgument, err, "invalid %s URL %q: want http(s)://host[:port][/prefix]", ep.name, ep.root)
	}
	if len(query) > 0 {
		u.RawQuery = query.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fault.Wrap(fault.Internal, err, "encode a %s request", ep.name)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return fault.Wrap(fault.InvalidArgument, err, "build a %s request", ep.name)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if ep.token != nil {
		tok, err := ep.token(ctx)
		if err != nil {
			return fault.Wrap(fault.Unauthenticated, err, "get a %s token", ep.name)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := c.cfg.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fault.Wrap(fault.Unavailable, err, "%s %s %s unreachable", ep.name, method, path)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fault.Wrap(fault.Unavailable, err, "%s %s %s: read the response", ep.name, method, path)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return httpError(ep.name, method, path, resp.StatusCode, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fault.Wrap(fault.Internal, err, "%s %s %s: undecodable response", ep.name, method, path)
	}
	return nil
}

// cantonError is the part of Canton's JsCantonError (and of the admin
// API's error) the client reads.
type cantonError struct {
	Code          string            `json:"code"`
	Cause         string            `json:"cause"`
	Context       map[string]string `json:"context"`
	GRPCCodeValue *int              `json:"grpcCodeValue"`
	// Error is the admin API's message.
	Error string `json:"error"`
}

// httpError classifies a non-2xx response: by the gRPC code of a
// JsCantonError when it has one, else by the HTTP status. 5xx answers
// (but 501) are Unavailable: the caller may retry.
func httpError(api, method, path string, status int, body []byte) *fault.Error {
	var ce cantonError
	_ = json.Unmarshal(body, &ce)
	msg := ce.Cause
	if msg == "" {
		msg = ce.Error
	}
	if msg == "" {
		msg = strings.TrimSpace(string(body))
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
	}
	kind, ok := fault.Kind(0), false
	if ce.GRPCCodeValue != nil {
		kind, ok = grpcKinds[*ce.GRPCCodeValue]
	}
	if !ok {
		kind = statusKind(status)
	}
	e := fault.WithCode(kind, ce.Code, "%s %s %s: %d %s", api, method, path, status, msg)
	e.Context = ce.Context
	return e
}

var grpcKinds = map[int]fault.Kind{
	3: fault.InvalidArgument, 5: fault.NotFound, 6: fault.AlreadyExists, 7: fault.PermissionDenied,
	9: fault.FailedPrecondition, 10: fault.Aborted, 11: fault.OutOfRange, 13: fault.Internal,
	14: fault.Unavailable, 16: fault.Unauthenticated,
}

func statusKind(status int) fault.Kind {
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
		return fault.Aborted
	case status == http.StatusRequestEntityTooLarge:
		return fault.Aborted
	case status == http.StatusNotImplemented:
		return fault.Internal
	case status >= 500:
		return fault.Unavailable
	}
	return fault.Internal
}

// isCode reports whether err is a fault with the given upstream code.
func isCode(err error, code string) bool {
	e, ok := fault.As(err)
	return ok && e.Code == code
}

// ctxErr returns ctx's error when err comes from ctx ending.
func ctxErr(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return ctx.Err()
	}
	return err
}

func wrapDecode(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fault.Wrap(fault.Internal, err, "%s", fmt.Sprintf(format, args...))
}
