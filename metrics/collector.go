package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/exec"
)

var (
	jobLabels    = []string{"job_id", "job_name"}
	sourceLabels = []string{"job_id", "job_name", "table"}
	splitLabels  = []string{"job_id", "job_name", "table", "split"}
	opLabels     = []string{"job_id", "job_name", "operator", "name", "subtask"}
	inputLabels  = []string{"job_id", "job_name", "operator", "name", "subtask", "input", "input_name"}
	sinkLabels   = []string{"job_id", "job_name", "table"}
)

// Family describes one metric family the collector exports.
type Family struct {
	Name   string // with the streamsql_ prefix
	Help   string
	Type   string // "counter" or "gauge"
	Labels []string
}

var (
	families []Family
	descs    []*prometheus.Desc
)

// Families lists the job metrics, in the order of docs/metrics.md.
func Families() []Family { return append([]Family(nil), families...) }

func def(typ, name, help string, labels []string) *prometheus.Desc {
	families = append(families, Family{Name: "streamsql_" + name, Help: help, Type: typ, Labels: labels})
	d := prometheus.NewDesc("streamsql_"+name, help, labels, nil)
	descs = append(descs, d)
	return d
}

func counterDesc(name, help string, labels []string) *prometheus.Desc {
	return def("counter", name, help, labels)
}
func gaugeDesc(name, help string, labels []string) *prometheus.Desc {
	return def("gauge", name, help, labels)
}

