package server

import (
	"net/http"

	"github.com/safegp/safegp/study/api"
)

// ask hands out asks. An empty body (or {}) is one ask, answered as
// {"ask", "index", "x"}; {"lease_seconds": s} leases it, adding
// "lease_until" and "lease" (the lease token); with "count" the answer is {"asks": [...]}, up to count
// of them (study.Service.AskBatch). A study with a context takes the
// context measured now, {"context": {NAME: VALUE, …}}, with any of these.
func (h *handler) ask(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(w, r, MaxBody)
	if err != nil {
		return err
	}
	req, err := decodeAsk(body)
	if err != nil {
		return err
	}
	as, err := h.svc.AskBatch(r.Context(), r.PathValue("name"), req.Options())
	if err != nil {
		return err
	}
	if req.Count != nil {
		writeJSON(w, http.StatusOK, api.NewBatchAnswer(as))
		return nil
	}
	writeJSON(w, http.StatusOK, as[0])
	return nil
}

// heartbeat renews a pending ask's lease: {"ask": id, "lease_seconds": s,
// "lease"?: token} → {"ask": id, "lease_until": …, "lease": token}; with a
// token that is no longer the ask's (its lease ended and the ask went to
// another caller), 409 (store.ErrLeaseLost).
func (h *handler) heartbeat(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(w, r, MaxBody)
	if err != nil {
		return err
	}
	req, err := decodeHeartbeat(body)
	if err != nil {
		return err
	}
	a, err := h.svc.Heartbeat(r.Context(), r.PathValue("name"), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}
