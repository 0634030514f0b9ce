// Package blackhole is the runtime of the 'blackhole' connector: a sink that
// takes every row of every kind and discards it, counting them. It is for
// benchmarks (it costs nothing per row) and for trying out a query. It
// takes part in checkpoints, with nothing to save or cut back.
package blackhole