// The metrics, in the order of docs/metrics.md.
var (
	jobInfo       = gaugeDesc("job_info", "A job the process runs (always 1); state is RUNNING, FINISHED, FAILED or CANCELED.", append(jobLabels[:2:2], "state"))
	jobStart      = gaugeDesc("job_start_time_seconds", "When the job started, in seconds since the Unix epoch.", jobLabels)
	jobWarnings   = counterDesc("job_warnings_total", "Warnings the job has reported while running (the inputs of a join drifting apart, event times far in the future).", jobLabels)
	srcRows       = counterDesc("source_rows_read_total", "Rows read from the table.", sourceLabels)
	srcBytes      = counterDesc("source_bytes_read_total", "Bytes of input read from the table (Kafka: the keys and values of its records; a file: its lines). Absent for connectors that do not count them.", sourceLabels)
	srcBad        = counterDesc("source_bad_rows_total", "Rows the source could not decode (skipped with 'json.ignore-parse-errors', else the job stopped at the first).", sourceLabels)
	srcLate       = counterDesc("source_late_rows_total", "Rows of the table that arrived at or below an operator's watermark.", sourceLabels)
	srcNoTime     = counterDesc("source_rows_without_time_total", "Rows of the table without a usable event time (NULL, or outside years 1 to 9999).", sourceLabels)
	srcWM         = gaugeDesc("source_watermark_seconds", "The table's current watermark, in seconds since the Unix epoch (absent before the first and after the input ended).", sourceLabels)
	srcMax        = gaugeDesc("source_max_event_time_seconds", "The largest event time read from the table, in seconds since the Unix epoch.", sourceLabels)
	srcLag        = gaugeDesc("source_watermark_lag_seconds", "Wall clock minus the table's watermark.", sourceLabels)
	srcGap        = gaugeDesc("source_event_time_gap_seconds", "Max event time minus watermark: how far the slowest split (or the watermark delay) holds the table's event time back.", sourceLabels)
	srcSplitWM    = gaugeDesc("source_split_watermark_seconds", "The watermark of one split of the table (a Kafka partition: split is topic-partition), in seconds since the Unix epoch: the table's watermark is the smallest over its active splits.", splitLabels)
	srcSplitBytes = counterDesc("source_split_bytes_read_total", "Bytes of input read from one split of the table (a Kafka partition, a file).", splitLabels)
	srcSplitLag   = gaugeDesc("source_split_lag_records", "Records of one Kafka partition not read yet (consumer lag): its high watermark, as of the last fetch that returned records of it, minus the offset of the next record to read.", splitLabels)
	srcIdle       = gaugeDesc("source_idle", "1 while every split of the table is idle ('scan.watermark.idle-timeout').", sourceLabels)
	srcPaused     = gaugeDesc("source_paused", "1 while watermark alignment holds the table back.", sourceLabels)
	srcDrift      = gaugeDesc("source_alignment_drift_seconds", "How far the table's watermark is ahead of its alignment group's (0 without a group).", sourceLabels)
	srcAlerts     = counterDesc("source_gap_alerts_total", "Times the table's event-time gap went over 'scan.watermark.gap-alert'.", sourceLabels)
	srcAlerting   = gaugeDesc("source_gap_alert", "1 while the table's event-time gap is over 'scan.watermark.gap-alert'.", sourceLabels)
	opIn          = counterDesc("operator_rows_in_total", "Rows the operator took in.", opLabels)
	opOut         = counterDesc("operator_rows_out_total", "Rows (changes) the operator emitted.", opLabels)
	opLate        = counterDesc("operator_late_rows_total", "Rows that arrived at or below the operator's watermark.", opLabels)
	opNoTime      = counterDesc("operator_rows_without_time_total", "Rows the operator could not place in time.", opLabels)
	opState       = gaugeDesc("operator_state_rows", "Rows the operator keeps in state now.", opLabels)
	opPeak        = gaugeDesc("operator_state_rows_peak", "The most rows the operator has kept in state.", opLabels)
	opSpilled     = counterDesc("operator_state_spilled_keys_total", "State keys written to disk under 'state.memory-budget'.", opLabels)
	opStateMem    = gaugeDesc("operator_state_memory_bytes", "Estimated bytes of the operator's state in memory (the hot tier under 'state.memory-budget').", opLabels)
	opStateDisk   = gaugeDesc("operator_state_disk_bytes", "Bytes the operator's state takes on disk (what spilled under 'state.memory-budget', and what checkpoints flushed), as du counts them: its directory under --state-dir, else its share of the job's temporary Badger database in proportion to the keys it spilled; measured after the state store last wrote or read, at most every 250 ms.", opLabels)
	opWM          = gaugeDesc("operator_watermark_seconds", "The operator's watermark, in seconds since the Unix epoch.", opLabels)
	opInputWM     = gaugeDesc("operator_input_watermark_seconds", "The watermark of one input of a multi-input operator (a join, a union), in seconds since the Unix epoch.", inputLabels)
	opInputDrift  = gaugeDesc("operator_input_drift_seconds", "The largest input watermark minus the smallest, over a multi-input operator's inputs.", opLabels)
	sinkRows      = counterDesc("sink_rows_total", "Rows handed to the sink, by change kind (insert, update_before, update_after, delete).", append(sinkLabels[:3:3], "kind"))
	sinkWritten   = counterDesc("sink_rows_written_total", "Rows the sink has written (for Kafka: acknowledged by the broker).", sinkLabels)
	sinkErrors    = counterDesc("sink_write_errors_total", "Writes the sink failed.", sinkLabels)
	sinkWM        = gaugeDesc("sink_watermark_seconds", "The last watermark the sink saw, in seconds since the Unix epoch.", sinkLabels)
	cpDone        = counterDesc("checkpoints_completed_total", "Checkpoints the job completed in this run (absent for a job that takes none).", jobLabels)
	cpFailed      = counterDesc("checkpoints_failed_total", "Checkpoints the job began and failed in this run (timed out, or a write failed); the job goes on.", jobLabels)
	cpDuration    = gaugeDesc("checkpoint_last_duration_seconds", "How long the last completed checkpoint took, from its barriers to its manifest.", jobLabels)
	cpSize        = gaugeDesc("checkpoint_last_size_bytes", "The size of the last completed checkpoint's files.", jobLabels)
	cpAge         = gaugeDesc("checkpoint_age_seconds", "Seconds since the last checkpoint completed, or since the job started when none has yet: what a restart would read again.", jobLabels)
)

var kindLabel = [...]string{
	changelogmode.Insert:       "insert",
	changelogmode.UpdateBefore: "update_before",
	changelogmode.UpdateAfter:  "update_after",
	changelogmode.Delete:       "delete",
}

// collector exports the registry's jobs as Prometheus metrics, reading
// their counters at scrape time.
type collector struct {
	r   *Registry
	now func() time.Time
}

// NewPrometheusRegistry returns a Prometheus registry holding the jobs'
// metrics and Go's runtime and process metrics.
func NewPrometheusRegistry(r *Registry) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{r: r, now: time.Now}, collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Describe sends every job metric's description.
func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range descs {
		ch <- d
	}
}

func seconds(ms int64) float64 { return float64(ms) / 1000 }

