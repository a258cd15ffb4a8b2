package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Embedder turns texts into vectors with the named model. *ollama.Client
// satisfies it.
type Embedder interface {
	Embed(ctx context.Context, model string, inputs []string) ([][]float32, error)
}

// Options tune an Update. The zero value indexes lexically.
type Options struct {
	// Embedder, when set, embeds new chunks with Model. Without one the
	// index is lexical only; vectors already stored are kept.
	Embedder Embedder
	Model    string
	// Progress, when set, is called from one goroutine as work advances
	// (a few times a second at most) and once at the end.
	Progress func(Progress)
	// Workers is how many files are chunked at once (default: one per CPU).
	Workers int
	// MaxFileSize skips larger files (default 1 MiB).
	MaxFileSize int64
	// EmbedBatch is how many chunks go to the embedder in one call
	// (default 32).
	EmbedBatch int
	// OnWait, when set, is called once when another process is updating
	// the same index, with who it is; Update then waits for it to finish.
	// Without OnWait, Update returns ErrBusy at once.
	OnWait func(holder string)

	// reportEach reports progress after every stored file, not a few
	// times a second, so that a test can act at a known point of an
	// update rather than at a moment.
	reportEach bool
}

// Phase is the stage an update is in.
type Phase int

const (
	// PhaseScan walks the repository for changed files.
	PhaseScan Phase = iota
	// PhaseChunk reads, chunks and stores the changed files.
	PhaseChunk
	// PhaseEmbed embeds the chunks that have no vector yet.
	PhaseEmbed
	// PhaseDone is reported once, at the end.
	PhaseDone
)

// Progress is a snapshot of a running update.
type Progress struct {
	Phase Phase
	// Seen counts files the walk found; Changed of them need (re)reading,
	// and Done of those are finished.
	Seen, Changed, Done int
	Skipped             int
	// Chunks counts chunks written so far.
	Chunks int
	// ToEmbed and Embedded count chunks for the embedding phase.
	ToEmbed, Embedded int
	Elapsed           time.Duration
}

// Stats summarises an update.
type Stats struct {
	// Seen counts files the walk found (ignore rules already applied).
	Seen int
	// Indexed counts files read and chunked; Unchanged files were not read.
	Indexed, Unchanged int
	// Removed counts files dropped from the index: deleted, renamed,
	// newly ignored or newly skipped.
	Removed int
	// Skipped counts files not chunked, by reason (SkipBinary, …,
	// "unreadable").
	Skipped map[string]int
	// Chunks counts chunks written; Embedded counts chunks given vectors.
	Chunks, Embedded int
	// Reformatted: the index was made in an older chunk format, so every
	// file was read again.
	Reformatted bool
	// Model is the embedding model of the index's vectors. PreviousModel is
	// set when this update found vectors of another model and dropped them.
	Model, PreviousModel string
	// Problems lists the first files that could not be read or decoded.
	Problems []string
	Elapsed  time.Duration
}

const maxProblems = 20

func (s *Stats) skip(reason string) {
	if s.Skipped == nil {
		s.Skipped = map[string]int{}
	}
	s.Skipped[reason]++
}

func (s *Stats) problem(msg string) {
	if len(s.Problems) < maxProblems {
		s.Problems = append(s.Problems, msg)
	}
}

// fileState is what the index knows of a file.
type fileState struct {
	id    int64
	size  int64
	mtime int64
	hash  []byte
	skip  string
	// stale: the index holds the file in an older chunk format.
	stale bool
}

// job is a file to read.
type job struct {
	rel         string
	size, mtime int64
	known       *fileState
}

// record is a processed file, ready for the writer.
type record struct {
	job
	hash   []byte
	lang   string
	skip   string
	idents string
	chunks []chunkRow
	// pathWords is the path column of the file's chunks.
	pathWords string
	touch     bool   // same content, new mtime
	gone      bool   // vanished or unreadable: drop it
	converted bool   // invalid UTF-8 was replaced
	problem   string // why it could not be read
}

// chunkRow is a chunk with the columns the writer stores.
type chunkRow struct {
	piece
	text  string
	hash  []byte
	name  string
	words string
}

