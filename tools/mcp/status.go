package mcp

import (
	"context"
	"slices"
)

// ServerStatus is what tern doctor reports of one server.
type ServerStatus struct {
	Config ServerConfig
	// Running is true when the server started and answered.
	Running bool
	// Tools are its tools as the model would see them; Tokens is the sum
	// of their token costs.
	Tools  []Entry
	Tokens int
	// Err is why the server is not running, and Fix what to change, when
	// tern can tell. Both are empty for a disabled server.
	Err error
	Fix string
}

// Status starts every enabled server that has not started yet (each within
// its timeout, all at once) and reports each configured server, in order.
// count gives the tokens of a text; nil leaves the counts zero.
func (m *Manager) Status(ctx context.Context, count func(string) int) []ServerStatus {
	_ = m.load(ctx) // the errors are reported per server below
	m.mu.Lock()
	cat := slices.Clone(m.catalog)
	m.mu.Unlock()
	out := make([]ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		st := ServerStatus{Config: s.cfg}
		if s.cfg.On() {
			s.mu.Lock()
			st.Running = s.conn != nil
			if !st.Running {
				st.Err, st.Fix = s.err, fixOf(s.err)
			}
			s.mu.Unlock()
		}
		for _, t := range cat {
			if t.srv == s {
				e := entry(t, count)
				st.Tools = append(st.Tools, e)
				st.Tokens += e.Tokens
			}
		}
		out = append(out, st)
	}
	return out
}
