# Kiln's front door. `make run` and `make test` work on a fresh machine: they install what is
# missing (scripts/bootstrap.sh), build, and run.
.PHONY: all bootstrap bootstrap-run build build-asan build-fuzz build-tsan run test bench bench-quant sweep difftest docs format clean \
        soak fuzz-long

all: build

bootstrap:
	@scripts/bootstrap.sh

bootstrap-run:
	@scripts/bootstrap.sh run

# Everything: the library, the CLI, the examples, the Python package and the tests.
build: bootstrap
	cmake --preset release -DKILN_BUILD_TESTS=ON -DKILN_BUILD_PYTHON=ON
	cmake --build --preset release

build-asan: bootstrap
	cmake --preset asan
	cmake --build --preset asan

build-fuzz: bootstrap
	cmake --preset fuzz
	cmake --build --preset fuzz

# ThreadSanitizer (Clang): the library and what runs it from many threads (the tsan presets).
build-tsan: bootstrap
	cmake --preset tsan
	cmake --build --preset tsan

# The bundled demo: a C99 program classifies the held-out 8x8 digits with the CNN in
# examples/digits through the C ABI and prints accuracy and mean latency.
# It needs only what the demo needs (scripts/bootstrap.sh run): a tree not configured yet is
# configured without the tests and the Python package, which `make test` (make build) turns on.
run: bootstrap-run
	@test -f build/release/CMakeCache.txt || \
	  cmake --preset release -DKILN_BUILD_TESTS=OFF -DKILN_BUILD_PYTHON=OFF
	cmake --build --preset release
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

# The quantized zoo (issue 28): exports the zoo's CNNs, BERT and GPT (bench/export_zoo.py, cached),
# quantizes them with bench/quantize.py into bench/models/<name>_int8 (the CNNs static QDQ,
# calibrated in Kiln on seeded structured images; BERT and GPT dynamic), and times ONNX Runtime
# and Kiln on both, fp32 and int8, at 1 and 2 threads, with the int8 models' accuracy against
# fp32; gpt_decoder_q4: GPT with 4-bit weights (com.microsoft MatMulNBits) in tokens/s, prefill
# and a one-token forward (export_zoo.py's gpt_decoder_1tok), against fp32 and int8; writes the
# section "Quantized zoo (issue 28)" of bench/RESULTS.md. Not part of `make test`.
QUANT_ZOO = resnet50 mobilenet_v2 squeezenet1_1 efficientnet_b0 bert_base gpt_decoder \
            gpt_decoder_q4
QUANT_EXPORT = $(sort $(filter-out %_q4,$(QUANT_ZOO)) \
               $(if $(filter gpt_decoder_q4,$(QUANT_ZOO)),gpt_decoder gpt_decoder_1tok))
bench-quant: build
	@scripts/bootstrap.sh bench
	/usr/bin/python3 bench/export_zoo.py bench/models $(addprefix --only ,$(QUANT_EXPORT))
	/usr/bin/python3 bench/quantize.py zoo bench/models $(addprefix --only ,$(QUANT_ZOO))
	cd bench/ort && npm ci --ignore-scripts --no-audit --no-fund
	/usr/bin/python3 bench/quant_side_by_side.py --results bench/RESULTS.md \
	  $(addprefix --only ,$(QUANT_ZOO)) --rounds 2

# The soak (issue 32, tests/soak): the digits CNN, a light zoo CNN, a tiny transformer (dynamic
# sequence length) and a Loop/If model from 8 threads for 10 minutes, sessions created and
# released along the way and long runs terminated; prints runs per model, errors, sessions, the
# RSS at start, middle and end and the halves' medians of the RSS and of the heap in use, and fails
# unless there were no errors and both stayed flat. Every sample (each 250 ms) goes to
# build/release/soak.csv. Not part of `make test` (which runs a 10-second smoke of it).
soak: build
	./build/release/tests/soak/kiln_soak --seconds 600 --threads 8 --log build/release/soak.csv

# The model sweep (bench/sweep, issue 27): every torchvision model torch exports and the streaming
# models, checked in Kiln at levels 0-3 against torch (bench/sweep/CHECK.md; a failure does not
# stop the table), then side by side with ONNX Runtime at 1 and 2 threads (bench/SWEEP.md). Hours
# (over ten on a 2-core machine): `make sweep SWEEP_RESUME=1` keeps SWEEP.md's rows and measures
# only the models it lacks, writing the table after each model, so it can be run in sittings.
sweep: build
	@scripts/bootstrap.sh bench
	cd bench/ort && npm ci --ignore-scripts --no-audit --no-fund
	/usr/bin/python3 bench/sweep/export_sweep.py bench/sweep/models
	-/usr/bin/python3 bench/sweep/check_sweep.py bench/sweep/models --report bench/sweep/CHECK.md
	/usr/bin/python3 bench/side_by_side.py --models bench/sweep/models --results bench/SWEEP.md \
	  --rounds 2 $(if $(SWEEP_RESUME),--resume)

