package ollamatest

import (
	"net"
	"sync"
	"testing"
)

// Silent starts a server that takes every connection and never answers:
// a stuck server, or something other than a model server listening on
// the port. It returns its address ("127.0.0.1:PORT"); the listener and
// the connections it holds close when the test ends. It serves tests of
// either backend: nothing is said on the wire.
func Silent(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	tb.Cleanup(func() {
		l.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	return l.Addr().String()
}
