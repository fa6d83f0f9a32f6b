package admin

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/sandnet/sandnet/internal/api/web"
	"github.com/sandnet/sandnet/internal/fault"
	"github.com/sandnet/sandnet/internal/store"
)

// Saver saves the whole network (every store) and restores it. Saves are
// not the Scan's ACS snapshots.
type Saver interface {
	// Save saves the network; an empty name asks for a generated one.
	Save(ctx context.Context, name string) (store.SaveInfo, error)
	// Saves lists the saves, oldest first.
	Saves(ctx context.Context) ([]store.SaveInfo, error)
	// GetSave describes a save.
	GetSave(ctx context.Context, name string) (store.SaveInfo, error)
	// DeleteSave removes a save.
	DeleteSave(ctx context.Context, name string) error
	// Restore puts the network back to a save.
	Restore(ctx context.Context, name string) (store.SaveInfo, error)
}

// SavesHandler serves the save and restore routes. It lives as long as the
// process, across restores (unlike Handler, which serves one network), so
// it is apart: authorize checks the caller against the network served at
// the time.
type SavesHandler struct {
	saver     Saver
	authorize func(*http.Request) error
}

// NewSaves returns the save and restore routes' handler. authorize returns
// nil for an operator (as Handler.Authorize does).
func NewSaves(s Saver, authorize func(*http.Request) error) *SavesHandler {
	return &SavesHandler{saver: s, authorize: authorize}
}

// Register adds the save routes to mux.
func (h *SavesHandler) Register(mux *http.ServeMux) {
	mux.Handle("POST "+Prefix+"/saves", h.operatorOnly(h.save))
	mux.Handle("GET "+Prefix+"/saves", h.operatorOnly(h.list))
	mux.Handle("GET "+Prefix+"/saves/{name}", h.operatorOnly(h.get))
	mux.Handle("DELETE "+Prefix+"/saves/{name}", h.operatorOnly(h.remove))
	mux.Handle("POST "+Prefix+"/saves/{name}/restore", h.operatorOnly(h.restore))
}

func (h *SavesHandler) operatorOnly(fn handlerFunc) http.Handler { return guarded(h.authorize, fn) }

// Authorize returns nil if the request carries an operator's token (or
// authentication is off), and the error to answer otherwise.
func (h *Handler) Authorize(r *http.Request) error { return h.authorize(r) }

// SaveRequest asks for a save. Name is optional: save-<n> by default.
type SaveRequest struct {
	Name string `json:"name,omitempty"`
}

// SaveResponse describes a save.
type SaveResponse struct {
	Name string `json:"name"`
	// CreatedAt is the wall time the save was taken (RFC 3339).
	CreatedAt string `json:"created_at"`
	// LedgerTime is the network's ledger time when it was taken: a
	// restored network's clock resumes there.
	LedgerTime string `json:"ledger_time"`
	// LedgerEnd is the validator participant's ledger end offset.
	LedgerEnd int64 `json:"ledger_end"`
	SizeBytes int64 `json:"size_bytes"`
}

// SavesResponse lists the saves, oldest first.
type SavesResponse struct {
	Saves []SaveResponse `json:"saves"`
}

func saveResponse(s store.SaveInfo) SaveResponse {
	return SaveResponse{
		Name: s.Name, CreatedAt: s.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z"),
		LedgerTime: FormatTime(s.LedgerTime), LedgerEnd: s.LedgerEnd, SizeBytes: s.SizeBytes,
	}
}

func (h *SavesHandler) save(w http.ResponseWriter, r *http.Request) error {
	var req SaveRequest
	// The body is optional: none (or {}) asks for a generated name.
	body, err := io.ReadAll(io.LimitReader(r.Body, web.MaxBodyBytes+1))
	if err != nil {
		return fault.Wrap(fault.InvalidArgument, err, "Failed to read the request body")
	}
	if len(bytes.TrimSpace(body)) > 0 {
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err := web.DecodeJSON(r, &req); err != nil {
			return err
		}
	}
	if req.Name != "" {
		if err := store.CheckSaveName(req.Name); err != nil {
			return err
		}
	}
	s, err := h.saver.Save(r.Context(), req.Name)
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusCreated, saveResponse(s))
	return nil
}

func (h *SavesHandler) list(w http.ResponseWriter, r *http.Request) error {
	all, err := h.saver.Saves(r.Context())
	if err != nil {
		return err
	}
	out := SavesResponse{Saves: []SaveResponse{}}
	for _, s := range all {
		out.Saves = append(out.Saves, saveResponse(s))
	}
	web.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *SavesHandler) get(w http.ResponseWriter, r *http.Request) error {
	s, err := h.saver.GetSave(r.Context(), r.PathValue("name"))
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, saveResponse(s))
	return nil
}

func (h *SavesHandler) remove(w http.ResponseWriter, r *http.Request) error {
	if err := h.saver.DeleteSave(r.Context(), r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *SavesHandler) restore(w http.ResponseWriter, r *http.Request) error {
	s, err := h.saver.Restore(r.Context(), r.PathValue("name"))
	if err != nil {
		return err
	}
	web.WriteJSON(w, http.StatusOK, saveResponse(s))
	return nil
}
