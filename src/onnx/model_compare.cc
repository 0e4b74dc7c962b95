#include "onnx/model_compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace kiln::onnx::testing {
namespace {

std::string TypeText(const ir::TypeInfo& t) {
  std::string s = std::to_string(static_cast<int>(t.kind)) + ":" + DataTypeName(t.elem);
  if (t.shape) {
    s += "[";
    for (size_t d = 0; d < t.shape->rank(); ++d) {
      s += std::to_string(t.shape->dims()[d]) + "/" + t.shape->symbols()[d] + ",";
    }
    s += "]";
  }
  if (t.contained) s += "(" + TypeText(*t.contained) + ")";
  return s;
}

std::vector<std::string> Names(const std::vector<ir::Value*>& values) {
  std::vector<std::string> names;
  for (const ir::Value* v : values) names.push_back(v != nullptr ? v->name() : "");
  return names;
}

void ExpectSameGraph(const ir::Graph& a, const ir::Graph& b, const std::string& where);

void ExpectSameAttribute(const ir::Attribute& a, const ir::Attribute& b, const std::string& where) {
  const std::string w = where + " attribute '" + a.name + "'";
  EXPECT_EQ(a.name, b.name) << w;
  EXPECT_EQ(a.type, b.type) << w;
  EXPECT_EQ(std::memcmp(&a.f, &b.f, sizeof a.f), 0) << w << ": " << a.f << " vs " << b.f;
  EXPECT_EQ(a.i, b.i) << w;
  EXPECT_EQ(a.s, b.s) << w;
  EXPECT_EQ(a.ints, b.ints) << w;
  EXPECT_EQ(a.strings, b.strings) << w;
  EXPECT_EQ(a.floats.size(), b.floats.size()) << w;
  if (a.floats.size() == b.floats.size() && !a.floats.empty()) {
    EXPECT_EQ(std::memcmp(a.floats.data(), b.floats.data(), a.floats.size() * sizeof(float)), 0)
        << w;
  }
  EXPECT_EQ(a.t == nullptr, b.t == nullptr) << w;
  if (a.t && b.t) {
    EXPECT_TRUE(SameTensor(*a.t, *b.t)) << w;
  }
  ASSERT_EQ(a.tensors.size(), b.tensors.size()) << w;
  for (size_t k = 0; k < a.tensors.size(); ++k) {
    EXPECT_TRUE(SameTensor(*a.tensors[k], *b.tensors[k])) << w << " tensor " << k;
  }
  EXPECT_EQ(a.g == nullptr, b.g == nullptr) << w;
  if (a.g && b.g) ExpectSameGraph(*a.g, *b.g, w);
  auto same_sparse = [&](const ir::SparseTensor* x, const ir::SparseTensor* y, size_t k) {
    EXPECT_EQ(x == nullptr, y == nullptr) << w << " sparse tensor " << k;
    if (x == nullptr || y == nullptr) return;
    EXPECT_TRUE(SameTensor(*x->values, *y->values)) << w << " sparse values " << k;
    EXPECT_TRUE(SameTensor(*x->indices, *y->indices)) << w << " sparse indices " << k;
    EXPECT_EQ(x->dims, y->dims) << w << " sparse dims " << k;
  };
  same_sparse(a.sparse.get(), b.sparse.get(), 0);
  ASSERT_EQ(a.sparse_tensors.size(), b.sparse_tensors.size()) << w;
  for (size_t k = 0; k < a.sparse_tensors.size(); ++k) {
    same_sparse(a.sparse_tensors[k].get(), b.sparse_tensors[k].get(), k);
  }
  EXPECT_EQ(a.type_proto == nullptr, b.type_proto == nullptr) << w;
  if (a.type_proto && b.type_proto) {
    EXPECT_EQ(TypeText(*a.type_proto), TypeText(*b.type_proto)) << w;
  }
  ASSERT_EQ(a.type_protos.size(), b.type_protos.size()) << w;
  for (size_t k = 0; k < a.type_protos.size(); ++k) {
    EXPECT_EQ(TypeText(*a.type_protos[k]), TypeText(*b.type_protos[k])) << w << " type " << k;
  }
  ASSERT_EQ(a.graphs.size(), b.graphs.size()) << w;
  for (size_t k = 0; k < a.graphs.size(); ++k) {
    ExpectSameGraph(*a.graphs[k], *b.graphs[k], w + " graph " + std::to_string(k));
  }
}

void ExpectSameGraph(const ir::Graph& a, const ir::Graph& b, const std::string& where) {
  EXPECT_EQ(a.name(), b.name()) << where;
  EXPECT_EQ(Names(a.inputs()), Names(b.inputs())) << where;
  EXPECT_EQ(Names(a.outputs()), Names(b.outputs())) << where;
  EXPECT_EQ(Names(a.captures()), Names(b.captures())) << where;
  for (const auto& [ours, theirs] :
       {std::pair{&a.inputs(), &b.inputs()}, {&a.outputs(), &b.outputs()}}) {
    for (size_t k = 0; k < ours->size() && k < theirs->size(); ++k) {
      EXPECT_EQ(TypeText((*ours)[k]->type()), TypeText((*theirs)[k]->type()))
          << where << " '" << (*ours)[k]->name() << "'";
    }
  }
  // Every value: the same initializer, and the same type where the first knows one.
  size_t initializers = 0;
  for (const auto& v : a.values()) {
    const ir::Value* w = b.FindValue(v->name());
    if (v->initializer() != nullptr) {
      ++initializers;
      ASSERT_NE(w, nullptr) << where << " initializer '" << v->name() << "'";
      ASSERT_NE(w->initializer(), nullptr) << where << " '" << v->name() << "'";
      EXPECT_TRUE(SameTensor(*v->initializer(), *w->initializer()))
          << where << " initializer '" << v->name() << "'";
    }
    if (w != nullptr && v->type().kind != ir::ValueKind::kUnknown && v->producer() != nullptr) {
      EXPECT_EQ(TypeText(v->type()), TypeText(w->type())) << where << " '" << v->name() << "'";
    }
    if (w != nullptr) {
      EXPECT_EQ(v->is_outer(), w->is_outer()) << where << " '" << v->name() << "'";
    }
  }
  EXPECT_EQ(initializers, static_cast<size_t>(std::count_if(
                              b.values().begin(), b.values().end(),
                              [](const auto& v) { return v->initializer() != nullptr; })))
      << where;
  const std::vector<ir::Node*> na = a.TopologicalOrder();
  const std::vector<ir::Node*> nb = b.TopologicalOrder();
  ASSERT_EQ(na.size(), nb.size()) << where;
  for (size_t k = 0; k < na.size(); ++k) {
    const ir::Node& x = *na[k];
    const ir::Node& y = *nb[k];
    const std::string w = where + " " + x.Describe();
    EXPECT_EQ(x.name(), y.name()) << w;
    EXPECT_EQ(x.op_type(), y.op_type()) << w;
    EXPECT_EQ(x.domain(), y.domain()) << w;
    EXPECT_EQ(x.opset(), y.opset()) << w;
    EXPECT_EQ(Names(x.inputs()), Names(y.inputs())) << w;
    EXPECT_EQ(Names(x.outputs()), Names(y.outputs())) << w;
    EXPECT_EQ(Names(x.implicit_inputs()), Names(y.implicit_inputs())) << w;
    ASSERT_EQ(x.attributes().size(), y.attributes().size()) << w;
    for (size_t i = 0; i < x.attributes().size(); ++i) {
      ExpectSameAttribute(x.attributes()[i], y.attributes()[i], w);
    }
  }
}

}  // namespace

