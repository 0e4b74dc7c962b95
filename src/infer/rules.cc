// FindRule: the table of every family's rules.
#include "infer/rules.h"

#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace kiln::infer {
namespace {

std::string Key(std::string_view domain, std::string_view op_type) {
  if (domain == "ai.onnx") domain = "";
  std::string key(domain);
  key += ':';
  key += op_type;
  return key;
}

// Looked up by string_view, so that a lookup allocates nothing (a custom op's long key would).
struct KeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>()(s); }
};
using RuleTable = std::unordered_map<std::string, Rule, KeyHash, std::equal_to<>>;

const RuleTable& Table() {
  static const RuleTable table = [] {
    RuleTable t;
    for (std::span<const RuleDef> list :
         {ElementwiseRules(), LinalgRules(), NnRules(), ReduceRules(), ShapeRules(), TensorRules(),
          NhwcRules(), ContribRules(), LossNormRules(), AttentionRules(), QuantRules(),
          SignalRules(), ImageRules(), DataRules()}) {
      for (const RuleDef& d : list) t.emplace(Key(d.domain, d.op_type), d.rule);
    }
    return t;
  }();
  return table;
}

}  // namespace

Rule FindRule(std::string_view domain, std::string_view op_type) {
  const auto& table = Table();
  if (domain == "ai.onnx") domain = "";
  char key[256];  // longer than any key of the table: no rule
  if (domain.size() + 1 + op_type.size() > sizeof key) return nullptr;
  std::copy(domain.begin(), domain.end(), key);
  key[domain.size()] = ':';
  std::copy(op_type.begin(), op_type.end(), key + domain.size() + 1);
  auto it = table.find(std::string_view(key, domain.size() + 1 + op_type.size()));
  return it == table.end() ? nullptr : it->second;
}

}  // namespace kiln::infer
