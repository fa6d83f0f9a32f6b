package main

import (
	"fmt"
	"maps"
	"net/http"
	"time"
)

// Saves in the property test: a step saves the whole network, a later
// one restores a save made earlier. The driver's own knowledge of the
// network (its users, their external parties and pre-approvals) is saved
// with it and put back at the restore, so that the checks after every
// step (supply conserved, every user served) hold of the restored
// network as of any other.

// propSave is a save and what the driver knew when it was made.
type propSave struct {
	name  string
	model propModel
}

// propModel is the driver's knowledge of the network.
type propModel struct {
	users         []propUser
	external      map[string]*propExternal
	preapproved   map[string]bool
	settlerRights map[string]bool
}

func (r *propRun) model() propModel {
	m := propModel{external: maps.Clone(r.external), preapproved: maps.Clone(r.preapproved), settlerRights: maps.Clone(r.settlerRights)}
	for _, u := range r.users {
		m.users = append(m.users, *u)
	}
	return m
}

func (r *propRun) setModel(m propModel) {
	r.users = r.users[:0]
	for _, u := range m.users {
		r.users = append(r.users, &u)
	}
	r.external, r.preapproved, r.settlerRights = maps.Clone(m.external), maps.Clone(m.preapproved), maps.Clone(m.settlerRights)
}

func (r *propRun) saveOp(o op) error {
	name := fmt.Sprintf("prop-%d", o.step)
	code, data, err := r.call("save", "POST", adminAPI+"/saves", r.admin, map[string]string{"name": name})
	if err != nil {
		return err
	}
	if err := wantCode("save", code, data, func(c int) bool { return c == http.StatusCreated }, "201"); err != nil {
		return err
	}
	r.saved = append(r.saved, propSave{name: name, model: r.model()})
	return nil
}

func (r *propRun) restoreOp(o op) error {
	if len(r.saved) == 0 {
		code, data, err := r.call("restore", "POST", adminAPI+"/saves/never-saved/restore", r.admin, nil)
		if err != nil {
			return err
		}
		return wantCode("restore of an unknown save", code, data, func(c int) bool { return c == http.StatusNotFound }, "404")
	}
	s := r.saved[o.other%len(r.saved)]
	code, data, err := r.call("restore", "POST", adminAPI+"/saves/"+s.name+"/restore", r.admin, nil)
	if err != nil {
		return err
	}
	if err := wantCode("restore", code, data, is200, "200"); err != nil {
		return err
	}
	// The restored network, for the checks that read its store.
	select {
	case rn := <-r.sn.ready:
		r.sn.net, r.sn.seeded = rn.net, rn.seeded
	case <-time.After(time.Minute):
		return fail("restore", "the restored network was not ready in a minute")
	}
	r.setModel(s.model)
	return nil
}
