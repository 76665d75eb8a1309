// DirectML-shaped: the seed page's worked example, sizes {3,3,20,7219}.
#include <cstdio>
#include <vector>

#include "randtensor/directml.h"

using namespace randtensor::dml;

int main() {
  const UINT state_sizes[4] = {1, 1, 1, 6}, sizes[4] = {3, 3, 20, 7219};
  const DML_BUFFER_TENSOR_DESC state_desc = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE,
                                             4, state_sizes, nullptr, 24, 0};
  const DML_BUFFER_TENSOR_DESC output_desc = {
      DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 4, sizes, nullptr,
      CalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT32, 4, sizes, nullptr), 0};
  const DML_TENSOR_DESC state_tensor = {DML_TENSOR_TYPE_BUFFER, &state_desc};
  const DML_TENSOR_DESC output_tensor = {DML_TENSOR_TYPE_BUFFER, &output_desc};
  const DML_RANDOM_GENERATOR_OPERATOR_DESC op = {&state_tensor, &output_tensor, &state_tensor,
                                                 DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10};
  uint32_t state[6] = {0x74746c65, 0x6d536561, 0x6f46726f, 0x48656c6c, 0, 0};
  std::vector<uint32_t> output(3 * 3 * 20 * 7219);
  const DML_BUFFER_BINDING state_binding = {state, sizeof(state)};  // updated in place
  const DML_BUFFER_BINDING output_binding = {output.data(), output.size() * 4};
  const randtensor::Status status =
      ExecuteRandomGenerator(op, state_binding, output_binding, &state_binding);
  if (!status.ok()) return std::fprintf(stderr, "%s\n", status.message()), 1;
  // Counter + ceil(1299420 / 4) = ...'7479615c by the page's rule (its text says ...'746f776e).
  return state[0] == 0x7479615c ? 0 : 1;
}
