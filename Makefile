# SPDX-License-Identifier: BSD-3-Clause
# Thin wrapper over meson, in the style of DPDK-world projects:
#   make demo   install what is missing, build, run the main demo
#   make test   install what is missing, build, run the whole test suite
#   make bench  the benchmarks of doc/performance.md (about 6 minutes)
#   make deb    Debian packages rxd, librxd0, librxd-dev in build-deb/
#               (debhelper; lintian must report no error)
#   make test-lab  the whole NIC lab matrix: rxd in a QEMU guest on four
#               emulated PCI NICs against Soft-RoCE (tests/interop/nic-interop.sh)
#   make fuzz   libFuzzer on the frame parser, the CM MAD codec and the
#               configuration, FUZZ_SECONDS each (default 60; build-fuzz/)
# SANITIZE=address,undefined builds into build-asan and runs the suite there.

BUILD ?= build
SANITIZE ?=
MESON_OPTS ?=
TEST_OPTS ?=

ifneq ($(SANITIZE),)
BUILD := build-asan
MESON_OPTS += -Db_sanitize=$(SANITIZE) -Db_lundef=false
endif

.PHONY: all deps build test test-lab demo bench fuzz deb clean

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) -Dwerror=true $(MESON_OPTS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

test: build
	./scripts/run-tests.sh $(BUILD) $(TEST_OPTS)

test-lab: build
	RXD_NIC_MATRIX=full ./tests/interop/nic-interop.sh $(BUILD)

demo: build
	./apps/demo/run-demo.sh $(BUILD)

bench: build
	./tests/bench/run-bench.sh $(BUILD)

deb: deps
	./scripts/make-deb.sh build-deb

fuzz: deps
	./tests/fuzz/run-fuzz.sh $(FUZZ_SECONDS)

clean:
	rm -rf build build-asan build-fuzz build-deb
