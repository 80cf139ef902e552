# streamdb: a newcomer needs two commands, `make run` and `make test`.
GO       ?= go
BIN      := bin/streamdb
LISTEN   ?= 127.0.0.1:4566
DATA_DIR ?= ./streamdb-data
CORPUS   ?= ../shared/sqllogictest

.PHONY: build run cluster test vet bench bench-nexmark bench-rescale sqllogic-known difftest clean

build:
	$(GO) build -o $(BIN) ./cmd/streamdb

## run: build, then start the embedded single-node server on $(LISTEN).
run: build
	./$(BIN) start --listen $(LISTEN) --data-dir $(DATA_DIR)

## cluster: build, then run a three-node cluster on loopback: pgwire on
## 4566-4568, cluster addresses 5566-5568, data in $(CLUSTER_DIR); Ctrl-C
## stops every node.
CLUSTER_DIR ?= ./streamdb-cluster
cluster: build
	@trap 'kill $$(jobs -p) 2>/dev/null; wait' INT TERM; \
	./$(BIN) start --node-id n1 --listen 127.0.0.1:4566 --cluster-addr 127.0.0.1:5566 --data-dir $(CLUSTER_DIR)/n1 & \
	sleep 1; \
	./$(BIN) start --node-id n2 --listen 127.0.0.1:4567 --cluster-addr 127.0.0.1:5567 --data-dir $(CLUSTER_DIR)/n2 --join 127.0.0.1:5566 & \
	./$(BIN) start --node-id n3 --listen 127.0.0.1:4568 --cluster-addr 127.0.0.1:5568 --data-dir $(CLUSTER_DIR)/n3 --join 127.0.0.1:5566 & \
	wait

## test: vet, unit tests, the psql/pgx end-to-end tests, the project's
## sqllogictest files, and the shared corpora against their known failures.
KNOWN := tests/sqllogic/known_failures.txt
CORPORA := $(CORPUS)/sqlite/test $(CORPUS)/risingwave/e2e_test
test: vet build
	$(GO) test -count=1 -timeout 15m ./...
	./$(BIN) sqllogic --match-errors tests/sqllogic/testdata
	./$(BIN) sqllogic --known $(KNOWN) $(CORPORA)

vet:
	@test -z "$$(gofmt -l .)" || (echo "gofmt needed:"; gofmt -l .; exit 1)
	$(GO) vet ./...

## bench: Go benchmarks (figures compared against a baseline in the same run).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## bench-nexmark: Nexmark q0-q8 on 1M events at parallelism 1 and 2, then
## the PostgreSQL comparison (when PostgreSQL's server is installed).
NEXMARK_EVENTS ?= 1000000
NEXMARK_QUERIES ?= q0,q1,q2,q3,q4,q5,q7,q8
NEXMARK_PARALLELISM ?= 1,2
bench-nexmark: build
	./$(BIN) bench nexmark --events $(NEXMARK_EVENTS) --queries $(NEXMARK_QUERIES) --parallelism $(NEXMARK_PARALLELISM) --json nexmark.json

## bench-rescale: a view with 1 GiB of state rescaled 2→3→2→3 (fluid,
## all_at_once, restart) under writers; latency, gaps and dips per strategy.
RESCALE_STATE_MB ?= 1024
bench-rescale: build
	./$(BIN) bench rescale --state-mb $(RESCALE_STATE_MB) --json rescale.json

## sqllogic-known: run the shared corpora and rewrite the known-failure
## list: records that pass leave it, new failures wait under a triage header.
sqllogic-known: build
	./$(BIN) sqllogic --known $(KNOWN) --update-known $(CORPORA)

## difftest: the differential tester against PostgreSQL 15 for longer
## (`make test` runs its fixed seeds): seeds from DIFFTEST_SEEDS' first upward
## for DIFFTEST_DURATION (0: exactly the seeds DIFFTEST_SEEDS lists, e.g.
## 1-20,35), streamdb as a child process restarted after a crash; the figures
## and findings are printed and written to difftest-report.txt.
DIFFTEST_SEEDS ?= 1000
DIFFTEST_DURATION ?= 10m
difftest: build
	$(GO) test -count=1 -timeout 0 -run 'TestAgainstPostgres/Differential' -v ./tests/difftest/ \
		-difftest.seeds=$(DIFFTEST_SEEDS) -difftest.duration=$(DIFFTEST_DURATION) \
		-difftest.bin=$(abspath $(BIN)) -difftest.report=$(abspath difftest-report.txt)

clean:
	rm -rf bin
