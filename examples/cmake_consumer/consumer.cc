// A C++17 program built against an installed Kiln (examples/cmake_consumer) through the
// header-only wrapper kiln/kiln_cxx_api.h: classifies the held-out 8x8 digits with the bundled
// CNN in one batch and prints how many it got right.
//
//   kiln_consumer_cxx MODEL HELDOUT     (examples/digits/digits.onnx, examples/digits/heldout.bin)
//
// Prints "kiln_consumer_cxx (Kiln::kiln, Kiln <version>): C of N held-out digits correct".
#include <kiln/kiln_cxx_api.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Heldout {
  std::vector<float> pixels;  // count x 64
  std::vector<uint8_t> labels;
};

// heldout.bin: "KDIG", uint32 count N, N*64 float32 pixels, N uint8 labels (little-endian).
Heldout ReadHeldout(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint32_t count = 0;
  if (bytes.size() < 8 || std::memcmp(bytes.data(), "KDIG", 4) != 0) {
    throw std::runtime_error("cannot read " + path);
  }
  std::memcpy(&count, bytes.data() + 4, sizeof count);
  if (bytes.size() != 8 + static_cast<size_t>(count) * (64 * sizeof(float) + 1)) {
    throw std::runtime_error(path + " has the wrong size");
  }
  Heldout h;
  h.pixels.resize(static_cast<size_t>(count) * 64);
  h.labels.resize(count);
  std::memcpy(h.pixels.data(), bytes.data() + 8, h.pixels.size() * sizeof(float));
  std::memcpy(h.labels.data(), bytes.data() + 8 + h.pixels.size() * sizeof(float), count);
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " MODEL HELDOUT\n";
    return 2;
  }
  try {
    Heldout heldout = ReadHeldout(argv[2]);
    const int64_t count = static_cast<int64_t>(heldout.labels.size());
    kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "kiln_consumer_cxx");
    kiln::Session session = kiln::Session::Create(env, argv[1]);
    kiln::MemoryInfo cpu =
        kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);
    std::vector<kiln::Value> inputs;
    inputs.push_back(kiln::Value::CreateTensor(cpu, heldout.pixels.data(), heldout.pixels.size(),
                                               {count, 1, 8, 8}));
    std::vector<kiln::Value> outputs =
        session.Run({session.input_name(0)}, inputs, {session.output_name(0)});
    const float* scores = outputs[0].data<float>();
    int64_t correct = 0;
    for (int64_t i = 0; i < count; ++i) {
      const float* row = scores + i * 10;
      if (std::max_element(row, row + 10) - row == heldout.labels[i]) ++correct;
    }
    std::cout << "kiln_consumer_cxx (Kiln::kiln, Kiln " << KilnGetApiBase()->GetVersionString()
              << "): " << correct << " of " << count << " held-out digits correct\n";
  } catch (const kiln::Exception& e) {
    std::cerr << "kiln_consumer_cxx: " << e.what() << " (code " << e.code() << ")\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "kiln_consumer_cxx: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
