// Reading numpy's .npy files (format versions 1.0, 2.0 and 3.0).
//
//   std::string bytes = ...;                      // the whole file
//   NpyArray a = ParseNpy(bytes, "x.npy");        // throws Error naming the file
//   // a.type, a.shape; a.data points into `bytes`
//
// Supported: little-endian (or byte-order-free) C-order arrays of dtype f2 f4 f8 i1 i2 i4 i8 u1
// u2 u4 u8 b1. Fortran order, big-endian data, other dtypes and structured arrays are rejected
// with a message saying so.
#ifndef KILN_TOOLS_KILN_NPY_H_
#define KILN_TOOLS_KILN_NPY_H_

#include <kiln/kiln_c_api.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::cli {

// An array read from a .npy file; `data` points into the bytes given to ParseNpy.
struct NpyArray {
  KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
  std::vector<int64_t> shape;
  std::string_view data;  // exactly element count * element size bytes
};

// Parses a whole .npy file. `what` names it in error messages. Throws Error.
NpyArray ParseNpy(std::string_view bytes, const std::string& what);

// The element type of a numpy dtype string such as "<f4" or "|b1"; throws Error for a dtype the
// tool does not read.
KilnElementType NpyElementType(const std::string& descr, const std::string& what);

}  // namespace kiln::cli

#endif  // KILN_TOOLS_KILN_NPY_H_
