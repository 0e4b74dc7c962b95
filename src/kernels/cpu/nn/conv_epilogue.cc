// The fused convolution epilogue (see conv_epilogue.h). Each activation gets its own loop, so the
// compiler vectorizes every one of them with the activation inlined.
#include "kernels/cpu/nn/conv_epilogue.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/nn/swish_avx512.h"
#include "kernels/cpu/vector_math.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu::nn {
namespace {

template <Activation A>
KILN_VECTOR_CLONES void PlaneLoop(float* y, size_t n, float bias, const float* z, float alpha,
                                  float beta) {
  if (z != nullptr) {
    for (size_t i = 0; i < n; ++i) y[i] = Activate<A>(y[i] + bias + z[i], alpha, beta);
  } else {
    for (size_t i = 0; i < n; ++i) y[i] = Activate<A>(y[i] + bias, alpha, beta);
  }
}

// One run of n values: y = A(y (+ b) (+ z)), b and z null when absent.
template <Activation A>
[[gnu::always_inline]] inline void RunOf(float* y, size_t n, const float* b, const float* z,
                                         float alpha, float beta) {
  if (b != nullptr && z != nullptr) {
    for (size_t j = 0; j < n; ++j) y[j] = Activate<A>(y[j] + b[j] + z[j], alpha, beta);
  } else if (b != nullptr) {
    for (size_t j = 0; j < n; ++j) y[j] = Activate<A>(y[j] + b[j], alpha, beta);
  } else if (z != nullptr) {
    for (size_t j = 0; j < n; ++j) y[j] = Activate<A>(y[j] + z[j], alpha, beta);
  } else if constexpr (A != Activation::kNone) {
    for (size_t j = 0; j < n; ++j) y[j] = Activate<A>(y[j], alpha, beta);
  }
}

// Rows this narrow, when contiguous, go in groups of rows as one run (the bias repeated over the
// group): a vectorized loop's set-up and tail per row of 8-24 values cost more than the values
// (MnasNet's 16→8 1×1 layer over 112×112: a row of 8 per pixel).
constexpr size_t kGroupRun = 64;

template <Activation A>
KILN_VECTOR_CLONES void RowsLoop(float* y, size_t rows, size_t cols, size_t ldy, const float* bias,
                                 const float* z, size_t ldz, float alpha, float beta) {
  size_t r = 0;
  if (cols < kGroupRun && ldy == cols && (z == nullptr || ldz == cols)) {
    const size_t per = (kGroupRun + cols - 1) / cols;  // rows per group
    const size_t n = per * cols;                       // < 2·kGroupRun
    float repeated[2 * kGroupRun];
    if (bias != nullptr) {
      // Row by row: a j % cols per value would cost a division each (a block of 256 rows of 48
      // spent as long filling this as on its values).
      for (size_t i = 0; i < per; ++i) std::copy(bias, bias + cols, repeated + i * cols);
    }
    for (; r + per <= rows; r += per) {
      RunOf<A>(y + r * cols, n, bias != nullptr ? repeated : nullptr,
               z != nullptr ? z + r * cols : nullptr, alpha, beta);
    }
  }
  for (; r < rows; ++r) {
    RunOf<A>(y + r * ldy, cols, bias, z != nullptr ? z + r * ldz : nullptr, alpha, beta);
  }
}

std::atomic<bool>& SwishAvx512Allowed() {
  static std::atomic<bool> allowed{true};
  return allowed;
}

}  // namespace

Epilogue ReadEpilogue(const KernelInfo& info, const std::string& prefix) {
  const std::string name = info.GetString((prefix + "activation").c_str(), "");
  const std::vector<float> params = info.GetFloats((prefix + "activation_params").c_str());
  Epilogue e;
  // How many activation_params each activation takes: [fewest, most].
  size_t fewest = 0;
  size_t most = 0;
  if (name.empty()) {
    e.activation = Activation::kNone;
  } else if (name == "Relu") {
    e.activation = Activation::kRelu;
  } else if (name == "LeakyRelu") {
    e.activation = Activation::kLeakyRelu;
    e.alpha = params.empty() ? 0.01f : params[0];
    most = 1;
  } else if (name == "Clip") {
    e.activation = Activation::kClip;
    fewest = most = 2;
    if (params.size() == 2) {
      e.alpha = params[0];
      e.beta = params[1];
    }
  } else if (name == "Sigmoid") {
    e.activation = Activation::kSigmoid;
  } else if (name == "Tanh") {
    e.activation = Activation::kTanh;
  } else if (name == "HardSigmoid") {
    e.activation = Activation::kHardSigmoid;
    most = 2;
    fewest = 0;
    e.alpha = params.size() == 2 ? params[0] : 0.2f;
    e.beta = params.size() == 2 ? params[1] : 0.5f;
    if (params.size() == 1) fewest = 2;  // both or neither
  } else if (name == "HardSwish") {
    e.activation = Activation::kHardSwish;
  } else if (name == "Swish") {
    e.activation = Activation::kSwish;
  } else {
    info.Fail(ErrorCode::kInvalidGraph,
              "attribute '" + prefix + "activation' is '" + name +
                  "'; expected Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid, HardSwish or "
                  "Swish (or none)");
  }
  if (params.size() < fewest || params.size() > most) {
    info.Fail(ErrorCode::kInvalidGraph,
              "attribute '" + prefix + "activation_params' has " + std::to_string(params.size()) +
                  " values; activation '" + name + "' takes " +
                  (fewest == most ? std::to_string(fewest)
                                  : std::to_string(fewest) + " to " + std::to_string(most)));
  }
  return e;
}

void ApplyEpiloguePlane(const Epilogue& e, float* y, size_t n, float bias, const float* z) {
  WithActivation(e.activation,
                 [&]<Activation A>() { PlaneLoop<A>(y, n, bias, z, e.alpha, e.beta); });
}

void ApplyEpilogueRows(const Epilogue& e, float* y, size_t rows, size_t cols, size_t ldy,
                       const float* bias, const float* z, size_t ldz) {
#if defined(__x86_64__)
  if (e.activation == Activation::kSwish && SwishAvx512Allowed().load(std::memory_order_relaxed) &&
      SwishAvx512Supported()) {
    SwishRowsAvx512(y, rows, cols, ldy, bias, z, ldz);
    return;
  }
#endif
  WithActivation(e.activation, [&]<Activation A>() {
    RowsLoop<A>(y, rows, cols, ldy, bias, z, ldz, e.alpha, e.beta);
  });
}

bool InProduct(const Epilogue& e, const float* bias, const float* z, size_t ldz,
               GemmEpilogue* out) {
  GemmEpilogue g;
  g.bias = bias;
  g.z = z;
  g.ldz = ldz;
  switch (e.activation) {
    case Activation::kNone:
      break;
    case Activation::kRelu:
      g.clamp = true;
      g.lo = 0.0f;
      g.hi = std::numeric_limits<float>::infinity();
      break;
    case Activation::kClip:
      g.clamp = true;
      g.lo = e.alpha;
      g.hi = e.beta;
      break;
    default:
      return false;
  }
  *out = g;
  return true;
}

#if defined(__x86_64__)
bool SwishAvx512Supported() noexcept {
  static const bool supported = __builtin_cpu_supports("avx512f");
  return supported;
}
#endif

bool AllowSwishAvx512ForTesting(bool allow) noexcept {
  return SwishAvx512Allowed().exchange(allow);
}

}  // namespace kiln::cpu::nn
