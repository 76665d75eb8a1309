#include "tools/directml_generator.h"

namespace randtensor_cli {

uint64_t TotalBytes(const GenerateArgs& args, std::string* calc_error) {
  if (args.total_bytes.has_value()) return *args.total_bytes;
  uint64_t bytes = 0;
  const Status status = dml::CalcBufferTensorSizeChecked(
      dml::DML_TENSOR_DATA_TYPE_UINT32, static_cast<dml::UINT>(args.sizes.size()),
      args.sizes.data(), args.strides.has_value() ? args.strides->data() : nullptr, &bytes);
  if (!status.ok()) {
    *calc_error = status.message();
    return 0;
  }
  return bytes;
}

}  // namespace randtensor_cli