// Update brings the index in line with the files on disk and returns what
// it did. Only files whose size or modification time changed are read. On
// cancellation it stops promptly, keeps every file it finished, and
// returns ctx's error; the next update resumes.
func (ix *Index) Update(ctx context.Context, opts Options) (Stats, error) {
	if !ix.update.TryLock() {
		return Stats{}, ErrBusy
	}
	defer ix.update.Unlock()
	lock, err := lockUpdate(ctx, ix.path, opts.OnWait)
	if err != nil {
		return Stats{}, err
	}
	defer lock.unlock()
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = 1 << 20
	}
	if opts.EmbedBatch <= 0 {
		opts.EmbedBatch = 32
	}
	if opts.Embedder != nil && opts.Model == "" {
		return Stats{}, errors.New("index update: an embedder needs a model name")
	}
	u := &updater{ix: ix, opts: opts, start: time.Now()}
	err = u.run(ctx)
	u.stats.Elapsed = time.Since(u.start)
	u.report(PhaseDone, true)
	return u.stats, err
}

// updater is the state of one Update.
type updater struct {
	ix    *Index
	opts  Options
	start time.Time

	mu       sync.Mutex // guards stats and progress
	stats    Stats
	progress Progress
	reported time.Time
}

func (u *updater) run(ctx context.Context) error {
	w, err := u.ix.newWriter(ctx)
	if err != nil {
		return err
	}
	defer w.close()
	if err := u.checkModel(ctx, w); err != nil {
		return err
	}
	if err := w.checkTotals(); err != nil {
		return err
	}
	known, stale, err := u.ix.knownFiles(ctx)
	if err != nil {
		return err
	}
	u.stats.Reformatted = stale
	jobs, keep, err := u.scan(ctx, known)
	if err != nil {
		return err
	}
	var gone []int64
	for path, st := range known {
		if !keep[path] {
			gone = append(gone, st.id)
		}
	}
	u.stats.Removed = len(gone)
	if err := w.remove(gone); err != nil {
		return err
	}
	if err := u.chunkAll(ctx, jobs, w); err != nil {
		return err
	}
	if err := w.collectGarbage(); err != nil {
		return err
	}
	if u.opts.Embedder != nil {
		if err := u.embed(ctx, w); err != nil {
			return err
		}
	}
	return w.finish()
}

// scan walks the repository and returns the files to read, and the paths
// whose index entries stay.
func (u *updater) scan(ctx context.Context, known map[string]*fileState) ([]job, map[string]bool, error) {
	u.report(PhaseScan, true)
	u.ix.rules.Forget()
	var jobs []job
	keep := map[string]bool{}
	err := u.ix.rules.Walk(ctx, u.ix.root, func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			if rel != "" && vendoredDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // symbolic links and devices are never followed
		}
		info, err := d.Info()
		if err != nil {
			return nil // vanished since the directory was read
		}
		u.stats.Seen++
		if reason := skipByName(rel); reason != "" {
			u.stats.skip(reason)
			return nil
		}
		if info.Size() > u.opts.MaxFileSize {
			u.stats.skip(SkipTooLarge)
			return nil
		}
		j := job{rel: rel, size: info.Size(), mtime: info.ModTime().UnixNano(), known: known[rel]}
		keep[rel] = true
		if j.known != nil && !j.known.stale && j.known.size == j.size && j.known.mtime == j.mtime {
			u.stats.Unchanged++
			if j.known.skip != "" {
				u.stats.skip(j.known.skip)
			}
			return nil
		}
		jobs = append(jobs, j)
		if len(jobs)%64 == 0 {
			u.progress.Seen = u.stats.Seen
			u.report(PhaseScan, false)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("scan %s: %w", u.ix.root, err)
	}
	u.mu.Lock()
	u.progress.Seen, u.progress.Changed = u.stats.Seen, len(jobs)
	u.mu.Unlock()
	return jobs, keep, nil
}

