// Package rescalebench runs `streamdb bench rescale`: it measures what an
// online rescale (ALTER MATERIALIZED VIEW ... SET PARALLELISM) costs the
// writers and readers of a view with large state. It starts a server,
// loads a table and builds an aggregating view over it until the view's
// state reaches a size, runs paced writers and a reader polling the view,
// then rescales the view once per strategy (fluid, all at once, restart)
// and compares the latency, output gaps and throughput before and during
// each rescale.
package rescalebench
