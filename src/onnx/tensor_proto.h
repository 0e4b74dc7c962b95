// TensorProto → kiln::Tensor, for every storage form ONNX allows: the typed repeated fields,
// raw_data, and external data files.
#ifndef KILN_ONNX_TENSOR_PROTO_H_
#define KILN_ONNX_TENSOR_PROTO_H_

#include <memory>
#include <string>

#include "core/tensor.h"

namespace onnx {
class TensorProto;
}  // namespace onnx

namespace kiln::onnx {

// `what` names the tensor in messages ("initializer 'w'"). `model_dir` is where external data
// lives; empty refuses external data. Throws kInvalidProtobuf (bad sizes, unknown type),
// kInvalidGraph (external data that leaves the folder) or kNoSuchFile.
std::shared_ptr<Tensor> TensorFromProto(const ::onnx::TensorProto& proto, const std::string& what,
                                        const std::string& model_dir);

}  // namespace kiln::onnx

#endif  // KILN_ONNX_TENSOR_PROTO_H_
