// Package testkit starts what end-to-end tests run against: an in-process
// streamdb node and a throwaway PostgreSQL server. It is shared by the
// tests under tests/ so that there is one copy of each helper.
package testkit
