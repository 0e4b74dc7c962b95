#include "kernels/cpu/rnn/rnn_common.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <span>
#include <utility>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu::rnn {
namespace {

struct ActivationSpec {
  const char* name;  // lower case
  ActivationKind kind;
  bool has_alpha;
  bool has_beta;
  float alpha;  // defaults of the corresponding ONNX operators
  float beta;
};

constexpr ActivationSpec kActivations[] = {
    {"relu", ActivationKind::kRelu, false, false, 0, 0},
    {"tanh", ActivationKind::kTanh, false, false, 0, 0},
    {"sigmoid", ActivationKind::kSigmoid, false, false, 0, 0},
    {"affine", ActivationKind::kAffine, true, true, 1.0f, 0.0f},
    {"leakyrelu", ActivationKind::kLeakyRelu, true, false, 0.01f, 0},
    {"thresholdedrelu", ActivationKind::kThresholdedRelu, true, false, 1.0f, 0},
    {"scaledtanh", ActivationKind::kScaledTanh, true, true, 1.0f, 1.0f},
    {"hardsigmoid", ActivationKind::kHardSigmoid, true, true, 0.2f, 0.5f},
    {"elu", ActivationKind::kElu, true, false, 1.0f, 0},
    {"softsign", ActivationKind::kSoftsign, false, false, 0, 0},
    {"softplus", ActivationKind::kSoftplus, false, false, 0, 0},
};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void CheckType(const KernelInfo& info, const Tensor& t, const char* name, DataType want) {
  if (t.type() != want) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' has type " +
                                               DataTypeName(t.type()) + " but X has " +
                                               DataTypeName(want));
  }
}

using Dims3 = std::array<int64_t, 3>;

}  // namespace

void CheckShape(const KernelInfo& info, const Tensor& t, const char* name,
                std::span<const int64_t> want) {
  if (!std::ranges::equal(t.shape().dims(), want)) {
    const Shape want_shape(std::vector<int64_t>(want.begin(), want.end()));
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' has shape " +
                                               t.shape().ToString() + " but must be " +
                                               want_shape.ToString());
  }
}

std::vector<PackedMatrix> PackConstantGates(const KernelInfo& info, size_t input, size_t gates,
                                            size_t gate0, size_t gate_count) {
  std::vector<PackedMatrix> out;
  const Tensor* t = info.ConstantInput(input);
  if (t == nullptr || t->type() != DataType::kFloat || t->shape().rank() != 3) return out;
  const auto& dims = t->shape().dims();
  const auto dirs = static_cast<size_t>(dims[0]);
  const auto rows = static_cast<size_t>(dims[1]);
  const auto cols = static_cast<size_t>(dims[2]);
  if (gates == 0 || rows % gates != 0 || gate0 + gate_count > gates || rows == 0 || cols == 0) {
    return out;
  }
  const size_t hidden = rows / gates;
  const auto* data = static_cast<const float*>(t->data());
  out.reserve(dirs);
  for (size_t dir = 0; dir < dirs; ++dir) {
    out.push_back(PackedMatrix::Pack(data + (dir * rows + gate0 * hidden) * cols, cols, cols,
                                     gate_count * hidden, /*transposed=*/true));
  }
  return out;
}

KILN_VECTOR_CLONES void ApplyFloat(const Activation& act, float* v, size_t n) {
  ApplyLoops(act, v, n);
}

Attributes ParseAttributes(const KernelInfo& info, const std::vector<std::string>& defaults) {
  Attributes a;
  const std::string direction = info.GetString("direction", "forward");
  // "foward" is the default the opset-1 schemas spelled.
  if (direction == "forward" || direction == "foward") {
    a.num_directions = 1;
  } else if (direction == "reverse") {
    a.reverse_only = true;
  } else if (direction == "bidirectional") {
    a.num_directions = 2;
  } else {
    info.Fail(ErrorCode::kInvalidGraph,
              "attribute 'direction' must be forward, reverse or "
              "bidirectional, not '" +
                  direction + "'");
  }
  a.hidden_size = info.GetInt("hidden_size", -1);
  if (info.HasAttribute("hidden_size") && a.hidden_size <= 0) {
    info.Fail(ErrorCode::kInvalidGraph,
              "attribute 'hidden_size' must be positive, got " + std::to_string(a.hidden_size));
  }

  std::vector<std::string> names = info.GetStrings("activations");
  if (names.empty()) {
    for (size_t d = 0; d < a.num_directions; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  } else if (names.size() != defaults.size() * a.num_directions) {
    info.Fail(ErrorCode::kInvalidGraph,
              "attribute 'activations' has " + std::to_string(names.size()) + " entries but " +
                  direction + " needs " + std::to_string(defaults.size() * a.num_directions));
  }
  const std::vector<float> alphas = info.GetFloats("activation_alpha");
  const std::vector<float> betas = info.GetFloats("activation_beta");
  size_t next_alpha = 0;
  size_t next_beta = 0;
  for (const std::string& name : names) {
    const std::string lower = Lower(name);
    const ActivationSpec* spec = nullptr;
    for (const ActivationSpec& s : kActivations) {
      if (lower == s.name) spec = &s;
    }
    if (spec == nullptr) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'activations': '" + name +
                    "' is not one of Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, "
                    "ScaledTanh, HardSigmoid, Elu, Softsign, Softplus");
    }
    // alpha and beta values are consumed in order by the activations that take them.
    Activation act{spec->kind, spec->alpha, spec->beta};
    if (spec->has_alpha && next_alpha < alphas.size()) act.alpha = alphas[next_alpha++];
    if (spec->has_beta && next_beta < betas.size()) act.beta = betas[next_beta++];
    a.activations.push_back(act);
  }

  if (info.HasAttribute("clip")) {
    a.clip = info.GetFloat("clip", 0);
    if (!(a.clip > 0)) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'clip' must be positive, got " + std::to_string(a.clip));
    }
  }
  if (info.opset() >= 14) {
    const int64_t layout = info.GetInt("layout", 0);
    if (layout != 0 && layout != 1) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'layout' must be 0 or 1, got " + std::to_string(layout));
    }
    a.batch_major = layout == 1;
  }
  return a;
}