bool SameTensor(const Tensor& a, const Tensor& b) {
  if (a.type() != b.type() || a.shape() != b.shape()) return false;
  if (a.type() == DataType::kString) {
    return std::equal(a.strings(), a.strings() + a.element_count(), b.strings());
  }
  return a.byte_size() == b.byte_size() &&
         (a.byte_size() == 0 || std::memcmp(a.data(), b.data(), a.byte_size()) == 0);
}

void ExpectSameModel(const ir::Model& a, const ir::Model& b) {
  EXPECT_EQ(a.ir_version, b.ir_version);
  EXPECT_EQ(a.opsets, b.opsets);
  EXPECT_EQ(a.producer_name, b.producer_name);
  EXPECT_EQ(a.producer_version, b.producer_version);
  EXPECT_EQ(a.domain, b.domain);
  EXPECT_EQ(a.model_version, b.model_version);
  EXPECT_EQ(a.doc_string, b.doc_string);
  EXPECT_EQ(a.graph_doc_string, b.graph_doc_string);
  EXPECT_EQ(a.metadata, b.metadata);
  ASSERT_NE(a.graph, nullptr);
  ASSERT_NE(b.graph, nullptr);
  ExpectSameGraph(*a.graph, *b.graph, "main graph");
}

}  // namespace kiln::onnx::testing
