// Package checkpoint keeps a job's checkpoints on disk: where they live under
// --state-dir, how one is written so that it is either complete or ignored,
// how many are kept, and how the latest complete one is found and checked
// again when the job restarts. It knows nothing of operators, rows or
// connectors: a checkpoint is a set of named parts (byte streams the runtime
// fills: an operator partition's state, the sources' positions, ...) and a
// manifest that lists them.
//
// # Layout
//
//	DIR/checkpoints/
//	    chk-000041/          an older complete checkpoint (while retained)
//	        MANIFEST
//	        op3.p0.meta ...
//	    chk-000042/          the latest complete checkpoint
//	        MANIFEST
//	        ...
//	    chk-000043/          being written (or left by a crash): no MANIFEST
//	        op3.p0.meta
//	    shared/              shared parts, each written by one checkpoint
//	        000040.op3.p0.state     and listed by it and later ones
//	        000041.op3.p0.delta.1
//	        000042.op3.p0.delta.2
//
// A shared part (Writer.SharedPart) is listed in its manifest with its
// file under shared/; a later checkpoint lists it again, unchanged
// (Writer.Reuse), to refer to state it did not rewrite (incremental
// checkpoints). After each commit, the shared files that no complete
// checkpoint on disk lists are removed (those of removed checkpoints, or
// of ones a crash left incomplete): the manifests are the reference counts,
// as Flink's SharedStateRegistry keeps them for incremental RocksDB
// checkpoints. Nothing is removed when a manifest cannot be read.
//
// # Writing one
//
//	w, _ := d.Begin()              // chk-<next id>/, ids only increase
//	p, _ := w.Part("op3.p0.state") // any number, from any goroutines
//	p.Write(...); p.Close()        // Close flushes and fsyncs the part
//	w.Commit(meta)                 // the MANIFEST, then retention
//
// Commit writes the manifest last: to MANIFEST.tmp, fsynced, renamed to
// MANIFEST, and the directory fsynced. A checkpoint is complete exactly when
// its MANIFEST exists, and by then every part it lists is durable. A crash at
// any moment leaves either a complete checkpoint or a directory without a
// manifest, which Latest skips and the next Commit removes.
//
// A part's bytes go to its file with O_DIRECT where the filesystem takes it
// (direct.go): a part is read back only on a restore, so a copy in the page
// cache is CPU and memory spent for nothing. Elsewhere they go through the
// page cache; the file's bytes, and the fsync at Close, are the same.
//
// The manifest records every part's size and CRC-32C (Castagnoli) and
// carries its own checksum. After a commit, complete checkpoints beyond the
// newest Options.Retained (the setting 'state.checkpoints.num-retained',
// default 1) are removed, manifest first, so a half-removed checkpoint is an
// incomplete one, never a complete one missing parts.
//
// # Reading one back
//
// Latest returns the newest complete checkpoint. Checkpoints without a
// manifest are skipped (and listed in Skipped), so a crash while writing
// falls back to the one before. A checkpoint whose manifest exists but
// cannot be trusted — a manifest or part whose checksum or size does not
// match, a part that is missing — is an error naming the file, never a
// silent fall back: the outputs committed when it completed (a Kafka
// transaction) are already out, and resuming from an older cut would repeat
// them. The error says which older checkpoint remains and how to start over.
// Part readers check size and checksum when they reach the end, and Verify
// checks every part before anything is restored.
//
// WriteFileAtomic writes a small file of the state directory outside the
// checkpoints the same way (a temporary file, fsync, rename, fsync of the
// directory): the dead-letter files' lengths at a job's first start.
//
// # The plan
//
// A manifest lists the job's stateful operators (Operator: a stable id, a
// kind, the kind's state layout version and a digest of the types its state
// holds). ComparePlan refuses to resume a job whose operators differ from
// the checkpoint's, saying what changed and how to start over: restoring a
// join's state into another join, or reading a source position into another
// source, would be silently wrong.
package checkpoint
