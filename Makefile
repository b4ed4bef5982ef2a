# The two commands of the README. Each installs what it needs (apt), builds
# incrementally into $(BUILD), and does its job.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: demo test build bootstrap configure lint clean

demo:
	@bash scripts/demo.sh $(BUILD)

test: build
	@python3 scripts/run-tests.py $(BUILD)

bootstrap:
	@bash scripts/bootstrap.sh

configure: bootstrap
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

lint: build
	@bash scripts/lint.sh $(BUILD)

clean:
	rm -rf $(BUILD)