func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Collect reads every job's counters now and sends their metrics.
func (c collector) Collect(ch chan<- prometheus.Metric) {
	now := c.now()
	for _, j := range c.r.Jobs() {
		s := Take(j.Exec, now)
		jl := []string{j.ID, j.Name}
		l := func(extra ...string) []string { return append(jl[:2:2], extra...) }
		gauge := func(d *prometheus.Desc, v float64, labels []string) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
		}
		counter := func(d *prometheus.Desc, v int64, labels []string) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
		}
		gauge(jobInfo, 1, l(j.State()))
		gauge(jobStart, float64(j.Start.UnixNano())/1e9, jl)
		counter(jobWarnings, int64(len(j.Exec.Warnings())), jl)
		for _, src := range s.Sources {
			sl := l(src.Table)
			counter(srcRows, src.RowsRead, sl)
			if src.HasBytes {
				counter(srcBytes, src.Bytes, sl)
			}
			counter(srcBad, src.BadRows, sl)
			counter(srcLate, src.Late, sl)
			counter(srcNoTime, src.NoTime, sl)
			if Known(src.Watermark) {
				gauge(srcWM, seconds(src.Watermark), sl)
				gauge(srcLag, seconds(now.UnixMilli()-src.Watermark), sl)
			}
			if Known(src.MaxEventTime) {
				gauge(srcMax, seconds(src.MaxEventTime), sl)
			}
			if gap, ok := src.Gap(); ok {
				gauge(srcGap, seconds(gap), sl)
			}
			for _, sp := range src.Splits {
				spl := append(sl[:3:3], sp.Name)
				if Known(sp.Watermark) {
					gauge(srcSplitWM, seconds(sp.Watermark), spl)
				}
				if sp.HasBytes {
					counter(srcSplitBytes, sp.Bytes, spl)
				}
				if sp.HasLag {
					gauge(srcSplitLag, float64(sp.Lag), spl)
				}
			}
			gauge(srcIdle, flag(src.Idle), sl)
			gauge(srcPaused, flag(src.Paused), sl)
			gauge(srcDrift, seconds(src.Drift), sl)
			counter(srcAlerts, src.GapAlerts, sl)
			gauge(srcAlerting, flag(src.GapAlerting), sl)
		}
		for _, o := range s.Operators {
			ol := l(o.ID, o.Name, strconv.Itoa(o.Subtask))
			counter(opIn, o.In, ol)
			counter(opOut, o.Out, ol)
			counter(opLate, o.Late, ol)
			counter(opNoTime, o.NoTime, ol)
			gauge(opState, float64(o.StateRows), ol)
			gauge(opPeak, float64(o.PeakState), ol)
			counter(opSpilled, o.Spilled, ol)
			gauge(opStateMem, float64(o.StateMem), ol)
			gauge(opStateDisk, float64(o.StateDisk), ol)
			if Known(o.Watermark) {
				gauge(opWM, seconds(o.Watermark), ol)
			}
			for i, in := range o.Inputs {
				if Known(in.Watermark) {
					gauge(opInputWM, seconds(in.Watermark), append(ol[:5:5], strconv.Itoa(i), in.Name))
				}
			}
			if d, ok := inputDrift(o.Inputs); ok {
				gauge(opInputDrift, seconds(d), ol)
			}
		}
		for _, k := range s.Sinks {
			kl := l(k.Table)
			for i, n := range k.Kinds {
				counter(sinkRows, n, append(kl[:3:3], kindLabel[i]))
			}
			counter(sinkWritten, k.Written, kl)
			counter(sinkErrors, k.WriteErrors, kl)
			if Known(k.Watermark) {
				gauge(sinkWM, seconds(k.Watermark), kl)
			}
		}
		if cp := s.Checkpoints; cp != nil {
			counter(cpDone, cp.Completed, jl)
			counter(cpFailed, cp.Failed, jl)
			since := j.Start
			if !cp.LastEnd.IsZero() {
				gauge(cpDuration, cp.LastDuration.Seconds(), jl)
				gauge(cpSize, float64(cp.LastSize), jl)
				since = cp.LastEnd
			}
			at := now
			if end := j.End(); !end.IsZero() && end.Before(now) {
				at = end // an ended job's checkpoints age no more
			}
			gauge(cpAge, max(at.Sub(since).Seconds(), 0), jl)
		}
	}
}

// inputDrift is the largest minus the smallest watermark over the inputs
// whose watermark is known; false with fewer than two.
func inputDrift(ins []Input) (int64, bool) {
	lo, hi, n := exec.MaxWatermark, exec.MinWatermark, 0
	for _, in := range ins {
		if Known(in.Watermark) {
			lo, hi, n = min(lo, in.Watermark), max(hi, in.Watermark), n+1
		}
	}
	return hi - lo, n >= 2
}
