// Package nexmarkbench runs the Nexmark benchmark against streamdb: the
// queries in RisingWave's SQL, the sources they read, and (in later files)
// the runner behind `streamdb bench nexmark`.
package nexmarkbench