Dims CheckInputs(const KernelContext& ctx, const Attributes& attrs, size_t gates, bool lstm) {
  const KernelInfo& info = ctx.info();
  const Tensor& x = ctx.Input(kX);
  const Tensor& w = ctx.Input(kW);
  const Tensor& r = ctx.Input(kR);
  if (x.shape().rank() != 3) {
    info.Fail(ErrorCode::kInvalidArgument,
              "input 'X' must have rank 3, not shape " + x.shape().ToString());
  }
  if (w.shape().rank() != 3) {
    info.Fail(ErrorCode::kInvalidArgument,
              "input 'W' must have rank 3, not shape " + w.shape().ToString());
  }
  if (r.shape().rank() != 3) {
    info.Fail(ErrorCode::kInvalidArgument,
              "input 'R' must have rank 3, not shape " + r.shape().ToString());
  }
  Dims d;
  const auto& xd = x.shape().dims();
  d.seq = static_cast<size_t>(attrs.batch_major ? xd[1] : xd[0]);
  d.batch = static_cast<size_t>(attrs.batch_major ? xd[0] : xd[1]);
  d.input = static_cast<size_t>(xd[2]);
  d.dirs = attrs.num_directions;
  const int64_t hidden = attrs.hidden_size >= 0 ? attrs.hidden_size : r.shape().dims()[2];
  d.hidden = static_cast<size_t>(hidden);
  const auto dirs = static_cast<int64_t>(d.dirs);
  const auto g = static_cast<int64_t>(gates);

  CheckType(info, w, "W", x.type());
  CheckShape(info, w, "W", Dims3{dirs, g * hidden, xd[2]});
  CheckType(info, r, "R", x.type());
  CheckShape(info, r, "R", Dims3{dirs, g * hidden, hidden});
  CheckOptionalInputs(ctx, attrs, d, gates, lstm);
  return d;
}

void CheckOptionalInputs(const KernelContext& ctx, const Attributes& attrs, const Dims& d,
                         size_t gates, bool lstm) {
  const KernelInfo& info = ctx.info();
  const Tensor& x = ctx.Input(kX);
  const auto dirs = static_cast<int64_t>(d.dirs);
  const auto batch = static_cast<int64_t>(d.batch);
  const auto hidden = static_cast<int64_t>(d.hidden);
  const auto g = static_cast<int64_t>(gates);
  if (const Tensor* b = ctx.OptionalInput(kB)) {
    CheckType(info, *b, "B", x.type());
    CheckShape(info, *b, "B", std::array<int64_t, 2>{dirs, 2 * g * hidden});
  }
  if (const Tensor* lens = ctx.OptionalInput(kSeqLens)) {
    if (lens->type() != DataType::kInt32 && lens->type() != DataType::kInt64) {
      info.Fail(
          ErrorCode::kInvalidArgument,
          std::string("input 'sequence_lens' must be int32, not ") + DataTypeName(lens->type()));
    }
    CheckShape(info, *lens, "sequence_lens", std::array<int64_t, 1>{batch});
    for (size_t n = 0; n < d.batch; ++n) {
      const int64_t len = SequenceLen(*lens, n);
      if (len < 0 || len > static_cast<int64_t>(d.seq)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'sequence_lens' holds " + std::to_string(len) + ", outside [0, " +
                      std::to_string(d.seq) + "] (the sequence length)");
      }
    }
  }
  const Dims3 state = attrs.batch_major ? Dims3{batch, dirs, hidden} : Dims3{dirs, batch, hidden};
  if (const Tensor* h0 = ctx.OptionalInput(kInitialH)) {
    CheckType(info, *h0, "initial_h", x.type());
    CheckShape(info, *h0, "initial_h", state);
  }
  if (lstm) {
    if (const Tensor* c0 = ctx.OptionalInput(kInitialC)) {
      CheckType(info, *c0, "initial_c", x.type());
      CheckShape(info, *c0, "initial_c", state);
    }
    if (const Tensor* p = ctx.OptionalInput(kP)) {
      CheckType(info, *p, "P", x.type());
      CheckShape(info, *p, "P", std::array<int64_t, 2>{dirs, 3 * hidden});
    }
  }
}

}  // namespace kiln::cpu::rnn
