# streamdb: a newcomer needs two commands, `make run` and `make test`.
GO       ?= go
BIN      := bin/streamdb
LISTEN   ?= 127.0.0.1:4566
DATA_DIR ?= ./streamdb-data
CORPUS   ?= ../shared/sqllogictest

.PHONY: build run test vet bench bench-nexmark bench-rescale sqllogic-corpus difftest clean

build:
	$(GO) build -o $(BIN) ./cmd/streamdb

## run: build, then start the embedded single-node server on $(LISTEN).
run: build
	./$(BIN) start --listen $(LISTEN) --data-dir $(DATA_DIR)

## test: vet, unit tests, the psql/pgx end-to-end tests and the project's sqllogictest files.
test: vet build
	$(GO) test -count=1 -timeout 15m ./...
	./$(BIN) sqllogic --match-errors tests/sqllogic/testdata

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

## sqllogic-corpus: pass counts on the shared external corpora (not a gate).
sqllogic-corpus: build
	-./$(BIN) sqllogic $(CORPUS)/sqlite/test/select1.test $(CORPUS)/sqlite/test/select2.test $(CORPUS)/sqlite/test/select3.test $(CORPUS)/sqlite/test/evidence

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
