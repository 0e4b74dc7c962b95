/**
 * @file
 * Kiln — the C++ wrapper over the C ABI (header-only, C++17 and later).
 *
 * Every call goes through the KilnApi table; a failed call throws kiln::Exception carrying the
 * KilnErrorCode and the library's message, and every object is a move-only RAII type:
 *
 * @code
 *   #include <kiln/kiln_cxx_api.h>
 *
 *   try {
 *     kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "my-app");
 *     std::vector<float> data = {0, 1, 2, 3, 4, 5};
 *     kiln::MemoryInfo cpu =
 *         kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);
 *     kiln::Value tensor = kiln::Value::CreateTensor(cpu, data.data(), data.size(), {2, 3});
 *     float* p = tensor.data<float>();  // the same memory as data
 *     std::vector<int64_t> shape = tensor.type_and_shape().shape();  // {2, 3}
 *   } catch (const kiln::Exception& e) {
 *     std::cerr << "kiln: " << e.what() << " (code " << e.code() << ")\n";
 *   }
 * @endcode
 *
 * The contract:
 * - kiln::Api() is the table every call uses. It is fetched on first use with
 *   KilnGetApiBase()->GetApi(KILN_API_VERSION). A program that defines KILN_API_MANUAL_INIT before
 *   including this header (in every translation unit that includes it) never references
 *   KilnGetApiBase and must call kiln::InitApi first, e.g. with the table a custom-operator library
 *   receives at registration.
 * - A call that fails throws kiln::Exception; the C status is released first, and no object is
 *   made from the out-parameter of a failed call.
 * - Status, Env, MemoryInfo, TensorTypeAndShapeInfo, Value, SessionOptions, Session, RunOptions
 *   and IoBinding own their handle: they release it when destroyed, are movable but not copyable,
 *   and a moved-from object holds NULL. get() lends the raw handle; release() gives up ownership
 *   of it. An empty SessionOptions or RunOptions stands for the defaults where options are taken.
 * - ConstMemoryInfo and Allocator only borrow their handle; they are valid while its owner lives.
 * - Strings are UTF-8, in and out.
 *
 * The wrapper is split by family; this header includes them all:
 * - kiln/cxx/core.h: Exception, Api, InitApi, Handle, Status, ThrowOnError;
 * - kiln/cxx/env.h: Env;
 * - kiln/cxx/memory.h: ConstMemoryInfo, MemoryInfo, Allocator;
 * - kiln/cxx/value.h: TensorTypeAndShapeInfo, kElementTypeOf, Value;
 * - kiln/cxx/io_binding.h: IoBinding;
 * - kiln/cxx/session.h: SessionOptions, RunOptions, Session.
 */
#ifndef KILN_KILN_CXX_API_H_
#define KILN_KILN_CXX_API_H_

#include <kiln/cxx/core.h>
#include <kiln/cxx/env.h>
#include <kiln/cxx/io_binding.h>
#include <kiln/cxx/memory.h>
#include <kiln/cxx/session.h>
#include <kiln/cxx/value.h>

#endif  // KILN_KILN_CXX_API_H_
