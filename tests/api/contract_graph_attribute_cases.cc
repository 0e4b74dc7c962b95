// The contract cases of the graph API's sparse-tensor and type-proto attribute entries
// (KilnGraphApi slots 96-103), joined to GraphNullCases and GraphHandleCases.
#include <vector>

#include "api_test_util.h"
#include "contract_cases.h"
#include "graph_fixtures.h"

namespace kiln_test {
namespace {

const KilnGraphApi& G() {
  return graph_api();
}

const int64_t kDense[] = {2, 3};
const int64_t* const kDenses[] = {kDense};
const size_t kRanks[] = {2};

}  // namespace

std::vector<Case> GraphAttributeNullCases() {
  return {
      {"CreateAttributeSparseTensor", "name",
       [](Objects& b, Outs& o) {
         return G().CreateAttributeSparseTensor(nullptr, b.g.sparse_values, b.g.sparse_indices,
                                                kDense, 2, &o.g.attribute);
       }},
      {"CreateAttributeSparseTensor", "values",
       [](Objects& b, Outs& o) {
         return G().CreateAttributeSparseTensor("s", nullptr, b.g.sparse_indices, kDense, 2,
                                                &o.g.attribute);
       }},
      {"CreateAttributeSparseTensor", "indices",
       [](Objects& b, Outs& o) {
         return G().CreateAttributeSparseTensor("s", b.g.sparse_values, nullptr, kDense, 2,
                                                &o.g.attribute);
       }},
      {"CreateAttributeSparseTensor", "dims",
       [](Objects& b, Outs& o) {
         return G().CreateAttributeSparseTensor("s", b.g.sparse_values, b.g.sparse_indices, nullptr,
                                                2, &o.g.attribute);
       }},
      {"CreateAttributeSparseTensor", "out",
       [](Objects& b, Outs&) {
         return G().CreateAttributeSparseTensor("s", b.g.sparse_values, b.g.sparse_indices, kDense,
                                                2, nullptr);
       }},
      {"CreateAttributeSparseTensors", "name",
       [](Objects& b, Outs& o) {
         const KilnValue* v[] = {b.g.sparse_values};
         const KilnValue* i[] = {b.g.sparse_indices};
         return G().CreateAttributeSparseTensors(nullptr, v, i, kDenses, kRanks, 1, &o.g.attribute);
       }},
      {"CreateAttributeSparseTensors", "values",
       [](Objects& b, Outs& o) {
         const KilnValue* i[] = {b.g.sparse_indices};
         return G().CreateAttributeSparseTensors("s", nullptr, i, kDenses, kRanks, 1,
                                                 &o.g.attribute);
       }},
      {"CreateAttributeSparseTensors", "values",  // an entry of the array
       [](Objects& b, Outs& o) {
         const KilnValue* v[] = {nullptr};
         const KilnValue* i[] = {b.g.sparse_indices};
         return G().CreateAttributeSparseTensors("s", v, i, kDenses, kRanks, 1, &o.g.attribute);
       }},
      {"CreateAttributeSparseTensors", "indices",
       [](Objects& b, Outs& o) {
         const KilnValue* v[] = {b.g.sparse_values};
         return G().CreateAttributeSparseTensors("s", v, nullptr, kDenses, kRanks, 1,
                                                 &o.g.attribute);
       }},
      {"CreateAttributeSparseTensors", "dims",
       [](Objects& b, Outs& o) {
         const KilnValue* v[] = {b.g.sparse_values};
         const KilnValue* i[] = {b.g.sparse_indices};
         return G().CreateAttributeSparseTensors("s", v, i, nullptr, kRanks, 1, &o.g.attribute);
       }},
      {"CreateAttributeSparseTensors", "ranks",
       [](Objects& b, Outs& o) {
         const KilnValue* v[] = {b.g.sparse_values};
         const KilnValue* i[] = {b.g.sparse_indices};
         return G().CreateAttributeSparseTensors("s", v, i, kDenses, nullptr, 1, &o.g.attribute);
       }},
      {"CreateAttributeSparseTensors", "out",
       [](Objects& b, Outs&) {
         const KilnValue* v[] = {b.g.sparse_values};
         const KilnValue* i[] = {b.g.sparse_indices};
         return G().CreateAttributeSparseTensors("s", v, i, kDenses, kRanks, 1, nullptr);
       }},
      {"CreateAttributeTypeProto", "name",
       [](Objects& b, Outs& o) {
         return G().CreateAttributeTypeProto(nullptr, b.g.type, &o.g.attribute);
       }},
      {"CreateAttributeTypeProto", "type",
       [](Objects&, Outs& o) {
         return G().CreateAttributeTypeProto("t", nullptr, &o.g.attribute);
       }},
      {"CreateAttributeTypeProto", "out",
       [](Objects& b, Outs&) { return G().CreateAttributeTypeProto("t", b.g.type, nullptr); }},
      {"CreateAttributeTypeProtos", "name",
       [](Objects& b, Outs& o) {
         const KilnTypeInfo* t[] = {b.g.type};
         return G().CreateAttributeTypeProtos(nullptr, t, 1, &o.g.attribute);
       }},
      {"CreateAttributeTypeProtos", "types",
       [](Objects&, Outs& o) {
         return G().CreateAttributeTypeProtos("t", nullptr, 1, &o.g.attribute);
       }},
      {"CreateAttributeTypeProtos", "types",  // an entry of the array
       [](Objects& b, Outs& o) {
         const KilnTypeInfo* t[] = {b.g.type, nullptr};
         return G().CreateAttributeTypeProtos("t", t, 2, &o.g.attribute);
       }},
      {"CreateAttributeTypeProtos", "out",
       [](Objects& b, Outs&) {
         const KilnTypeInfo* t[] = {b.g.type};
         return G().CreateAttributeTypeProtos("t", t, 1, nullptr);
       }},
      {"AttributeGetSparseTensor", "attribute",
       [](Objects&, Outs& o) {
         return G().AttributeGetSparseTensor(nullptr, &o.const_value, &o.g.value2, &o.g.dims,
                                             &o.g.rank);
       }},
      {"AttributeGetSparseTensor", "values",
       [](Objects& b, Outs& o) {
         return G().AttributeGetSparseTensor(b.g.attr_sparse, nullptr, &o.g.value2, &o.g.dims,
                                             &o.g.rank);
       }},
      {"AttributeGetSparseTensor", "indices",
       [](Objects& b, Outs& o) {
         return G().AttributeGetSparseTensor(b.g.attr_sparse, &o.const_value, nullptr, &o.g.dims,
                                             &o.g.rank);
       }},
      {"AttributeGetSparseTensor", "dims",
       [](Objects& b, Outs& o) {
         return G().AttributeGetSparseTensor(b.g.attr_sparse, &o.const_value, &o.g.value2, nullptr,
                                             &o.g.rank);
       }},
      {"AttributeGetSparseTensor", "rank",
       [](Objects& b, Outs& o) {
         return G().AttributeGetSparseTensor(b.g.attr_sparse, &o.const_value, &o.g.value2,
                                             &o.g.dims, nullptr);
       }},
      {"AttributeGetSparseTensorAt", "attribute",
       [](Objects&, Outs& o) {
         return G().AttributeGetSparseTensorAt(nullptr, 0, &o.const_value, &o.g.value2, &o.g.dims,
                                               &o.g.rank);
       }},
      {"AttributeGetSparseTensorAt", "values",
       [](Objects& b, Outs& o) {
         return G().AttributeGetSparseTensorAt(b.g.attr_sparses, 0, nullptr, &o.g.value2, &o.g.dims,
                                               &o.g.rank);
       }},
      {"AttributeGetSparseTensorAt", "indices",
       [](Objects& b, Outs& o) {
         return G().AttributeGetSparseTensorAt(b.g.attr_sparses, 0, &o.const_value, nullptr,
                                               &o.g.dims, &o.g.rank);
       }},
      {"AttributeGetSparseTensorAt", "dims",
       [](Objects& b, Outs& o) {
         return G().AttributeGetSparseTensorAt(b.g.attr_sparses, 0, &o.const_value, &o.g.value2,
                                               nullptr, &o.g.rank);
       }},
      {"AttributeGetSparseTensorAt", "rank",
       [](Objects& b, Outs& o) {
         return G().AttributeGetSparseTensorAt(b.g.attr_sparses, 0, &o.const_value, &o.g.value2,
                                               &o.g.dims, nullptr);
       }},
      {"AttributeGetTypeProto", "attribute",
       [](Objects&, Outs& o) { return G().AttributeGetTypeProto(nullptr, &o.g.const_type); }},
      {"AttributeGetTypeProto", "out",
       [](Objects& b, Outs&) { return G().AttributeGetTypeProto(b.g.attr_type, nullptr); }},
      {"AttributeGetTypeProtoAt", "attribute",
       [](Objects&, Outs& o) { return G().AttributeGetTypeProtoAt(nullptr, 0, &o.g.const_type); }},
      {"AttributeGetTypeProtoAt", "out",
       [](Objects& b, Outs&) { return G().AttributeGetTypeProtoAt(b.g.attr_types, 0, nullptr); }},
  };
}

std::vector<Case> GraphAttributeHandleCases(bool stale) {
  auto as_attribute = [stale](Objects& b) {
    return stale ? b.g.stale_attribute : reinterpret_cast<KilnAttribute*>(b.g.type);
  };
  auto as_type = [stale](Objects& b) {
    return stale ? b.g.stale_type : reinterpret_cast<KilnTypeInfo*>(b.g.attr_int);
  };
  auto as_value = [stale](Objects& b) {
    return stale ? b.stale_value : reinterpret_cast<KilnValue*>(b.g.input);
  };
  return {
      {"CreateAttributeSparseTensor", "values",
       [=](Objects& b, Outs& o) {
         return G().CreateAttributeSparseTensor("s", as_value(b), b.g.sparse_indices, kDense, 2,
                                                &o.g.attribute);
       }},
      {"CreateAttributeSparseTensor", "indices",
       [=](Objects& b, Outs& o) {
         return G().CreateAttributeSparseTensor("s", b.g.sparse_values, as_value(b), kDense, 2,
                                                &o.g.attribute);
       }},
      {"CreateAttributeSparseTensors", "values[0]",
       [=](Objects& b, Outs& o) {
         const KilnValue* v[] = {as_value(b)};
         const KilnValue* i[] = {b.g.sparse_indices};
         return G().CreateAttributeSparseTensors("s", v, i, kDenses, kRanks, 1, &o.g.attribute);
       }},
      {"CreateAttributeSparseTensors", "indices[0]",
       [=](Objects& b, Outs& o) {
         const KilnValue* v[] = {b.g.sparse_values};
         const KilnValue* i[] = {as_value(b)};
         return G().CreateAttributeSparseTensors("s", v, i, kDenses, kRanks, 1, &o.g.attribute);
       }},
      {"CreateAttributeTypeProto", "type",
       [=](Objects& b, Outs& o) {
         return G().CreateAttributeTypeProto("t", as_type(b), &o.g.attribute);
       }},
      {"CreateAttributeTypeProtos", "types[0]",
       [=](Objects& b, Outs& o) {
         const KilnTypeInfo* t[] = {as_type(b)};
         return G().CreateAttributeTypeProtos("t", t, 1, &o.g.attribute);
       }},
      {"AttributeGetSparseTensor", "attribute",
       [=](Objects& b, Outs& o) {
         return G().AttributeGetSparseTensor(as_attribute(b), &o.const_value, &o.g.value2,
                                             &o.g.dims, &o.g.rank);
       }},
      {"AttributeGetSparseTensorAt", "attribute",
       [=](Objects& b, Outs& o) {
         return G().AttributeGetSparseTensorAt(as_attribute(b), 0, &o.const_value, &o.g.value2,
                                               &o.g.dims, &o.g.rank);
       }},
      {"AttributeGetTypeProto", "attribute",
       [=](Objects& b, Outs& o) {
         return G().AttributeGetTypeProto(as_attribute(b), &o.g.const_type);
       }},
      {"AttributeGetTypeProtoAt", "attribute",
       [=](Objects& b, Outs& o) {
         return G().AttributeGetTypeProtoAt(as_attribute(b), 0, &o.g.const_type);
       }},
  };
}

}  // namespace kiln_test
