# Kiln's front door. `make run` and `make test` work on a fresh machine: they install what is
# missing (scripts/bootstrap.sh), build, and run.
.PHONY: all bootstrap build build-asan run test docs format clean

all: build

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	cmake --preset release
	cmake --build --preset release

build-asan: bootstrap
	cmake --preset asan
	cmake --build --preset asan

# The bundled demo: a C99 program classifies the held-out 8x8 digits with the CNN in
# examples/digits through the C ABI and prints accuracy and mean latency.
run: build
	./build/release/examples/c/digits examples/digits

docs: bootstrap
	doxygen docs/Doxyfile

# Every test: the release build (unit, contract, link checks, examples, Doxygen) and the whole
# suite again under ASan+LSan+UBSan. The last line is the combined count.
test: build build-asan
	@scripts/run_tests.sh release asan

format:
	git ls-files '*.h' '*.cc' '*.c' | xargs clang-format -i

clean:
	rm -rf build
