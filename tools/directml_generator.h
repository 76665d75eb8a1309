// The DirectML-shaped entry point as `generate` drives it: the descriptors
// a DirectML program would build for DML_RANDOM_GENERATOR, so what the tool
// accepts, refuses and writes for UINT32 bits is exactly what
// ExecuteRandomGenerator does (randtensor/directml.h).
#ifndef RANDTENSOR_TOOLS_DIRECTML_GENERATOR_H_
#define RANDTENSOR_TOOLS_DIRECTML_GENERATOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "randtensor/directml.h"
#include "randtensor/fill.h"
#include "randtensor/philox.h"
#include "randtensor/status.h"
#include "tools/generate_args.h"

namespace randtensor_cli {

namespace dml = randtensor::dml;
using randtensor::PhiloxState;
using randtensor::Status;

// One DML_RANDOM_GENERATOR operator with its state tensors and output tensor,
// owning the arrays the descriptors point into (hence not copyable).
class RandomGenerator {
 public:
  RandomGenerator(const std::vector<uint32_t>& sizes,
                  const std::optional<std::vector<uint32_t>>& strides, uint64_t total_bytes)
      : sizes_(sizes), strides_(strides.value_or(std::vector<uint32_t>())) {
    output_ = {dml::DML_TENSOR_DATA_TYPE_UINT32,
               dml::DML_TENSOR_FLAG_NONE,
               static_cast<dml::UINT>(sizes_.size()),
               sizes_.data(),
               strides.has_value() ? strides_.data() : nullptr,
               total_bytes,
               0};
    state_ = {dml::DML_TENSOR_DATA_TYPE_UINT32,
              dml::DML_TENSOR_FLAG_NONE,
              4,
              kStateSizes,
              nullptr,
              sizeof(PhiloxState),
              0};
    state_tensor_ = {dml::DML_TENSOR_TYPE_BUFFER, &state_};
    output_tensor_ = {dml::DML_TENSOR_TYPE_BUFFER, &output_};
    desc_ = {&state_tensor_, &output_tensor_, &state_tensor_,
             dml::DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10};
  }
  RandomGenerator(const RandomGenerator&) = delete;
  RandomGenerator& operator=(const RandomGenerator&) = delete;

  uint64_t total_bytes() const { return output_.TotalTensorSizeInBytes; }

  // Checks the descriptors without touching any memory (DirectML's
  // CreateOperator step), so an invalid one is reported before the possibly
  // huge buffer is allocated; the checked operator then serves every call
  // (--repeat times calls as a DirectML user's dispatches run).
  Status Create() { return dml::RandomGeneratorOperator::Create(desc_, &op_); }

  Status Execute(void* data, const PhiloxState& in, PhiloxState* out,
                 const randtensor::FillOptions& options) const {
    // Bindings are mutable in DirectML's shape; the input state is only read.
    const dml::DML_BUFFER_BINDING in_binding = {const_cast<PhiloxState*>(&in), sizeof(in)};
    const dml::DML_BUFFER_BINDING out_binding = {data, output_.TotalTensorSizeInBytes};
    const dml::DML_BUFFER_BINDING state_binding = {out, sizeof(*out)};
    return op_.Execute(in_binding, out_binding, &state_binding, options);
  }

 private:
  static constexpr dml::UINT kStateSizes[4] = {1, 1, 1, 6};

  std::vector<uint32_t> sizes_;
  std::vector<uint32_t> strides_;
  dml::DML_BUFFER_TENSOR_DESC output_;
  dml::DML_BUFFER_TENSOR_DESC state_;
  dml::DML_TENSOR_DESC state_tensor_;
  dml::DML_TENSOR_DESC output_tensor_;
  dml::DML_RANDOM_GENERATOR_OPERATOR_DESC desc_;
  dml::RandomGeneratorOperator op_;  // empty until Create succeeds
};

// TotalTensorSizeInBytes: --total-bytes, or DirectML's minimum. When the
// minimum cannot be computed the descriptor is invalid; 0 then lets
// Validate() report the problem in the operator's own words
// ("OutputTensor.Sizes[1] = 0 ..."), and *calc_error says why.
uint64_t TotalBytes(const GenerateArgs& args, std::string* calc_error);

}  // namespace randtensor_cli

#endif  // RANDTENSOR_TOOLS_DIRECTML_GENERATOR_H_
