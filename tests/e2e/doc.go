// Package e2e holds end-to-end tests that drive streamdb the way users do:
// pgx in its default and simple-protocol modes, the psql binary, and a
// server process killed with SIGKILL and restarted.
package e2e