# The differential test (bench/difftest): random small models, one operator or fusion pattern
# each (attributes, shapes and types drawn from seeds), run by Kiln at optimization levels 0 and
# 3 and by ONNX Runtime, outputs compared; where ONNX Runtime departs from the ONNX formulas a
# numpy reference decides. DIFFTEST_CASES models per generator (a few minutes at 200),
# DIFFTEST_SEED the first seed; the failures' folders are kept and named; once with Kiln on one
# thread, once on two, once on models ONNX Runtime saved optimized at its level all (its
# channels-last 8-bit ops, the NCHWc layout of its float convolutions). Then the model tests' zoo
# as ONNX Runtime saves it optimized (its com.microsoft fusions; at level all its NCHWc layout),
# run in Kiln (ort_saved.py).
DIFFTEST_CASES ?= 200
DIFFTEST_SEED ?= 0
difftest: build
	@scripts/bootstrap.sh bench
	cd bench/ort && npm ci --ignore-scripts --no-audit --no-fund
	/usr/bin/python3 bench/difftest/difftest.py --cases $(DIFFTEST_CASES) --seed $(DIFFTEST_SEED)
	/usr/bin/python3 bench/difftest/difftest.py --cases $(DIFFTEST_CASES) --seed $(DIFFTEST_SEED) \
	  --threads 2
	/usr/bin/python3 bench/difftest/difftest.py --cases $(DIFFTEST_CASES) --seed $(DIFFTEST_SEED) \
	  --ort-save all
	tests/models/export_cached.sh build/release/tests/models/op13 13
	/usr/bin/python3 bench/difftest/ort_saved.py build/release/tests/models/op13/*/

# The manual as HTML in build/docs/html (open build/docs/html/index.html): the pages in docs/manual
# and the API reference from the public headers, Doxygen's warnings as errors, then every link in
# it checked (scripts/check_doc_links.py). The CMake target kiln_docs builds the same into
# <build dir>/docs/html.
docs: bootstrap
	rm -rf build/docs/html
	doxygen docs/Doxyfile
	/usr/bin/python3 scripts/check_doc_links.py build/docs/html

# Installs the release build (build it first: make build) into PREFIX: include/kiln, libkiln.so.1,
# libkiln.a, the CMake package (find_package(Kiln)), kiln.pc, bin/kiln, the Python package and the
# docs (cmake/KilnInstall.cmake). DESTDIR is honoured. `make deb`: the Debian packages libkiln1,
# libkiln-dev (with the manual), kiln-tools and python3-kiln in build/release/packages
# (cmake/KilnPackaging.cmake).
.PHONY: install deb
PREFIX ?= /usr/local
install:
	@test -f build/release/cmake_install.cmake || { echo "make install: run make build first" >&2; exit 1; }
	DESTDIR="$(DESTDIR)" cmake --install build/release --prefix "$(PREFIX)"

deb: build
	cmake --build build/release --target kiln_docs
	cpack --config build/release/CPackConfig.cmake

# Every test: the release build (unit, contract, link checks, examples, models, Doxygen), the
# whole suite again under ASan+LSan+UBSan with the two fuzzers for a short while (the asan preset
# builds them too), and the concurrency tests under ThreadSanitizer. The last line is the
# combined count.
test: build build-asan build-tsan
	@scripts/run_tests.sh release asan tsan

# Both fuzzers (the loader's and the run path's, tests/fuzz) at once for FUZZ_LONG_SECONDS each
# (default an hour), on corpora kept in build/fuzz/long: prints the executions of each and in
# total, and fails on any finding (the inputs are in build/fuzz/long/*.findings). Not part of
# `make test`, which runs each for 30 seconds.
FUZZ_LONG_SECONDS ?= 3600
fuzz-long: build-fuzz
	scripts/fuzz_long.sh $(FUZZ_LONG_SECONDS)

format:
	git ls-files '*.h' '*.cc' '*.c' | xargs clang-format -i

clean:
	rm -rf build
