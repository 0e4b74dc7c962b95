// Test helpers of the sequence family: building sequences and optionals, reading them back, and
// error expectations.
#ifndef KILN_KERNELS_CPU_SEQUENCE_SEQUENCE_TEST_UTIL_H_
#define KILN_KERNELS_CPU_SEQUENCE_SEQUENCE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/value.h"
#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {

// A sequence of `type` holding `items` (shared, not copied).
inline Value Seq(DataType type, std::vector<std::shared_ptr<Tensor>> items) {
  auto s = std::make_shared<TensorSequence>();
  s->elem_type = type;
  for (auto& t : items) s->tensors.push_back(std::move(t));
  return Value::FromSequence(std::move(s));
}

// The sequence a value holds; fails the test (and returns an empty one) for another kind.
inline const TensorSequence& SeqOf(const Value& v) {
  static const TensorSequence kNone;
  EXPECT_EQ(v.kind(), Value::Kind::kSequence) << v.TypeText();
  return v.sequence() != nullptr ? *v.sequence() : kNone;
}

// Element k of a sequence value as values of T, with its shape checked.
template <typename T>
std::vector<T> ItemValues(const Value& v, size_t k, const Shape& shape) {
  const TensorSequence& s = SeqOf(v);
  if (k >= s.tensors.size()) {
    ADD_FAILURE() << "no element " << k << " in a sequence of " << s.tensors.size();
    return {};
  }
  EXPECT_EQ(s.tensors[k]->shape().dims(), shape.dims()) << "element " << k;
  return Values<T>(*s.tensors[k]);
}

}  // namespace kiln::testing

#endif  // KILN_KERNELS_CPU_SEQUENCE_SEQUENCE_TEST_UTIL_H_
