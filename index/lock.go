package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// updateLock keeps two processes from updating one index at once: both
// would read the same files as changed and store their chunks twice. It is
// an advisory lock (flock) on <db>.lock, which names its holder.
type updateLock struct {
	f *os.File
}

// lockPoll is how often a waiting update tries the lock again.
const lockPoll = 100 * time.Millisecond

// lockUpdate takes the update lock of the index at dbPath. When another
// process holds it: with onWait nil it returns ErrBusy naming the holder;
// otherwise it calls onWait once with the holder and waits until the lock
// is free or ctx is done.
func lockUpdate(ctx context.Context, dbPath string, onWait func(holder string)) (*updateLock, error) {
	path := dbPath + ".lock"
	f, err := openLockFile(path)
	if err != nil {
		return nil, fmt.Errorf("lock the index: %w", err)
	}
	waited := false
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock the index: %w", err)
		}
		if ok {
			break
		}
		holder := readHolder(path)
		if onWait == nil {
			f.Close()
			return nil, fmt.Errorf("%w (held by %s)", ErrBusy, holder)
		}
		if !waited {
			onWait(holder)
			waited = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(lockPoll):
		}
	}
	host, _ := os.Hostname()
	f.Truncate(0)
	f.WriteAt(fmt.Appendf(nil, "pid %d on %s, since %s\n", os.Getpid(), host, time.Now().Format(time.DateTime)), 0)
	return &updateLock{f: f}, nil
}

// readHolder says who holds the lock at path, as the holder wrote it.
func readHolder(path string) string {
	data, err := os.ReadFile(path)
	if s := strings.TrimSpace(string(data)); err == nil && s != "" {
		return "tern " + s
	}
	return "another tern"
}

// unlock releases the lock. The file stays, empty, for the next update.
func (l *updateLock) unlock() error {
	l.f.Truncate(0)
	return errors.Join(unlockFile(l.f), l.f.Close())
}
