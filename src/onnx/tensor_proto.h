// TensorProto ↔ kiln::Tensor. Read: every storage form ONNX allows (the typed repeated fields,
// raw_data, external data files). Written: raw_data (string tensors: string_data).
#ifndef KILN_ONNX_TENSOR_PROTO_H_
#define KILN_ONNX_TENSOR_PROTO_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/tensor.h"

namespace kiln_onnx {
class TensorProto;
}  // namespace kiln_onnx

namespace kiln::onnx {

// An initializer's raw_data that the loader left out of the bytes protobuf parsed (the proto then
// holds an empty raw_data in its place): the bytes are copied from here, once.
struct LiftedRawData {
  const uint8_t* data = nullptr;
  size_t size = 0;
  // The bytes are part of a read-only file mapping: the pages they fill are given back to the
  // kernel as they are copied, so the file's pages and the tensor are not both resident.
  bool drop_pages = false;
};

// `what` names the tensor in messages ("initializer 'w'"). `model_dir` is where external data
// lives; empty refuses external data. `lifted`, when given, replaces the proto's raw_data.
// Throws kInvalidProtobuf (bad sizes, unknown type), kInvalidGraph (external data that leaves the
// folder) or kNoSuchFile.
std::shared_ptr<Tensor> TensorFromProto(const ::kiln_onnx::TensorProto& proto,
                                        const std::string& what, const std::string& model_dir,
                                        const LiftedRawData* lifted = nullptr);

// Sets the proto's data_type, dims and data: raw_data holding the tensor's bytes as Kiln stores
// them (little-endian; sub-byte types packed two or four to a byte, as ONNX packs them), or
// string_data for a string tensor. The name and anything else are left as they are.
void TensorToProto(const Tensor& tensor, ::kiln_onnx::TensorProto* proto);

}  // namespace kiln::onnx

#endif  // KILN_ONNX_TENSOR_PROTO_H_
