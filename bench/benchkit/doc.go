// Package benchkit holds what streamdb's benchmarks share: a `streamdb
// start` child process on a fresh data directory, a progress display, and
// the CPU time and peak memory of a process.
package benchkit
