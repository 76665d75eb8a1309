// DirectML-shaped entry point: DML_RANDOM_GENERATOR on the CPU.
//
// The structs mirror DirectML's DML_RANDOM_GENERATOR_OPERATOR_DESC,
// DML_TENSOR_DESC and DML_BUFFER_TENSOR_DESC field for field (same names, same
// enum values), inside namespace randtensor::dml so they never clash with a
// real <DirectML.h>. Code written against DirectML ports by swapping the
// namespace and binding CPU memory instead of ID3D12Resource ranges.
//
// This entry point enforces DirectML's own limits: UINT32 tensors only, 1 to 8
// dimensions (feature level 4.0), every size >= 1, at most 2^32 - 1 elements,
// unsigned strides, state tensors of sizes {1,1,1,6}. Use randtensor/fill.h to
// go beyond them.
#ifndef RANDTENSOR_DIRECTML_H_
#define RANDTENSOR_DIRECTML_H_

#include <cstdint>

#include "randtensor/export.h"
#include "randtensor/fill.h"
#include "randtensor/status.h"

namespace randtensor {
namespace dml {

using UINT = uint32_t;
using UINT64 = uint64_t;

enum DML_TENSOR_DATA_TYPE : int32_t {
  DML_TENSOR_DATA_TYPE_UNKNOWN = 0,
  DML_TENSOR_DATA_TYPE_FLOAT32 = 1,
  DML_TENSOR_DATA_TYPE_FLOAT16 = 2,
  DML_TENSOR_DATA_TYPE_UINT32 = 3,
  DML_TENSOR_DATA_TYPE_UINT16 = 4,
  DML_TENSOR_DATA_TYPE_UINT8 = 5,
  DML_TENSOR_DATA_TYPE_INT32 = 6,
  DML_TENSOR_DATA_TYPE_INT16 = 7,
  DML_TENSOR_DATA_TYPE_INT8 = 8,
  DML_TENSOR_DATA_TYPE_FLOAT64 = 9,
  DML_TENSOR_DATA_TYPE_UINT64 = 10,
  DML_TENSOR_DATA_TYPE_INT64 = 11,
};

enum DML_TENSOR_TYPE : int32_t {
  DML_TENSOR_TYPE_INVALID = 0,
  DML_TENSOR_TYPE_BUFFER = 1,
};

enum DML_TENSOR_FLAGS : uint32_t {
  DML_TENSOR_FLAG_NONE = 0x0,
  DML_TENSOR_FLAG_OWNED_BY_DML = 0x1,
};

enum DML_RANDOM_GENERATOR_TYPE : int32_t {
  DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10 = 0,
};

struct DML_BUFFER_TENSOR_DESC {
  DML_TENSOR_DATA_TYPE DataType;
  DML_TENSOR_FLAGS Flags;
  UINT DimensionCount;
  const UINT* Sizes;
  const UINT* Strides;  // optional (nullptr: packed)
  UINT64 TotalTensorSizeInBytes;
  UINT GuaranteedBaseOffsetAlignment;  // 0 or a power of two >= element size
};

struct DML_TENSOR_DESC {
  DML_TENSOR_TYPE Type;
  const void* Desc;  // a DML_BUFFER_TENSOR_DESC when Type is DML_TENSOR_TYPE_BUFFER
};

struct DML_RANDOM_GENERATOR_OPERATOR_DESC {
  const DML_TENSOR_DESC* InputStateTensor;
  const DML_TENSOR_DESC* OutputTensor;
  const DML_TENSOR_DESC* OutputStateTensor;  // optional
  DML_RANDOM_GENERATOR_TYPE Type;
};

// The CPU counterpart of DML_BUFFER_BINDING: a byte range of host memory.
// `Data` is the start of the range (DirectML's resource address + Offset).
struct DML_BUFFER_BINDING {
  void* Data;
  UINT64 SizeInBytes;
};

// DMLCalcBufferTensorSize: the minimum TotalTensorSizeInBytes for a tensor.
// Returns 0 when the arguments are invalid or the size overflows 64 bits; use
// CalcBufferTensorSizeChecked to learn why.
RANDTENSOR_API UINT64 CalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType, UINT dimensionCount,
                            const UINT* sizes, const UINT* strides) noexcept;
RANDTENSOR_API Status CalcBufferTensorSizeChecked(DML_TENSOR_DATA_TYPE dataType, UINT dimensionCount,
                                   const UINT* sizes, const UINT* strides,
                                   UINT64* bytes) noexcept;

// Validates the operator description alone, as DirectML's CreateOperator
// does: every rule that does not involve a binding. ExecuteRandomGenerator
// checks the same rules again, so calling this first is optional; it lets a
// caller reject a descriptor before allocating its buffers.
RANDTENSOR_API Status ValidateRandomGenerator(const DML_RANDOM_GENERATOR_OPERATOR_DESC& desc) noexcept;

// Validates `desc` and the bindings, then fills the output tensor and, when
// desc.OutputStateTensor is set, writes the advanced state. The input and
// output state may be bound to the same memory. `outputState` must be non-null
// exactly when desc.OutputStateTensor is. `options` sets threads and the like
// (its element_offset must be 0: DirectML has no such field).
RANDTENSOR_API Status ExecuteRandomGenerator(const DML_RANDOM_GENERATOR_OPERATOR_DESC& desc,
                              const DML_BUFFER_BINDING& inputState,
                              const DML_BUFFER_BINDING& output,
                              const DML_BUFFER_BINDING* outputState,
                              const FillOptions& options = FillOptions()) noexcept;

struct CheckedOperator;  // directml.cc

// DirectML's CreateOperator and dispatch as two steps: Create checks the
// description once (ValidateRandomGenerator's rules) and keeps what it needs
// (a copy: later changes to `desc` or the arrays it points to change
// nothing, as in DirectML); Execute then checks only the bindings and
// options. For a repeated fill of one tensor this skips the description's
// checks and the layout analysis on every call (a 16-element fill spends
// most of its time there). Execute of an operator created from `desc` does
// exactly what ExecuteRandomGenerator(desc, ...) does: same values, same
// state, same errors for the same bindings and options.
// Movable, not copyable. A default-constructed or moved-from operator is
// empty: its Execute fails (kInvalidArgument) and writes nothing. Execute
// is const and may run on several threads at once.
class RANDTENSOR_API RandomGeneratorOperator {
 public:
  RandomGeneratorOperator() noexcept = default;
  ~RandomGeneratorOperator();
  RandomGeneratorOperator(RandomGeneratorOperator&& other) noexcept;
  RandomGeneratorOperator& operator=(RandomGeneratorOperator&& other) noexcept;
  RandomGeneratorOperator(const RandomGeneratorOperator&) = delete;
  RandomGeneratorOperator& operator=(const RandomGeneratorOperator&) = delete;

  // Checks `desc` into *op, replacing what it held; on error *op is unchanged.
  static Status Create(const DML_RANDOM_GENERATOR_OPERATOR_DESC& desc,
                       RandomGeneratorOperator* op) noexcept;

  // As ExecuteRandomGenerator, with the description Create checked.
  Status Execute(const DML_BUFFER_BINDING& inputState, const DML_BUFFER_BINDING& output,
                 const DML_BUFFER_BINDING* outputState,
                 const FillOptions& options = FillOptions()) const noexcept;

  bool empty() const noexcept { return checked_ == nullptr; }

 private:
  CheckedOperator* checked_ = nullptr;
};

}  // namespace dml
}  // namespace randtensor

#endif  // RANDTENSOR_DIRECTML_H_
