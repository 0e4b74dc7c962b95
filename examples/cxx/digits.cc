// The bundled demo through the header-only C++ wrapper (kiln/kiln_cxx_api.h): classifies the
// held-out 8x8 digits with the small CNN in examples/digits, first with Session::Run, which
// returns new values, then with an IoBinding over buffers made once (a steady-state run of a
// static-shape model then allocates nothing), and checks both against the accuracy recorded at
// training time. Errors come back as kiln::Exception.
//
//   digits_cxx DIR [TRACE.json]   (DIR holds digits.onnx, heldout.bin and expected.txt)
//
// With TRACE.json it also profiles ten runs and writes their Chrome trace there.
//
// Prints "digits_cxx: OK" and exits 0 when both ways get the recorded count right, 1 otherwise.
// The manual (docs/manual) shows the parts between the marker comments that name them.
#include <kiln/kiln_cxx_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

namespace {

constexpr size_t kPixels = 64;  // one 8x8 image
constexpr size_t kClasses = 10;

// heldout.bin: "KDIG", uint32 count N, N*64 float32 pixels, N uint8 labels (little-endian).
struct Heldout {
  std::vector<float> pixels;
  std::vector<uint8_t> labels;
};

bool ReadHeldout(const std::string& path, Heldout& h) {
  std::ifstream f(path, std::ios::binary);
  char magic[4] = {};
  uint32_t count = 0;
  if (!f.read(magic, 4) || std::memcmp(magic, "KDIG", 4) != 0 ||
      !f.read(reinterpret_cast<char*>(&count), sizeof count) || count == 0 || count > 100000) {
    return false;
  }
  h.pixels.resize(static_cast<size_t>(count) * kPixels);
  h.labels.resize(count);
  return static_cast<bool>(
      f.read(reinterpret_cast<char*>(h.pixels.data()),
             static_cast<std::streamsize>(h.pixels.size() * sizeof(float))) &&
      f.read(reinterpret_cast<char*>(h.labels.data()), static_cast<std::streamsize>(count)));
}

size_t ArgMax(const float* scores) {
  return static_cast<size_t>(std::max_element(scores, scores + kClasses) - scores);
}

struct Counts {
  size_t run = 0;      // right with Session::Run
  size_t binding = 0;  // right with the IO binding
  bool error_reported = false;
};

// Classifies every held-out digit both ways (the tensors wrap h.pixels: a tensor's data is
// writable, so they are not const). Throws kiln::Exception when a call fails.
Counts Classify(const std::string& dir, Heldout& h) {
  Counts counts;
  const size_t count = h.labels.size();
  // [session]
  kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "digits_cxx");
  kiln::SessionOptions options = kiln::SessionOptions::Create();
  options.SetIntraOpNumThreads(1);
  kiln::Session session = kiln::Session::Create(env, dir + "/digits.onnx", options);
  const kiln::TensorTypeAndShapeInfo input = session.input_tensor_info(0);
  std::cout << "input '" << session.input_name(0) << "' has " << input.rank()
            << " dimensions, the first named '" << input.symbolic_shape()[0] << "'\n";
  // [session]

  // [run]
  kiln::MemoryInfo cpu = kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);
  for (size_t i = 0; i < count; ++i) {
    std::vector<kiln::Value> inputs;  // a tensor over our pixels: not copied
    inputs.push_back(
        kiln::Value::CreateTensor(cpu, h.pixels.data() + i * kPixels, kPixels, {1, 1, 8, 8}));
    std::vector<kiln::Value> outputs = session.Run({"image"}, inputs, {"logits"});
    if (ArgMax(outputs[0].data<float>()) == h.labels[i]) ++counts.run;
  }  // the values release their handles here
  // [run]

  // [binding]
  std::vector<float> image(kPixels), logits(kClasses);  // made once, reused by every run
  kiln::IoBinding binding = session.CreateIoBinding();
  binding.BindInput("image",
                    kiln::Value::CreateTensor(cpu, image.data(), image.size(), {1, 1, 8, 8}));
  binding.BindOutput("logits", kiln::Value::CreateTensor(cpu, logits.data(), logits.size(),
                                                         {1, static_cast<int64_t>(kClasses)}));
  for (size_t i = 0; i < count; ++i) {
    std::copy_n(h.pixels.begin() + static_cast<std::ptrdiff_t>(i * kPixels), kPixels,
                image.begin());
    session.Run(kiln::RunOptions(), binding);  // writes `logits` in place
    if (ArgMax(logits.data()) == h.labels[i]) ++counts.binding;
  }
  // [binding]

  // [error]
  try {
    std::vector<float> wrong(kPixels);
    std::vector<kiln::Value> inputs;
    inputs.push_back(kiln::Value::CreateTensor(cpu, wrong.data(), wrong.size(), {1, 64}));
    session.Run({"image"}, inputs, {"logits"});
  } catch (const kiln::Exception& e) {
    // The message names the entry, the input and both shapes.
    std::cout << "expected error (code " << e.code() << "): " << e.what() << "\n";
    counts.error_reported = e.code() == KILN_INVALID_ARGUMENT;
  }
  // [error]
  return counts;
}

