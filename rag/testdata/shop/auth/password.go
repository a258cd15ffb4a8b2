// Package auth signs customers in.
package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"regexp"
	"time"
)

// HashPassword salts and hashes a password before it is stored.
func HashPassword(password, salt string) string {
	sum := sha256.Sum256([]byte(salt + password))
	return hex.EncodeToString(sum[:])
}

// CheckPassword compares a login attempt with the stored hash in
// constant time.
func CheckPassword(password, salt, stored string) bool {
	return subtle.ConstantTimeCompare([]byte(HashPassword(password, salt)), []byte(stored)) == 1
}

var emailPattern = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[a-z]{2,}$`)

// validEmail checks the format of an email address.
func validEmail(addr string) bool {
	return emailPattern.MatchString(addr)
}

// Session is a signed-in customer.
type Session struct {
	Token   string
	Created time.Time
}

// Expired reports whether the session token is older than its time to
// live.
func (s Session) Expired(ttl time.Duration) bool {
	return time.Since(s.Created) > ttl
}
