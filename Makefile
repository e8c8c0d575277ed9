# Tern: one entry point for building, running, testing and benchmarking.
# Every target installs what is missing first, so a fresh machine needs nothing else
# (the .NET targets need the .NET 10 SDK present; install-deps.sh says how to get it).
# `make` alone lists the targets: each one's `## ` comment is its line in that list.

BUILD_TYPE ?= Release
BUILD_DIR  ?= build/release
TERND_ARGS ?=
FUZZ_SECONDS ?= 30

.DEFAULT_GOAL := help
.PHONY: help all deps deps-dotnet build build-server build-dotnet run test test-server \
        test-compat test-dotnet test-asan test-tsan fuzz test-under-load bench-server bench-full-eviction bench-memory bench-collections bench-collections-instructions bench-instructions \
        bench-executor bench-durability bench-warmup bench-subdoc bench-lookup bench-metrics bench-seeds bench-sdk bench-sdk-alloc bench-sdk-tls-pairs bench-tls bench-scan bench-export bench-transactions bench-transactions-alloc bench-scan-alloc bench-scan-tern bench-scan-create clean

help: ## list the targets (what `make` alone does)
	@echo "usage: make TARGET [BUILD_DIR=build/release] [TERND_ARGS=\"--port 11211\"]"
	@awk 'BEGIN { FS = ":[^#]*## " } /^[a-z-]+:.*## / { printf "  %-20s %s\n", $$1, $$2 }' \
	  $(MAKEFILE_LIST)

all: build ## the same as build

deps: ## install the system packages the server needs (apt, as root or with sudo)
	@bash scripts/install-deps.sh

deps-dotnet: ## deps, then check that the .NET 10 SDK is present
	@bash scripts/install-deps.sh --dotnet

build: build-server build-dotnet ## build everything: ternd, its tests and benchmarks, the .NET solution

build-server: deps ## build ternd, the server's tests and benchmarks
	@bash scripts/build-server.sh $(BUILD_DIR) $(BUILD_TYPE)

build-dotnet: deps-dotnet ## build the .NET solution (SDK, CLI, tests, benchmarks)
	@if [ -f dotnet/Tern.sln ]; then dotnet build dotnet/Tern.sln -c Release -nologo -v q; fi

# The second line execs ternd, so that make's child is ternd itself: the SIGTERM that make
# passes on to its child when it gets one then stops ternd.
run: deps ## build ternd alone and run it with server/config/dev.toml; TERND_ARGS passes flags
	@exec bash scripts/run.sh $(BUILD_DIR) $(BUILD_TYPE) $(TERND_ARGS)

test: deps-dotnet ## every test: the server's, memccapable and the Couchbase Node.js SDK against ternd, the .NET SDK's
	@bash scripts/test.sh

test-server: deps ## the server's unit and end-to-end tests
	@bash scripts/test-server.sh $(BUILD_DIR) $(BUILD_TYPE)

test-compat: deps ## the official Couchbase Node.js SDK (npm couchbase) against ternd, one node and three
	@bash scripts/build-server.sh $(BUILD_DIR) $(BUILD_TYPE) "" ternd hold_fsync
	@bash scripts/test-compat.sh $(BUILD_DIR)/server/ternd

test-dotnet: deps-dotnet ## the .NET SDK's tests, against real memcached and ternd
	@bash scripts/test-dotnet.sh

test-asan: deps ## the server's tests under AddressSanitizer + UndefinedBehaviorSanitizer
	@bash scripts/test-server.sh build/asan RelWithDebInfo address

test-tsan: deps ## the executor's and the items' tests under ThreadSanitizer
	@bash scripts/test-server.sh build/tsan RelWithDebInfo thread

fuzz: deps ## every libFuzzer target under ASan+UBSan for FUZZ_SECONDS (30) each; FUZZ_MERGE=1 keeps new coverage in testdata/fuzz
	@FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh $(FUZZ_TARGETS)

test-under-load: deps-dotnet ## make test three times in a row beside two CPU-burning processes (RUNS=, BURNERS=)
	@bash scripts/test-under-load.sh

bench-server: deps ## ternd against memcached 1.6: same load generator, same run; syscalls per op; BASE=<rev> also runs that commit's ternd
	@bash scripts/bench-server.sh

