# Kiln's front door. `make run` and `make test` work on a fresh machine: they install what is
# missing (scripts/bootstrap.sh), build, and run.
.PHONY: all bootstrap build build-asan build-fuzz run test bench docs format clean

all: build

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	cmake --preset release
	cmake --build --preset release

build-asan: bootstrap
	cmake --preset asan
	cmake --build --preset asan

build-fuzz: bootstrap
	cmake --preset fuzz
	cmake --build --preset fuzz

# The bundled demo: a C99 program classifies the held-out 8x8 digits with the CNN in
# examples/digits through the C ABI and prints accuracy and mean latency.
run: build
	./build/release/examples/c/digits examples/digits

# Kiln and ONNX Runtime side by side on the benchmark zoo (bench/): exports the zoo with torch
# (cached in bench/models), installs onnxruntime-node from npm into bench/ort/node_modules, runs
# both alternately at 1 and 2 threads and writes the table to bench/RESULTS.md. Not part of
# `make test`: it takes about half an hour.
bench: build
	@scripts/bootstrap.sh bench
	/usr/bin/python3 bench/export_zoo.py bench/models
	cd bench/ort && npm ci --ignore-scripts --no-audit --no-fund
	/usr/bin/python3 bench/side_by_side.py --results bench/RESULTS.md

docs: bootstrap
	doxygen docs/Doxyfile

# Every test: the release build (unit, contract, link checks, examples, models, Doxygen), the
# whole suite again under ASan+LSan+UBSan, and the loader fuzzer (Clang) for a short while. The
# last line is the combined count.
test: build build-asan build-fuzz
	@scripts/run_tests.sh release asan fuzz

format:
	git ls-files '*.h' '*.cc' '*.c' | xargs clang-format -i

clean:
	rm -rf build
