// Package kafka is the runtime of the 'kafka' and 'upsert-kafka'
// connectors, on franz-go (kgo for the clients, kadm for offsets).
//
//	partitions ──kgo fetch──► records of one partition ──format.Decoder──► row.Batch (split = partition) ──► runtime
//	runtime ──► row.Batch ──format.Encoder (key, value)──► kgo.Produce ──Flush: wait for acks──► topic
//
// # Source
//
// Open lists the partitions of 'topic' (several separated by ';') or of
// every topic matching 'topic-pattern' (the whole name must match), and
// numbers them: topics in name order, then partitions in number order. A
// split is one partition, so the runtime keeps a watermark per partition
// and the source's watermark is the minimum over partitions still running.
// Partitions added later are not picked up
// ('scan.topic-partition-discovery.interval' is accepted and has no effect).
//
// Open then resolves where each partition starts, with kadm:
// 'scan.startup.mode' earliest-offset (the log start), latest-offset (the
// end at Open), timestamp (the first record at or after
// 'scan.startup.timestamp-millis', or the end), specific-offsets
// ('scan.startup.specific-offsets' = 'partition:0,offset:42;partition:1,offset:300';
// partitions not named start at the earliest offset), or group-offsets (the
// offsets committed by 'properties.group.id'; where there is none,
// 'properties.auto.offset.reset': latest, the default, earliest, or none,
// which fails). upsert-kafka always reads from the earliest offset, as in
// Flink. A bounded read ('scan.bounded.mode') resolves the end of each
// partition the same way at Open: latest-offset (the end offsets at Open),
// timestamp (the first offset at or after 'scan.bounded.timestamp-millis'),
// group-offsets (the group's committed offsets) or specific-offsets
// (partitions not named end at their latest offset). Records at or beyond
// the end are not returned; a partition that reached its end is reported by
// DoneSplits (so it stops holding the watermark back) and no longer
// fetched; Read returns io.EOF once every partition has. Transaction
// markers are fetched too (kgo.KeepControlRecords), so a partition whose
// last offset is a marker still ends.
//
// Read returns the rows of up to BatchRecords records of one partition.
// Buffered says whether fetched records are still to be returned: the
// runtime then reads them at once into the same batch (connector.Buffered),
// so a fetch of several partitions goes downstream as one batch.
// Values are decoded with 'format' / 'value.format' (json, debezium-json,
// csv; see package format). With 'key.format' and 'key.fields' (kafka) or
// the PRIMARY KEY (upsert-kafka) the key columns are decoded from the record
// key ('key.fields-prefix' is stripped from the column names) and the value
// is not read for them. upsert-kafka turns a record into +U (its value) and
// a tombstone (null value) into -D with the key columns set and the others
// NULL; a record without a key is a bad row. Metadata columns: 'topic',
// 'partition', 'offset', 'timestamp' (the record time, milliseconds),
// 'timestamp-type', 'leader-epoch', 'key' (the raw key bytes; NULL without
// a key). 'headers' is refused.
//
// A record that cannot be decoded ends the batch: Read returns the rows
// before it with an *connector.BadRowError whose Where is "topic/partition/offset"
// and whose Raw is the value; the next Read continues after it, and the
// runtime decides ('<format>.ignore-parse-errors') whether to skip or stop.
// A null value in a json topic is such a bad row, not a silent skip; for
// debezium-json it is Debezium's tombstone and carries no change.
//
// Checkpoints (checkpoint.go): the source's position is, per partition,
// the offset after the last record Read returned, and, for a bounded read,
// the end offset resolved at the first Open, so that a resumed run ends
// where the first would have. Seek, after Open, reads every partition of
// the position from its offset with a new consuming client; an offset the
// partition no longer has (deleted by retention) or beyond its end (a
// recreated topic) stops the job rather than skip or repeat rows. After
// each completed checkpoint (CheckpointComplete) the position's offsets
// are committed to 'properties.group.id', when set, so that lag tools see
// the job's progress; a resumed run reads the checkpoint, not the group.
// Offsets are never committed otherwise, on Close or on a timer: the
// runtime closes a source as soon as it has read its last rows, before the
// sinks have flushed them, so such a commit could acknowledge rows that
// were never written.
//
// Each partition is a split with its own watermark. Idleness
// ('scan.watermark.idle-timeout') and watermark alignment
// ('scan.watermark.alignment.*') are the runtime's (package exec): the
// source implements connector.SplitPauser so that alignment pauses fetching of
// the partitions that run ahead, and its Read returns on a context deadline
// without losing fetched records, so that the runtime can wake on a quiet
// topic.
//
// Open gives the brokers OpenTimeout to answer; a fetch error that franz-go
// does not retry fails the job with the topic and partition. franz-go
// retries a broker that refuses or drops connections forever, so the
// consuming client's hooks (type health) note when its requests last got
// through: Read polls at most a quarter of 'scan.broker-timeout' (at most a
// second) at a time, and once every connection and request has failed for
// 'scan.broker-timeout' (BrokerTimeout, two minutes, by default) it fails
// with the topics, the partitions not read to their end and the last
// error. A quiet topic is not a failure: its empty fetches get through.
//
// # Sink
//
// Each row is one record on the single 'topic'. kafka takes +I with json
// and every kind with debezium-json; with 'key.format' and 'key.fields' the
// key is encoded from those columns. upsert-kafka encodes the key from the
// PRIMARY KEY with 'key.format' and the row with 'value.format' (without
// the key columns when 'value.fields-include' = 'EXCEPT_KEY'): +I and +U are
// written as the row, -D as a tombstone (null value) for the key, -U is
// dropped (where the plan needs a -U applied, the runtime hands it over as
// a -D). Records are partitioned by franz-go's default partitioner, which
// hashes the key as Kafka's Java client does, so one key's history stays in
// order in one partition; 'sink.partitioner' = 'round-robin' spreads them,
// 'fixed' writes everything to partition 0. A 'timestamp' metadata column
// that is not VIRTUAL sets the record time.
//
// The producer is idempotent (franz-go's default; 'properties.acks' other
// than all turns that off). Write hands records to it and returns the first
// error any record met so far; Flush waits until every record is
// acknowledged and returns an error naming the table, the topic and the
// reason if any failed. A record not acknowledged within DeliveryTimeout
// ('properties.delivery.timeout.ms', at least a second) fails. franz-go
// checks that timeout only around requests, and never fails a record of
// the idempotent producer whose request was in flight when a connection
// dropped, so with the broker gone Flush, and Produce once the buffer is
// full, would wait forever: a watchdog fails the sink when records wait and
// none was acknowledged or failed for the delivery timeout, naming the last
// connection error, and cancels every Produce. Close never waits longer.
// The sink is an connector.Acknowledger: the run counts a row as written once
// its record is acknowledged, not when Write hands it to the producer, so
// a job that fails reports only what reached the topic.
// upsert-kafka's 'sink.buffer-flush.*' is refused: not implemented yet.
//
// Checkpoints (txn.go): by 'sink.delivery-guarantee', a checkpoint barrier
// waits for every record's acknowledgement (at-least-once, the default,
// and upsert-kafka: a resumed job writes the records after the checkpoint
// again, the same rows under the same keys, so a compacted topic ends as
// the clean run's table) or for nothing (none). exactly-once is Flink's
// KafkaSink two-phase commit: each transaction has its own client and
// transactional id '<sink.transactional-id-prefix>-<n>'; at a barrier it is
// flushed and its id, producer id and epoch go into the checkpoint
// (pre-commit); when the checkpoint completes exec calls
// CheckpointComplete, which commits it (connector.SinkCommitter). Resume
// commits a checkpoint's pending transactions with EndTxn and their
// producer id and epoch, then aborts the ones a crashed run left open after
// them (InitProducerID on each id from the checkpoint's next one until an
// id never used). At the end of the input Flush commits everything, the
// last transaction with a marker (an offset of group '<prefix>' whose
// metadata names the chain of runs): a run resumed after it writes nothing.
// Close (a stop, a failure) aborts the open transaction. A job with an
// exactly-once sink and no checkpoints is refused
// (connector.CheckpointRequirer).
//
// # Security
//
// security.go maps the security properties onto franz-go: TLS with the
// truststore's CAs (or the system's), a client certificate from the
// keystore, and an empty endpoint identification algorithm as a chain check
// without the host name (crypto/tls with VerifyConnection); SASL with
// franz-go's pkg/sasl mechanisms (plain, scram, oauth, aws), the
// credentials from 'properties.sasl.jaas.config' (connectors.ParseJAAS).
// OAUTHBEARER gets its tokens with the client credentials grant
// (golang.org/x/oauth2/clientcredentials) from the token endpoint, over the
// same TLS settings; AWS_MSK_IAM signs with the AWS_* environment
// variables. Files and those variables are read when a source or sink
// opens, not when it is made: check makes them without opening them.
//
// franz-go retries failed connections forever, and some brokers close the
// connection on wrong credentials instead of answering. The clients' hooks
// (type health) classify each failed connection (security.classify): wrong
// credentials, a mechanism the brokers refuse, an untrusted certificate,
// a certificate for another host, a client certificate the broker wants,
// TLS on one side only. Those retrying cannot mend are fatal: Open of a
// source returns at once, a running source's Read returns, and a sink
// fails, each with the table, the broker's reason and the option to
// change. A sink asks the brokers about its topic when it opens (a metadata
// request, bounded by OpenTimeout), so that such failures, and a topic its
// principal may not even describe, stop the job at start; brokers that do
// not answer at all are left to the delivery timeout, as before.
// Authorization errors (TOPIC_, GROUP_, CLUSTER_ and
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED) get the principal, what a source
// or a sink needs, and what to change (security.aclAdvice). No message
// holds a password.
//
// # Client properties
//
// 'properties.*' are mapped onto franz-go options: bootstrap.servers,
// group.id, client.id, auto.offset.reset, isolation.level, the security
// properties above, enable.auto.commit (false only),
// fetch.max.wait.ms, fetch.max.bytes, max.partition.fetch.bytes, linger.ms,
// batch.size, request.timeout.ms, delivery.timeout.ms, acks,
// enable.idempotence, compression.type. Any other property is refused
// rather than ignored. The sink's producer lingers Linger (0) unless
// linger.ms is set: franz-go's default of 10 ms was most of the latency of
// a job that keeps up, and records still go out in batches while earlier
// requests are in flight.
package kafka
