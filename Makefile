# Thin wrapper over CMake: the two set-up commands of the README, and a few conveniences.
#   make run    install what is missing, build, run the main job (writes out/)
#   make test   install what is missing, build both executables, run every test
BUILD ?= build
JOBS  ?= 2
CMAKE_FLAGS ?=

.PHONY: all deps configure build run test bench clean validate-local

all: build

deps:
	scripts/install-deps

configure: deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	scripts/run-main-job $(BUILD) out

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 600

# Emulated cluster on this machine (root): measure, calibrate, predict, run, validate
# (docs/validation.md). Writes out/validate-local/.
validate-local: build
	scripts/validate-local --build $(BUILD) --out out/validate-local

clean:
	rm -rf $(BUILD) out
