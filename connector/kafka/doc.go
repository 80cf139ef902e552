// Package kafka reads a Kafka topic as a streamdb source: one split per
// partition, whose offset is Kafka's next offset to read, kept in
// streamdb's checkpoints (no consumer group). Each actor reads its
// partitions with one franz-go client assigned to them directly; a
// background goroutine fetches into a buffer bounded in bytes, and records
// are decoded (ENCODE JSON or CSV) as the source reads them. A record that
// does not decode is skipped, counted and logged at most every few
// seconds: it never stops the source.
package kafka
