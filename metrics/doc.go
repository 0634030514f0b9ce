// Package metrics watches running jobs from outside: it reads the live
// counters exec keeps (exec.Counters, all atomics) and turns them into
// snapshots, a short history of snapshots, and Prometheus metrics.
//
//	exec.Job counters ──read──► Snapshot ──► Collector (/metrics, on scrape)
//	   (atomics, kept by            │
//	    the runtime anyway)         └──► History (sampled every second,
//	                                     last N minutes: the web UI's plots)
//
// Promises:
//   - Watching costs the job nothing on its rows' path: every value is
//     read from an atomic the runtime updates anyway, at scrape or sample
//     time, never pushed by the job. A job that nobody watches pays nothing.
//   - Metric names follow Prometheus's conventions: the streamsql_ prefix,
//     base units (seconds, bytes), _total on counters. Event times are
//     seconds since the Unix epoch; a watermark or event time that is not
//     known yet (no row, no watermark) is not exported rather than
//     exported as a made-up number, and neither is the final watermark of
//     an ended input (it is +infinity in the engine).
//   - Labels: job_id and job_name on every job metric (not "job", which
//     Prometheus sets to the scrape job and would rename), table for
//     sources and sinks, operator (an id unique in the job), name and
//     subtask for operators, input for an operator's inputs.
//   - docs/metrics.md lists every metric this package exports; a test
//     fails when one is exported without being documented there.
package metrics
