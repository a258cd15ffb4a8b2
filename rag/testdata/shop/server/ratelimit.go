package server

import (
	"sync"
	"time"
)

// RateLimiter caps how many requests one client IP address may send per
// minute, so that a single client cannot flood the shop.
type RateLimiter struct {
	mu     sync.Mutex
	limit  int
	counts map[string]int
	reset  time.Time
}

// Allow reports whether the client at ip may make another request now.
func (l *RateLimiter) Allow(ip string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if time.Now().After(l.reset) {
		l.counts = map[string]int{}
		l.reset = time.Now().Add(time.Minute)
	}
	l.counts[ip]++
	return l.counts[ip] <= l.limit
}
