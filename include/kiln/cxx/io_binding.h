/**
 * @file
 * Kiln C++ wrapper: kiln::IoBinding, a session's inputs and outputs bound by name once and run
 * any number of times with kiln::Session::Run. With every output bound to a caller's tensor, a run
 * of a static-shape model makes no heap allocation once it has run.
 *
 * @code
 *   #include <kiln/kiln_cxx_api.h>
 *
 *   kiln::IoBinding binding = session.CreateIoBinding();
 *   binding.BindInput("image", image);    // shared: refill image's data between runs
 *   binding.BindOutput("logits", logits);  // a caller's tensor, written by each run
 *   binding.BindOutput("probs", kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR,
 *                                                            KILN_MEM_TYPE_DEFAULT));
 *   session.Run(kiln::RunOptions(), binding);
 *   std::vector<kiln::Value> outputs = binding.output_values();  // logits, then probs
 * @endcode
 */
#ifndef KILN_CXX_IO_BINDING_H_
#define KILN_CXX_IO_BINDING_H_

#include <cstddef>
#include <string>
#include <vector>

#include <kiln/cxx/core.h>
#include <kiln/cxx/memory.h>
#include <kiln/cxx/value.h>

namespace kiln {

/**
 * An owned KilnIoBinding, made by Session::CreateIoBinding for one session. It shares what is
 * bound to it (and the session), so the values and the session may be destroyed first.
 */
class IoBinding : public Handle<KilnIoBinding> {
 public:
  /** Holds NULL. */
  IoBinding() noexcept = default;

  /**
   * Takes ownership of a binding.
   *
   * @param binding  The binding (may be NULL).
   */
  explicit IoBinding(KilnIoBinding* binding) noexcept : Handle(binding) {}

  /**
   * Binds a value to a model input (KilnApi::BindInput); binding a name again replaces it. The
   * binding shares the value: later writes to its data are seen by later runs.
   *
   * @param name   A model input, without NUL bytes.
   * @param value  A tensor, sequence or optional, checked by each run.
   * @throws Exception  KILN_INVALID_ARGUMENT (an unknown input, named), KILN_OUT_OF_MEMORY.
   */
  void BindInput(const std::string& name, const Value& value) {
    detail::CheckNoNul(name, "kiln::IoBinding::BindInput", "argument 'name'");
    ThrowOnError(Api().BindInput(get(), name.c_str(), value.get()));
  }

  /**
   * Binds a caller's tensor to a model output: each successful run writes the output into it
   * (KilnApi::BindOutput). Binding a name again replaces it.
   *
   * @param name   A model output, without NUL bytes.
   * @param value  A tensor of the output's element type and shape, not of strings.
   * @throws Exception  KILN_INVALID_ARGUMENT (an unknown output, a value that is not a tensor),
   *                    KILN_NOT_IMPLEMENTED (a string tensor), KILN_OUT_OF_MEMORY.
   */
  void BindOutput(const std::string& name, const Value& value) {
    detail::CheckNoNul(name, "kiln::IoBinding::BindOutput", "argument 'name'");
    ThrowOnError(Api().BindOutput(get(), name.c_str(), value.get()));
  }

  /**
   * Binds a model output to a device: each run makes a new value there, read back with
   * output_values (KilnApi::BindOutputToDevice). Binding a name again replaces it.
   *
   * @param name  A model output, without NUL bytes.
   * @param info  Where the value is made: CPU memory.
   * @throws Exception  KILN_INVALID_ARGUMENT (an unknown output), KILN_NOT_IMPLEMENTED (a device
   *                    other than the CPU), KILN_OUT_OF_MEMORY.
   */
  void BindOutput(const std::string& name, ConstMemoryInfo info) {
    detail::CheckNoNul(name, "kiln::IoBinding::BindOutput", "argument 'name'");
    ThrowOnError(Api().BindOutputToDevice(get(), name.c_str(), info.get()));
  }

  /**
   * The names of the bound outputs, in the order they were first bound
   * (KilnApi::GetBoundOutputNames).
   *
   * @return Copies of the UTF-8 names.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle, KILN_OUT_OF_MEMORY.
   */
  std::vector<std::string> output_names() const {
    KilnAllocator* allocator = Allocator::Default().get();
    detail::AllocatedStrings names(allocator);
    ThrowOnError(Api().GetBoundOutputNames(get(), allocator, names.out(), names.count()));
    return names.Copy();
  }

  /**
   * The outputs of the last successful run, in the order of output_names: a bound tensor itself
   * or the value the run made, shared, not copied (KilnApi::GetBoundOutputValues).
   *
   * @return One owned value per bound output.
   * @throws Exception  KILN_INVALID_ARGUMENT (no run has succeeded since the outputs were last
   *                    bound or cleared, an empty handle), KILN_OUT_OF_MEMORY.
   */
  std::vector<Value> output_values() const {
    KilnAllocator* allocator = Allocator::Default().get();
    detail::AllocatedMemory array(allocator);
    size_t count = 0;
    std::vector<Value> values;
    // Every value is owned before anything can throw, so none leaks.
    ThrowOnError(Api().GetBoundOutputValues(get(), allocator,
                                            reinterpret_cast<KilnValue***>(array.out()), &count));
    KilnValue** raw = static_cast<KilnValue**>(array.get());
    try {
      values.reserve(count);
    } catch (...) {
      for (size_t i = 0; i < count; ++i) Api().ReleaseValue(raw[i]);
      throw;
    }
    for (size_t i = 0; i < count; ++i) values.emplace_back(raw[i]);
    return values;
  }

  /**
   * Unbinds every input (KilnApi::ClearBoundInputs).
   *
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  void ClearBoundInputs() { ThrowOnError(Api().ClearBoundInputs(get())); }

  /**
   * Unbinds every output and forgets the last run's outputs (KilnApi::ClearBoundOutputs).
   *
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  void ClearBoundOutputs() { ThrowOnError(Api().ClearBoundOutputs(get())); }

  /**
   * Waits until the bound inputs are ready on their devices: nothing to wait for on the CPU
   * (KilnApi::SynchronizeBoundInputs).
   *
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  void SynchronizeInputs() { ThrowOnError(Api().SynchronizeBoundInputs(get())); }

  /**
   * Waits until the last run's outputs are ready to read: nothing to wait for on the CPU
   * (KilnApi::SynchronizeBoundOutputs).
   *
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  void SynchronizeOutputs() { ThrowOnError(Api().SynchronizeBoundOutputs(get())); }
};

}  // namespace kiln

#endif  // KILN_CXX_IO_BINDING_H_
