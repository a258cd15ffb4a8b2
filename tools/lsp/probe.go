package lsp

import (
	"context"
	"sync"
	"time"
)

// Status is what tern doctor says of one server.
type Status struct {
	Server Server
	// Info names the server as it introduced itself, once started.
	Info string
	// Took is how long its start took.
	Took time.Duration
	// Err is why it did not start.
	Err error
}

// Probe starts each of servers that can run, all at once in root, waits
// within ctx for its handshake, stops it again and reports it; the
// servers that cannot run are reported as they are.
func Probe(ctx context.Context, root string, servers []Server) []Status {
	out := make([]Status, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		out[i].Server = s
		if !s.Runs() {
			continue
		}
		wg.Go(func() {
			began := time.Now()
			c, err := startClient(ctx, s, root, nil)
			out[i].Took, out[i].Err = time.Since(began), err
			if err != nil {
				return
			}
			out[i].Info = c.info
			stop, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			c.stop(stop)
		})
	}
	wg.Wait()
	return out
}
