package metrics

import (
	"strconv"
	"time"

	"github.com/streamsql/streamsql/exec"
)

// Snapshot is where a job stands at one moment, read from its counters.
// Times are milliseconds since the epoch; exec.MinWatermark means "not
// known yet" and exec.MaxWatermark "ended".
type Snapshot struct {
	At        time.Time
	Sources   []Source
	Operators []Operator
	Sinks     []Sink
	// Checkpoints is nil for a job that takes none.
	Checkpoints *Checkpoints
}

// Checkpoints are the checkpoints a job took in this run.
type Checkpoints struct {
	Completed, Failed int64
	// LastEnd is when the last completed (zero before the first), after
	// LastDuration; LastSize is its size in bytes.
	LastEnd      time.Time
	LastDuration time.Duration
	LastSize     int64
}

// Source is one table read by the job.
type Source struct {
	ID       string // the physical plan's id (EXPLAIN's Source[source-cd6d50d4])
	Table    string
	RowsRead int64
	// Bytes is the sum of the splits' Bytes, when HasBytes (the source
	// counts them: Kafka, files).
	Bytes         int64
	HasBytes      bool
	BadRows, Late int64
	NoTime        int64
	Watermark     int64
	MaxEventTime  int64
	Idle, Paused  bool
	Drift         int64 // ms ahead of its alignment group
	Group         string
	Splits        []Split
	// GapAlerts counts the times the gap went over
	// 'scan.watermark.gap-alert'; GapAlerting is set while it is over.
	GapAlerts   int64
	GapAlerting bool
}

// Split is one split of a source (a Kafka partition): its watermark, the
// bytes it gave (when HasBytes) and the records not read yet (a Kafka
// partition's consumer lag, when HasLag).
type Split struct {
	Name             string
	Watermark        int64
	Bytes, Lag       int64
	HasBytes, HasLag bool
}

// Gap is max event time minus watermark in ms, and whether both are known
// (and the input has not ended).
func (s Source) Gap() (int64, bool) {
	if !Known(s.Watermark) || !Known(s.MaxEventTime) {
		return 0, false
	}
	return s.MaxEventTime - s.Watermark, true
}

// Operator is one instance (subtask) of an operator.
type Operator struct {
	// ID is the physical plan's operator id (EXPLAIN's
	// Join[join-7be2160a]), or, for a job built without one, "op-N"
	// numbering the operators in the order exec built them; the subtasks
	// of a partitioned operator share it.
	ID        string
	Subtask   int
	Name      string
	In, Out   int64
	Late      int64
	NoTime    int64
	StateRows int64
	PeakState int64
	Spilled   int64
	// StateMem is the estimated bytes of state in memory, StateDisk the
	// bytes its state takes on disk (state.Store.DiskBytes).
	StateMem, StateDisk int64
	Watermark           int64
	Inputs              []Input
}

// Input is the watermark of one input of a multi-input operator.
type Input struct {
	Name      string
	Watermark int64
}

// Sink is one table (or SELECT) the job writes.
type Sink struct {
	ID          string
	Table       string
	In          int64    // rows handed to the sink's operator
	Written     int64    // rows the sink has written (acknowledged, for Kafka)
	Kinds       [4]int64 // by change kind: +I, -U, +U, -D
	WriteErrors int64
	Watermark   int64
}

// Known reports whether an event time or watermark is a real instant.
func Known(t int64) bool { return t != exec.MinWatermark && t != exec.MaxWatermark }

// Take reads job's counters.
func Take(job *exec.Job, at time.Time) Snapshot {
	s := Snapshot{At: at}
	for _, c := range job.Sources {
		s.Sources = append(s.Sources, Source{ID: c.ID, Table: c.Name, RowsRead: c.In.Load(), BadRows: c.Bad.Load(),
			Late: c.Late.Load(), NoTime: c.NoTime.Load(), Watermark: c.Watermark.Load(), MaxEventTime: c.MaxTime.Load(),
			Idle: c.Idle.Load(), Paused: c.Paused.Load(), Drift: c.Drift.Load(), Group: c.Group,
			GapAlerts: c.GapAlerts.Load(), GapAlerting: c.GapAlerting.Load()})
		src := &s.Sources[len(s.Sources)-1]
		for _, sp := range c.Splits() {
			x := Split{Name: sp.Name, Watermark: sp.WM.Load()}
			x.Bytes, x.HasBytes = sp.Bytes()
			x.Lag, x.HasLag = sp.Lag()
			if x.HasBytes {
				src.Bytes += x.Bytes
				src.HasBytes = true
			}
			src.Splits = append(src.Splits, x)
		}
	}
	n := 0
	for i, c := range job.Operators {
		// The subtasks of one partitioned operator are built one after
		// the other, numbered from 0: subtask 0 starts a new operator.
		if c.Subtask == 0 || i == 0 || job.Operators[i-1].Name != c.Name {
			n++
		}
		id := c.ID
		if id == "" {
			id = "op-" + strconv.Itoa(n)
		}
		o := Operator{ID: id, Subtask: c.Subtask, Name: c.Name, In: c.In.Load(), Out: c.Out.Load(), Late: c.Late.Load(),
			NoTime: c.NoTime.Load(), StateRows: c.StateRows.Load(), PeakState: c.PeakState.Load(),
			Spilled: c.Spilled.Load(), StateMem: c.StateMem.Load(), StateDisk: c.StateDisk.Load(), Watermark: c.Watermark.Load()}
		for _, in := range c.Inputs {
			o.Inputs = append(o.Inputs, Input{Name: in.Name, Watermark: in.WM.Load()})
		}
		s.Operators = append(s.Operators, o)
	}
	for _, c := range job.Sinks {
		k := Sink{ID: c.ID, Table: c.Name, In: c.In.Load(), Written: c.Out.Load(), WriteErrors: c.WriteErrors.Load(),
			Watermark: c.Watermark.Load()}
		for i := range k.Kinds {
			k.Kinds[i] = c.Kinds[i].Load()
		}
		s.Sinks = append(s.Sinks, k)
	}
	if job.TakesCheckpoints() {
		cp := &Checkpoints{Completed: job.CheckpointsDone.Load(), Failed: job.CheckpointsFailed.Load()}
		if last := job.LastCheckpoint(); last != nil {
			cp.LastEnd, cp.LastSize = last.Completed, last.Size()
			cp.LastDuration = time.Duration(last.DurationMS) * time.Millisecond
		}
		s.Checkpoints = cp
	}
	return s
}
