package tools

import "sync"

// readLog remembers which files read_file has shown the model in this
// session. edit_file and write_file consult it: a model that changes a file
// it has not seen tends to overwrite what it did not know was there.
type readLog struct {
	mu    sync.Mutex
	files map[string]bool // absolute, symlink-free paths
}

func (l *readLog) mark(abs string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.files == nil {
		l.files = make(map[string]bool)
	}
	l.files[abs] = true
}

func (l *readLog) has(abs string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.files[abs]
}