// chunkAll reads and chunks the jobs on all workers while one writer
// stores the results, a batch of whole files per transaction. The batch
// being filled and the one being written are different slices, so the
// workers keep going while the writer is busy with a large transaction;
// at most two batches are held in memory.
//
// Files are stored in the order of jobs (the walk's), whichever worker
// finishes first, so that the same tree always gets the same row ids, and
// with them the same order among search hits of equal score.
func (u *updater) chunkAll(ctx context.Context, jobs []job, w *writer) error {
	u.report(PhaseChunk, true)
	type result struct {
		seq     int
		r       record
		dropped bool // interrupted: the file stays as it was
	}
	todo := make(chan int)
	done := make(chan result, 64*u.opts.Workers)
	// slots bounds how far the workers run ahead of the file the writer
	// waits for.
	slots := make(chan struct{}, 64*u.opts.Workers)
	var wg sync.WaitGroup
	for range u.opts.Workers {
		wg.Go(func() {
			ck := newChunker()
			defer ck.Close()
			sc := newScratch()
			for seq := range todo {
				r := u.process(ctx, ck, jobs[seq], sc)
				dropped := ctx.Err() != nil && r.chunks == nil && !r.touch
				done <- result{seq: seq, r: r, dropped: dropped}
			}
		})
	}
	go func() {
		defer close(todo)
		for seq := range jobs {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case todo <- seq:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(done)
	}()
	// ordered yields the results in job order.
	ordered := func(yield func(result) bool) {
		pending := map[int]result{}
		next := 0
		for res := range done {
			pending[res.seq] = res
			for {
				res, ok := pending[next]
				if !ok {
					break
				}
				delete(pending, next)
				next++
				<-slots
				if !yield(res) {
					return
				}
			}
		}
	}

	batches := make(chan []record)
	werrc := make(chan error, 1)
	var failed atomic.Bool
	go func() {
		var werr error
		for b := range batches {
			if werr == nil {
				if werr = w.write(b); werr != nil {
					failed.Store(true)
				}
			}
		}
		werrc <- werr
	}()
	// left is the size of the files not yet in a batch. Near the end,
	// a batch is cut as soon as it is larger than what is left, so that
	// batches shrink towards the end: once the workers are done, only the
	// last, small one is written with the other cores idle.
	var left int64
	for _, j := range jobs {
		left += j.size
	}
	var batch []record
	var bytes int
	var size int64
	var opened time.Time
	for res := range ordered {
		r := res.r
		left -= r.size
		if res.dropped || failed.Load() {
			continue // after a failure, drain so the workers can finish
		}
		if len(batch) == 0 {
			opened = time.Now()
		}
		batch = append(batch, r)
		size += r.size
		for _, c := range r.chunks {
			bytes += len(c.text)
		}
		u.account(r)
		u.report(PhaseChunk, false)
		if len(batch) >= batchFiles || bytes >= batchBytes || time.Since(opened) >= batchTime ||
			bytes >= minTailBatch && size >= left {
			batches <- batch
			batch, bytes, size = nil, 0, 0
		}
	}
	if len(batch) > 0 && !failed.Load() {
		batches <- batch
	}
	close(batches)
	if err := <-werrc; err != nil {
		return err
	}
	return ctx.Err()
}

// account adds a stored record to the stats and the progress.
func (u *updater) account(r record) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.progress.Done++
	if r.gone && r.known != nil {
		u.stats.Removed++
	}
	switch {
	case r.problem != "":
		u.stats.problem(r.problem)
		u.stats.skip("unreadable")
	case r.gone:
	case r.touch:
		u.stats.Unchanged++
		if r.skip != "" {
			u.stats.skip(r.skip)
		}
	case r.skip != "":
		u.stats.skip(r.skip)
	default:
		u.stats.Indexed++
		u.stats.Chunks += len(r.chunks)
		u.progress.Chunks += len(r.chunks)
	}
	if r.converted {
		u.stats.problem(r.rel + ": not valid UTF-8; odd bytes shown as \uFFFD")
	}
	u.progress.Skipped = 0
	for _, n := range u.stats.Skipped {
		u.progress.Skipped += n
	}
}

// report sends progress to the callback, at most every 100ms unless forced.
func (u *updater) report(phase Phase, force bool) {
	if u.opts.Progress == nil {
		return
	}
	u.mu.Lock()
	now := time.Now()
	if !force && !u.opts.reportEach && now.Sub(u.reported) < 100*time.Millisecond {
		u.mu.Unlock()
		return
	}
	u.reported = now
	u.progress.Phase = phase
	u.progress.Elapsed = now.Sub(u.start)
	p := u.progress
	u.mu.Unlock()
	u.opts.Progress(p)
}
