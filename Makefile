# The two commands of the README. Each installs what it needs (apt, and the
# PyTorch wheel into .venv), builds incrementally, and does its job.
#   TORCH=pip     libtorch 2.13 from the PyTorch wheel (the default), in $(BUILD)
#   TORCH=debian  Debian's libtorch 1.13, in build-debian
# `make test` with the default also builds the runtime against the other
# libtorch (TORCH_COMPAT, in $(COMPAT_BUILD)) and runs its suite there: every
# runtime test runs on both libtorch versions. TORCH_COMPAT= skips that.
TORCH ?= pip
BUILD ?= $(if $(filter debian,$(TORCH)),build-debian,build)
TORCH_COMPAT ?= $(if $(filter pip,$(TORCH)),debian,)
COMPAT_BUILD ?= build-$(TORCH_COMPAT)-runtime
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: demo test build configure build-compat configure-compat bootstrap lint clean

demo:
	@MESHGUARD_TORCH=$(TORCH) bash scripts/demo.sh $(BUILD)

test: build $(if $(TORCH_COMPAT),build-compat)
	@python3 scripts/run-tests.py $(BUILD) $(if $(TORCH_COMPAT),--runtime-only $(COMPAT_BUILD))

bootstrap:
	@bash scripts/bootstrap.sh --torch=$(TORCH)

configure:
	@bash scripts/configure.sh $(BUILD) $(TORCH) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: configure
	@python3 scripts/build.py $(BUILD) -j $(JOBS)

# The runtime alone (no clang tools, no benchmarks) on the second libtorch.
configure-compat:
	@bash scripts/configure.sh $(COMPAT_BUILD) $(TORCH_COMPAT) -DCMAKE_BUILD_TYPE=Release \
	  -DMESHGUARD_BUILD_CLANG_TOOLS=OFF -DMESHGUARD_BUILD_BENCHMARKS=OFF $(CMAKE_ARGS)

build-compat: configure-compat
	@python3 scripts/build.py $(COMPAT_BUILD) -j $(JOBS)

# clang-format, then clang-tidy over every source whose key
# scripts/lint-manifest.txt lacks; rewrites the manifest (commit it).
# `make test` runs the same without writing it (docs/contributing.md#lint).
lint: build
	@bash scripts/lint.sh $(BUILD)

# dist/meshguard-<version>-<tags>.whl from the build (packaged, not rebuilt:
# setup.py runs its install rules; auditwheel bundles what a bare system
# lacks). `pip install dist/meshguard-*.whl` next to torch (docs/tools/README.md).
.PHONY: wheel
wheel: build
	@bash scripts/build-wheel.sh $(BUILD) dist

clean:
	rm -rf $(BUILD) $(if $(TORCH_COMPAT),$(COMPAT_BUILD))

# The conformance harness in full: every overload of the rule table against
# PyTorch 2.13's DTensor on 2 and 4 Gloo ranks (meshes 2, 4, 2x2), then the
# training side by side (TP, FSDP, FSDP x TP); rewrites
# docs/runtime/conformance.md and docs/runtime/training-conformance.md.
# make test runs a quick sample of the first and all of the second.
.PHONY: conformance
conformance: build
	@$(CURDIR)/.venv/bin/python test/conformance/run.py --full \
	  --conformance $(BUILD)/bin/meshguard_conformance --report docs/runtime/conformance.md
	@$(CURDIR)/.venv/bin/python test/conformance/training/run.py \
	  --training $(BUILD)/bin/meshguard_training --report docs/runtime/training-conformance.md

.PHONY: validate
validate: build
	@$(CURDIR)/.venv/bin/python test/conformance/validate.py --conformance $(BUILD)/bin/meshguard_conformance --report docs/runtime/validation.md

# meshguard against PyTorch's DTensor on this machine, interleaved: per-op
# overhead, training steps, debug modes (docs/runtime/benchmarks.md).
.PHONY: side-by-side
side-by-side: build
	@$(CURDIR)/.venv/bin/python bench/side_by_side/run.py --bin $(BUILD)/bin --report $(BUILD)/side-by-side.md

# The NCCL path compiled and linked against PyTorch's CUDA wheel (2.14.1, in
# .venv-cuda, about 5.5 GB; build-cuda), nvcc from /usr/local/cuda; no GPU
# needed, nothing run. Not part of `test`: tens of minutes on 2 cores
# (docs/runtime/gpu.md). Ends with "cuda-compile-check: PASS|FAIL ...".
.PHONY: cuda-check
cuda-check:
	@JOBS=$(JOBS) bash scripts/cuda-compile-check.sh
