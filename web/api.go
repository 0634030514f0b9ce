package web

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/streamsql/streamsql/metrics"
)

// The JSON API follows the shape of Flink's REST API where it fits:
// /jobs, /jobs/{id} with its vertices, and a vertex's watermarks as a
// list of {"id": "<subtask>.<metric>", "value": "<ms>"}.

type api struct{ reg *metrics.Registry }

type jobOverview struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

type vertex struct {
	ID          string           `json:"id"`
	Name        string           `json:"name"`
	Kind        string           `json:"type"` // source, operator, sink
	Parallelism int              `json:"parallelism"`
	Metrics     map[string]int64 `json:"metrics"`
}

type jobDetail struct {
	ID         string   `json:"jid"`
	Name       string   `json:"name"`
	State      string   `json:"state"`
	Start      int64    `json:"start-time"`
	End        int64    `json:"end-time"`
	Duration   int64    `json:"duration"`
	Now        int64    `json:"now"`
	Vertices   []vertex `json:"vertices"`
	Plans      []string `json:"plans"`
	Statements []string `json:"statements"`
	Warnings   []string `json:"warnings"`
}

type watermark struct {
	ID    string `json:"id"`
	Value string `json:"value"`
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func (a *api) jobs(w http.ResponseWriter, _ *http.Request) {
	out := struct {
		Jobs []jobOverview `json:"jobs"`
	}{Jobs: []jobOverview{}}
	for _, j := range a.reg.Jobs() {
		out.Jobs = append(out.Jobs, jobOverview{ID: j.ID, Status: j.State()})
	}
	writeJSON(w, out)
}

func (a *api) job(w http.ResponseWriter, r *http.Request) {
	j := a.reg.Find(r.PathValue("id"))
	if j == nil {
		http.Error(w, "no job "+r.PathValue("id"), http.StatusNotFound)
		return
	}
	now := time.Now()
	d := jobDetail{ID: j.ID, Name: j.Name, State: j.State(), Start: j.Start.UnixMilli(), End: -1, Now: now.UnixMilli(),
		Plans: j.Plans, Statements: j.Statements, Warnings: j.Exec.Warnings()}
	if e := j.End(); !e.IsZero() {
		d.End = e.UnixMilli()
		d.Duration = e.Sub(j.Start).Milliseconds()
	} else {
		d.Duration = now.Sub(j.Start).Milliseconds()
	}
	d.Vertices = vertices(metrics.Take(j.Exec, now))
	writeJSON(w, d)
}

// vertices lists a snapshot's sources, operators (subtasks summed) and
// sinks as vertices.
func vertices(s metrics.Snapshot) []vertex {
	var out []vertex
	for i, src := range s.Sources {
		out = append(out, vertex{ID: vid(src.ID, "source", i), Name: "Source: " + src.Table, Kind: "source", Parallelism: 1,
			Metrics: map[string]int64{"write-records": src.RowsRead, "bad-records": src.BadRows, "late-records": src.Late,
				"current-watermark": src.Watermark, "max-event-time": src.MaxEventTime}})
		if src.HasBytes {
			out[len(out)-1].Metrics["read-bytes"] = src.Bytes
		}
	}
	for _, o := range s.Operators {
		m := map[string]int64{"read-records": o.In, "write-records": o.Out, "late-records": o.Late, "state-rows": o.StateRows,
			"state-memory-bytes": o.StateMem, "state-disk-bytes": o.StateDisk}
		if o.Subtask > 0 {
			v := &out[len(out)-1]
			v.Parallelism++
			for k, n := range m {
				v.Metrics[k] += n
			}
			continue
		}
		out = append(out, vertex{ID: o.ID, Name: o.Name, Kind: "operator", Parallelism: 1, Metrics: m})
	}
	for i, k := range s.Sinks {
		out = append(out, vertex{ID: vid(k.ID, "sink", i), Name: "Sink: " + k.Table, Kind: "sink", Parallelism: 1,
			Metrics: map[string]int64{"read-records": k.In, "written-records": k.Written, "write-errors": k.WriteErrors}})
	}
	return out
}

// vid is a vertex's id: the physical plan's, or, for a job built without
// one, its kind and number (from 1).
func vid(id, kind string, i int) string {
	if id != "" {
		return id
	}
	return kind + "-" + strconv.Itoa(i+1)
}

// watermarks serves a vertex's watermarks as Flink does: per subtask,
// currentInputWatermark (the operator's), and for a multi-input operator
// currentInput1Watermark, currentInput2Watermark, …; a source's
// currentOutputWatermark, with its maxEventTime. A value not known yet is
// Long.MIN_VALUE, as in Flink.
func (a *api) watermarks(w http.ResponseWriter, r *http.Request) {
	j := a.reg.Find(r.PathValue("id"))
	if j == nil {
		http.Error(w, "no job "+r.PathValue("id"), http.StatusNotFound)
		return
	}
	want := r.PathValue("vid")
	s := metrics.Take(j.Exec, time.Now())
	out := []watermark{}
	ms := func(v int64) string { return strconv.FormatInt(v, 10) }
	found := false
	for i, src := range s.Sources {
		if vid(src.ID, "source", i) == want {
			found = true
			out = append(out, watermark{"0.currentOutputWatermark", ms(src.Watermark)}, watermark{"0.maxEventTime", ms(src.MaxEventTime)})
		}
	}
	for _, o := range s.Operators {
		if o.ID != want {
			continue
		}
		found = true
		st := strconv.Itoa(o.Subtask) + "."
		out = append(out, watermark{st + "currentInputWatermark", ms(o.Watermark)})
		for i, in := range o.Inputs {
			out = append(out, watermark{st + "currentInput" + strconv.Itoa(i+1) + "Watermark", ms(in.Watermark)})
		}
	}
	for i, k := range s.Sinks {
		if vid(k.ID, "sink", i) == want {
			found = true
			out = append(out, watermark{"0.currentInputWatermark", ms(k.Watermark)})
		}
	}
	if !found {
		http.Error(w, "job "+j.ID+" has no vertex "+want, http.StatusNotFound)
		return
	}
	writeJSON(w, out)
}
