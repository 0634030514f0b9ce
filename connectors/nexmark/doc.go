// Package nexmark is the runtime of the 'nexmark' connector: a source that
// generates the Nexmark benchmark's online auction: people, auctions and
// bids. It is a Go port of the reference generator (github.com/nexmark/nexmark,
// nexmark-flink: GeneratorConfig, NexmarkGenerator, PersonGenerator,
// AuctionGenerator, BidGenerator, StringsGenerator, PriceGenerator).
//
// # The stream
//
// Events are numbered from 0. Event id n is a person, an auction or a bid by
// n modulo the sum of the proportions ('person.proportion',
// 'auction.proportion', 'bid.proportion': 1, 3 and 46 by default, so 1:3:46
// in every 50 events). Ids follow from the event id, as in the reference:
//
//   - a person's id is 1000 + lastBase0PersonId(n), an auction's 1000 +
//     lastBase0AuctionId(n): the count of people (auctions) before it;
//   - a bid goes to a hot auction (the first of the latest batch of 100
//     auctions) except for one bid in 'bid.hot-ratio.auctions' (2), which
//     goes to a random auction among the latest 'num.in.flight.auctions'
//     (100) plus 10 not generated yet (the id lead); its bidder is a hot
//     bidder (the second of the latest batch of 100 people) except for one
//     in 'bid.hot-ratio.bidders' (4), a random one among the latest
//     'num.active.people' (1000) plus 10;
//   - an auction's seller is likewise a hot seller (the first of the
//     batch) except for one in 'auction.hot-ratio.sellers' (4);
//   - prices are round(10^(6u) × 100), u uniform: from 1.00 to 1,000,000.00
//     in cents, log-uniform; a reserve is the initial bid plus another price;
//   - an auction expires after a uniform random time up to twice the event
//     time it takes to generate 'num.in.flight.auctions' more auctions
//     (about 0.17 s of event time at the defaults);
//   - strings are random letters, and 'extra' pads each event to the
//     average size ('person.avg-size' 200b, 'auction.avg-size' 500b,
//     'bid.avg-size' 100b, counted as the reference counts them: 8 bytes per
//     number, the strings' lengths; bids' channel and url are not counted),
//     uniform within ±20%.
//
// Event n happens at 'first-event.timestamp' (2026-01-01 00:00:00 UTC by
// default) plus n / 'first-event.rate' seconds (10,000 events per second of
// event time by default). 'events.num' bounds the stream: the source ends
// after event id 'events.num' - 1. 'rate.limited' = 'true' holds every
// batch back until its event time has come in wall time, from Open;
// otherwise events come as fast as they are read.
//
// # Determinism
//
// Every event's values come from a random generator seeded by its event id
// (and 'nexmark.seed', default 0), so two runs, or two tables reading the
// same stream, agree exactly. This differs from the Flink reference, which
// draws from one unseeded generator (the Beam original seeds per event, as
// here), and uses the wall clock as the base time.
//
// # Tables
//
// 'nexmark.table' (person, auction or bid; default bid) picks the events a
// table holds; the source skips the other event ids without generating
// them. The columns are Nexmark's:
//
//	person(id, name, emailAddress, creditCard, city, state, dateTime, extra)
//	auction(id, itemName, description, initialBid, reserve, dateTime, expires, seller, category, extra)
//	bid(auction, bidder, price, channel, url, dateTime, extra)
//
// A table declares any of them, in any order, by name (case-insensitive):
// BIGINT (any integer type) for ids, prices and category, STRING for text,
// TIMESTAMP(3) for dateTime and expires. Declare the watermark as Nexmark
// does: WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND (event
// time only increases, so any delay works).
//
// Without 'nexmark.table', a table with an event_type column is Nexmark's
// own DDL (nexmark-flink's ddl_gen.sql): every event, event_type 0 for a
// person, 1 for an auction, 2 for a bid, the event in the ROW column of its
// kind (person, auction, bid; fields as the flat columns above), the other
// two NULL (all.go). Nexmark's views (SELECT bid.auction, ... FROM datagen
// WHERE event_type = 2) then read as written.
//
// # Differences from the reference
//
//   - 'next-event.rate', 'rate.shape' and 'rate.period' are accepted but,
//     as in the reference's GeneratorConfig, the rate stays at
//     'first-event.rate'.
//   - The reference adds the first person id to a bid's bidder twice
//     (bidders start at 2000); here bidders are people ids, as the comment
//     there intends.
//   - The tables the reference builds from an unseeded generator (the 1 MiB
//     padding string, the 10,000 channel URLs) are built from a fixed seed.
//   - Random integers use SplitMix64 and Lemire's reduction, not Java's
//     SplittableRandom: the distributions are the reference's, the values
//     are not.
//
// # Cost
//
// Rows come in batches of up to 1024 with one allocation for the batch's
// values; a person's email and credit card share one string allocation, an
// auction's name and description another; bids, channels, urls and 'extra'
// (a slice of a shared string) allocate nothing. BenchmarkGenerate measures
// it.
//
// A source resumes from a checkpoint (connector.Positioner): its position
// is the next event id, and every event is a function of its id, so a
// resumed source generates exactly the events of a clean run.
package nexmark
