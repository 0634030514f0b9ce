package metrics

import (
	"strconv"
	"sync"
	"time"

	"github.com/streamsql/streamsql/exec"
)

// Job is a job the registry watches: `streamsql run`'s one job, or each of
// the shell's background jobs and its foreground query.
type Job struct {
	// ID is unique in the registry ("1", "2", … in the order added, unless
	// set before Add).
	ID string
	// Name is the job's name: 'pipeline.name', or the job file, or the
	// shell's statement.
	Name string
	// Plans are the EXPLAIN texts of the job's statements, one per INSERT
	// or SELECT, and Statements their SQL (for the UI).
	Plans      []string
	Statements []string
	// Graph is the job's operators for the UI's job graph, inputs first
	// (nil: none drawn).
	Graph []Node
	Exec  *exec.Job
	Start time.Time

	mu      sync.Mutex
	state   string
	end     time.Time
	history []Snapshot
}

// Node is one operator of a job's graph, as EXPLAIN shows it.
type Node struct {
	// ID is the physical plan's operator id: a Source's, an Operator's or
	// a Sink's ID in snapshots.
	ID string
	// Kind is the operator's kind as EXPLAIN's physical plan names it
	// (Source, Calc, IntervalJoin, …, Sink), Title what the UI calls it
	// ("IntervalJoin INNER(i, c)", "Source: clicks"), and Detail the rest
	// of EXPLAIN's physical line (keys, casts, retention, delays).
	Kind, Title, Detail string
	// Notes are what EXPLAIN's optimized logical plan says of the node it
	// was lowered from: "mode=[+I,-U,+U] keys=(id)", its watermark delay,
	// a "state: …" line per state it keeps and when rows leave it.
	Notes []string
	// Unbounded is set when some of its state is never freed.
	Unbounded bool
	// Inputs are the ids of its inputs, in port order.
	Inputs []string
}

// Job states, as Flink's REST API names them.
const (
	Running  = "RUNNING"
	Finished = "FINISHED"
	Failed   = "FAILED"
	Canceled = "CANCELED"
)

// SetState records the job's state (Running until set otherwise); a state
// other than Running ends it, and its history stops growing.
func (j *Job) SetState(state string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.state = state
	if state != Running && j.end.IsZero() {
		j.end = time.Now()
	}
}

// State is the job's state.
func (j *Job) State() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.state
}

// End is when the job ended (zero while it runs).
func (j *Job) End() time.Time {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.end
}

// History returns the snapshots sampled so far, oldest first.
func (j *Job) History() []Snapshot {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]Snapshot(nil), j.history...)
}

// Registry is the set of jobs one process serves.
type Registry struct {
	mu   sync.Mutex
	jobs []*Job
	next int
	// Window is how much history each job keeps (default 15 minutes).
	Window time.Duration
}

// Add starts watching j, which is running.
func (r *Registry) Add(j *Job) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	if j.ID == "" {
		j.ID = strconv.Itoa(r.next)
	}
	if j.Start.IsZero() {
		j.Start = time.Now()
	}
	j.mu.Lock()
	if j.state == "" {
		j.state = Running
	}
	j.mu.Unlock()
	r.jobs = append(r.jobs, j)
}

// Jobs returns the jobs, in the order added.
func (r *Registry) Jobs() []*Job {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Job(nil), r.jobs...)
}

// Find returns the job with id, or nil.
func (r *Registry) Find(id string) *Job {
	for _, j := range r.Jobs() {
		if j.ID == id {
			return j
		}
	}
	return nil
}

// Sample takes a snapshot of every running job into its history, and one
// last snapshot of a job that ended since the last sample. Snapshots older
// than the window are dropped.
func (r *Registry) Sample(now time.Time) {
	window := r.Window
	if window <= 0 {
		window = 15 * time.Minute
	}
	for _, j := range r.Jobs() {
		j.mu.Lock()
		ended := !j.end.IsZero()
		last := len(j.history) > 0 && j.history[len(j.history)-1].At.After(j.end)
		j.mu.Unlock()
		if ended && last {
			continue // its final snapshot is taken
		}
		s := Take(j.Exec, now)
		j.mu.Lock()
		j.history = append(j.history, s)
		cut := 0
		for cut < len(j.history) && now.Sub(j.history[cut].At) > window {
			cut++
		}
		j.history = append(j.history[:0], j.history[cut:]...)
		j.mu.Unlock()
	}
}

// Run samples every interval until stop is closed.
func (r *Registry) Run(interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	r.Sample(time.Now())
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			r.Sample(now)
		}
	}
}
