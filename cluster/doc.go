// Package cluster is the node-to-node transport of a streamdb cluster: one
// listener per node on its cluster address, which carries gRPC (every
// service between nodes: joining, catalog commands, barriers, exchange
// streams, remote reads) and, told apart by their first byte, the raw
// connections of hashicorp/raft's network transport. gRPC runs without
// protobuf: messages are Go values encoded by a codec of our own (binary
// where they say how, JSON otherwise), so no generated code is needed.
// With --cluster-tls-* every connection runs mutual TLS (tls.go). Every call
// carries the protocol version; a node of another version is
// refused with an error that says so.
//
// The package knows nothing of what the services do: meta, the
// controller and the dataflow runtime register theirs on a Server and call
// each other's through a Client.
package cluster
