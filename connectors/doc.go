// Package connectors declares streamsql's connectors and formats: their
// names, their options, and what they promise about changelogs. It is the
// contract between a CREATE TABLE's WITH clause and the code that will read
// and write the data; the readers and writers themselves live in
// connectors/<name> and register with package connector (the runtime's
// side: Source, Sink, the registry) under a spec's name.
//
// Options are Flink's, spelled as in Flink, so that a Flink job file's DDL
// means the same thing here:
//
//	CREATE TABLE clicks (...) WITH (
//	  'connector' = 'kafka',                          -- a ConnectorSpec
//	  'topic' = 'clicks',                             -- its OptionSpecs
//	  'properties.bootstrap.servers' = 'localhost:9092',
//	  'properties.client.id' = 'jobs',                -- a Prefix option: passed through
//	  'scan.startup.mode' = 'timestamp',              -- Choices, ignoring case
//	  'scan.startup.timestamp-millis' = '1767225600000',
//	  'format' = 'json',                              -- a FormatSpec, named by a format option
//	  'json.ignore-parse-errors' = 'true'             -- its options, under the format's name
//	)
//
// Built in: filesystem, kafka, upsert-kafka, jdbc, datagen, print, blackhole
// and nexmark; formats json, csv, debezium-json and raw. streamsql adds a few
// options of its own, such as 'scan.late-rows.path' (a dead letter for rows
// behind the watermark), and says so in their Doc.
//
// # Validation
//
// Validate checks a WITH clause as the user wrote it ([]*ast.Option, with
// spans) and reports every problem at the place to fix: an unknown
// connector, format or option at its name, with a "did you mean" from
// diag.Suggest; a bad value at the value, saying what is allowed; a missing
// option at the WITH clause, with an example line to add. Rules across
// options run next (Kafka's 'timestamp' startup mode needs
// 'scan.startup.timestamp-millis'; upsert-kafka's formats must be
// insert-only). Rules that depend on whether the table is read or written
// run later, when the planner knows: Config.ValidateSource and
// Config.ValidateSink. Options that are allowed but have no effect (a
// startup timestamp without 'timestamp' mode) and epoch values that look
// like seconds draw warnings: both have started jobs at the wrong offsets.
//
// Before a value is checked, its references to secrets kept outside the
// job file are resolved (package secret): ${NAME} from the environment,
// ${file:/path} from a file; one that cannot be is diag.UnresolvedReference
// at the reference. A message never repeats the value of a secret option
// (secret.Show).
//
// Apart from those references, validation never consults the network or
// the file system: a checked configuration is well formed, not necessarily
// reachable. File options ('path', 'scan.late-rows.path') are paths or
// file: URIs; LocalPath and ResolvePath turn them into the path the runtime
// opens, from the text alone.
//
// # Kafka security
//
// security.go declares Kafka's security settings under their Flink names
// ('properties.security.protocol', 'properties.sasl.*',
// 'properties.ssl.*') and the rules between them: a setting that would
// have no effect is an error, and so is a login module that does not
// match the SASL mechanism or lacks its credentials; turning host name
// checks off, and PLAIN in the clear, draw diag.InsecureOption. ParseJAAS
// reads 'properties.sasl.jaas.config' as Kafka does; NormalizePEM,
// PEMCertificates and CheckPEMKey read PEM as job files carry it (on one
// line, or on several). The runtime (connectors/kafka) uses the same
// functions, so that check and run agree.
//
// # Changelog modes
//
// Each connector declares the changelog mode it emits as a source and
// accepts as a sink, for insert-only formats; a changelog format
// (debezium-json) widens an insert-only connector to every kind:
//
//	connector      source emits        sink accepts
//	filesystem     insert-only|all     insert-only|all   (all with debezium-json)
//	kafka          insert-only|all     insert-only|all   (all with debezium-json)
//	upsert-kafka   upsert              upsert            (needs a PRIMARY KEY)
//	jdbc           insert-only         insert-only|upsert (upsert with a PRIMARY KEY: KeyedSinkAccepts)
//	datagen        insert-only         -
//	nexmark        insert-only         -
//	print          -                   all
//	blackhole      -                   all
//
// SourceModeName and SinkModeName compute this; the planner compares it with
// what a plan produces and refuses, at plan time, a plan whose sink cannot
// take it. The modes are names for now (InsertOnly, Upsert, AllKinds); they
// stand for changelogmode.Mode values.
package connectors