// Runs a few digits with profiling on and writes the Chrome trace to `trace_path`. Throws
// kiln::Exception when a call fails.
void Profile(const std::string& dir, Heldout& h, const std::string& trace_path) {
  // [profile]
  kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "digits_cxx");
  kiln::SessionOptions options = kiln::SessionOptions::Create();
  options.EnableProfiling(trace_path);  // the prefix of the file's name
  kiln::Session session = kiln::Session::Create(env, dir + "/digits.onnx", options);
  kiln::MemoryInfo cpu = kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);
  for (size_t i = 0; i < 10; ++i) {
    std::vector<kiln::Value> inputs;
    inputs.push_back(
        kiln::Value::CreateTensor(cpu, h.pixels.data() + i * kPixels, kPixels, {1, 1, 8, 8}));
    session.Run({"image"}, inputs, {"logits"});
  }
  // Every node of every run so far, in "<prefix>_<milliseconds since 1970>_<n>.json".
  const std::string written = session.EndProfiling();
  if (std::rename(written.c_str(), trace_path.c_str()) != 0) {
    throw kiln::Exception(KILN_FAIL, "cannot rename " + written + " to " + trace_path);
  }
  // [profile]
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "examples/digits";
  Heldout h;
  unsigned expected_correct = 0, expected_count = 0;
  std::ifstream expected(dir + "/expected.txt");
  std::string word;
  if (!ReadHeldout(dir + "/heldout.bin", h) ||
      !(expected >> word >> expected_correct >> expected_count) || word != "correct") {
    std::cerr << "digits_cxx: cannot read the held-out set in " << dir << "\n";
    return 1;
  }

  // [catch]
  Counts counts;
  try {
    counts = Classify(dir, h);
  } catch (const kiln::Exception& e) {
    std::cerr << "digits_cxx: " << e.what() << " (code " << e.code() << ")\n";
    return 1;
  }
  // [catch]

  std::cout << "digits_cxx: " << counts.run << " of " << h.labels.size() << " correct with Run, "
            << counts.binding << " with the IO binding (recorded at training: " << expected_correct
            << " of " << expected_count << ")\n";
  if (counts.run != expected_correct || counts.binding != expected_correct ||
      h.labels.size() != expected_count) {
    std::cerr << "digits_cxx: FAIL: the accuracy differs from the recorded one\n";
    return 1;
  }
  if (!counts.error_reported) {
    std::cerr << "digits_cxx: FAIL: a [1, 64] image was not refused with KILN_INVALID_ARGUMENT\n";
    return 1;
  }
  // The trace, when a file was named: one complete event ("ph":"X") per node run.
  if (argc > 2) {
    try {
      Profile(dir, h, argv[2]);
    } catch (const kiln::Exception& e) {
      std::cerr << "digits_cxx: profiling: " << e.what() << "\n";
      return 1;
    }
    std::ifstream trace(argv[2]);
    const std::string text((std::istreambuf_iterator<char>(trace)),
                           std::istreambuf_iterator<char>());
    size_t events = 0;
    for (size_t at = text.find("\"ph\":\"X\""); at != std::string::npos;
         at = text.find("\"ph\":\"X\"", at + 1)) {
      ++events;
    }
    std::cout << "digits_cxx: " << events << " node events in the trace " << argv[2] << "\n";
    if (events < 10) {
      std::cerr << "digits_cxx: FAIL: the trace holds fewer events than runs\n";
      return 1;
    }
  }
  std::cout << "digits_cxx: OK\n";
  return 0;
}
