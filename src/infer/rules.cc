#include "infer/rules.h"

#include <string>
#include <unordered_map>

namespace kiln::infer {
namespace {

void SameAsInput(InferenceContext& ctx) {
  const TensorFacts* x = ctx.Input(0);
  if (x == nullptr) return;
  ctx.SetOutput(0, x->type, x->shape);
}

constexpr RuleDef kSameAsInput[] = {
    {"Abs", SameAsInput},      {"Ceil", SameAsInput},        {"Elu", SameAsInput},
    {"Erf", SameAsInput},      {"Exp", SameAsInput},         {"Floor", SameAsInput},
    {"Gelu", SameAsInput},     {"HardSigmoid", SameAsInput}, {"HardSwish", SameAsInput},
    {"Identity", SameAsInput}, {"LeakyRelu", SameAsInput},   {"Log", SameAsInput},
    {"Neg", SameAsInput},      {"Reciprocal", SameAsInput},  {"Relu", SameAsInput},
    {"Sigmoid", SameAsInput},  {"Softplus", SameAsInput},    {"Sqrt", SameAsInput},
    {"Tanh", SameAsInput},
};

const std::unordered_map<std::string, Rule>& Table() {
  static const std::unordered_map<std::string, Rule> table = [] {
    std::unordered_map<std::string, Rule> t;
    for (std::span<const RuleDef> list : {SameAsInputRules()}) {
      for (const RuleDef& d : list) t.emplace(d.op_type, d.rule);
    }
    return t;
  }();
  return table;
}

}  // namespace

std::span<const RuleDef> SameAsInputRules() noexcept {
  return kSameAsInput;
}

Rule FindRule(std::string_view domain, std::string_view op_type) noexcept {
  if (!domain.empty() && domain != "ai.onnx") return nullptr;
  const auto& table = Table();
  auto it = table.find(std::string(op_type));
  return it == table.end() ? nullptr : it->second;
}

}  // namespace kiln::infer
