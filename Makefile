# Tern: one entry point for building, running, testing and benchmarking.
# Every target installs what is missing first, so a fresh machine needs nothing else.

BUILD_TYPE ?= Release
BUILD_DIR  ?= build/release
JOBS       ?= $(shell nproc)
TERND_ARGS ?=

.PHONY: all deps build build-server build-dotnet run test test-server test-dotnet \
        test-asan test-tsan bench-server bench-instructions bench-executor bench-seeds bench-sdk clean

all: build

deps:
	@bash scripts/install-deps.sh

build: build-server build-dotnet

build-server: deps
	@bash scripts/build-server.sh $(BUILD_DIR) $(BUILD_TYPE)

build-dotnet: deps
	@if [ -f dotnet/Tern.sln ]; then dotnet build dotnet/Tern.sln -c Release -nologo -v q; fi

# Starts ternd in the foreground with working defaults (Ctrl-C stops it).
run: build
	@$(BUILD_DIR)/server/ternd $(TERND_ARGS)

# Every test: server unit and end-to-end tests, memccapable, and the .NET SDK's tests.
test: deps
	@bash scripts/test.sh

test-server: deps
	@bash scripts/test-server.sh $(BUILD_DIR) $(BUILD_TYPE)

test-dotnet: build-server
	@bash scripts/test-dotnet.sh

# The server's tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan: deps
	@bash scripts/test-server.sh build/asan RelWithDebInfo address

# The executor's tests under ThreadSanitizer.
test-tsan: deps
	@bash scripts/test-server.sh build/tsan RelWithDebInfo thread

bench-server: deps
	@bash scripts/bench-server.sh

# Instructions per request under callgrind; BASE=<rev> also measures that commit.
bench-instructions: deps
	@bash scripts/bench-instructions.sh $(BASE)

bench-executor: deps
	@bash scripts/bench-executor.sh

bench-seeds: deps
	@bash scripts/bench-seeds.sh

bench-sdk: deps
	@bash scripts/bench-sdk.sh

clean:
	rm -rf build