bench-collections: deps ## ternd: logged-in clients on a collection against anonymous classic clients, same process
	@bash scripts/bench-collections.sh $(BUILD_DIR)

bench-collections-instructions: deps ## the same two clients' instructions per request under callgrind
	@bash scripts/bench-collections-instructions.sh $(BUILD_DIR)

bench-instructions: deps ## ternd's instructions per request under callgrind; BASE=<rev> also measures that commit
	@bash scripts/bench-instructions.sh $(BASE)

bench-executor: deps ## the executor pool: async snooze against snoozeAndWait
	@bash scripts/bench-executor.sh

bench-durability: deps ## durable writes: each level through ternd, group commit against one fsync per write, the timeout task's async snooze against snoozeAndWait
	@bash scripts/bench-durability.sh

bench-warmup: deps ## warmup: load 1M items, restart cleanly, time until warm (items/s); EVICTION=full, QUOTA_MB=; BASE=<rev> also measures that commit
	@bash scripts/bench-warmup.sh $(BASE)

bench-full-eviction: deps ## full eviction: 1M new keys into a bucket that has evicted; BASE=<rev> also measures that commit
	@bash scripts/bench-full-eviction.sh $(BASE)

bench-memory: deps ## RSS per item: 1M items of 32 B, 256 B and 4 KiB values in ternd and memcached, same run; BASE=<rev> also measures that commit
	@bash scripts/bench-memory.sh $(BASE)

bench-subdoc: deps ## sub-document lookup and upsert: splicing (simdjson On-Demand) against a rapidjson DOM
	@bash scripts/bench-subdoc.sh

bench-lookup: deps ## a GET's lookup in the engine's table, in and out of the cache, with and without prefetching ahead; BASE=<rev> also measures that commit
	@bash scripts/bench-lookup.sh $(BASE)

bench-scan-create: deps ## a range-scan create in memory: one vbucket's shard against the whole-bucket pass it took before (same run)
	@bash scripts/bench-scan-create.sh

bench-metrics: deps ## GET /metrics: one scrape of 10 buckets of 10 collections, and what the metrics add per request
	@bash scripts/bench-metrics.sh

bench-seeds: deps-dotnet ## the SDK's hot-path changes against the old ways (BenchmarkDotNet)
	@bash scripts/bench-seeds.sh

bench-sdk: deps-dotnet ## Tern.Client and the Couchbase Node.js SDK end to end: ternd (couchbase://, memcached://) and memcached
	@bash scripts/bench-sdk.sh

bench-sdk-tls-pairs: deps-dotnet ## Tern.Client over couchbases:// against couchbase://, interleaved pairs, median ratio (PERF=1: client CPU)
	@bash scripts/bench-sdk-tls-pairs.sh

bench-sdk-alloc: deps-dotnet ## what a Get on app.users over couchbase:// allocates, against memcached:// (BenchmarkDotNet)
	@bash scripts/bench-sdk-alloc.sh

bench-scan: deps ## the Node.js SDK reading 1M documents: a range scan, an ids-only scan and pipelined gets, same run
	@bash scripts/bench-scan.sh

bench-scan-tern: deps-dotnet ## Tern.Client reading 1M documents: pipelined gets, then a range scan, same run (tern bench --scan)
	@bash scripts/bench-scan-tern.sh

bench-scan-alloc: deps-dotnet ## what Tern.Client allocates per scanned item: a 50-item continue frame parsed (BenchmarkDotNet)
	@BENCH_GROUP=Scan TABLES=ScanFrame bash scripts/bench-seeds.sh

bench-export: deps-dotnet ## tern export and tern import: 1M JSON documents out of ternd and into a fresh bucket, rates and RSS
	@bash scripts/bench-export.sh

bench-transactions: deps-dotnet ## transfer transactions (two replaces), the Node.js SDK then Tern.Client on one ternd: tx/s, p50, p99 at 1 and 16 in flight
	@bash scripts/bench-transactions.sh

bench-transactions-alloc: deps-dotnet ## what a transfer transaction allocates in Tern.Client, against the same gets and replaces without one (BenchmarkDotNet)
	@bash scripts/bench-transactions-alloc.sh

bench-tls: deps ## ternd over TLS against plain text: kv_load on both ports of one ternd, same run; CPU per op; handshake time
	@bash scripts/bench-tls.sh $(BUILD_DIR)

clean: ## remove every build directory (build/)
	rm -rf build
