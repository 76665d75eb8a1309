"""randtensor.torch's three float fills through the C API, for a Python that
cannot load randtensor's module (the device host's Python 3.12, for which
this tree builds no module: compare_torch_adapter.py --capi LIB).

Each call is the fill randtensor.torch makes for a contiguous CPU tensor in
the default order="stream": randtensor_fill on the tensor's storage, rank 1,
the distribution's parameters as the adapter passes them, the generator's
six state words advanced by the fill (out_state). What it leaves out is only
the adapter's Python work per call (argument checks, DLPack), microseconds
against the milliseconds of a 64 MiB fill. python/tests/test_torch_capi.py
checks that it equals the adapter (values and state).
"""
import ctypes

import torch

DTYPES = {torch.float32: 1, torch.float64: 2, torch.float16: 3, torch.bfloat16: 4}
UNIFORM, NORMAL, BERNOULLI = 1, 2, 3


class Distribution(ctypes.Structure):  # randtensor_distribution
    _fields_ = [("kind", ctypes.c_int32), ("a", ctypes.c_double), ("b", ctypes.c_double),
                ("int_low", ctypes.c_int64), ("int_high", ctypes.c_int64)]


class FillOptions(ctypes.Structure):  # randtensor_fill_options, field for field
    _fields_ = [("element_offset", ctypes.c_uint64), ("threads", ctypes.c_uint32),
                ("stores", ctypes.c_int32), ("task_elements", ctypes.c_uint64),
                ("parallel_for", ctypes.c_void_p), ("parallel_for_context", ctypes.c_void_p),
                ("distribution", Distribution),
                ("region_global_sizes", ctypes.c_void_p), ("region_start", ctypes.c_void_p),
                ("order", ctypes.c_int32), ("gpu_sm_count", ctypes.c_int32),
                ("gpu_threads_per_sm", ctypes.c_int32)]


class TargetInfo(ctypes.Structure):  # randtensor_target_info
    _fields_ = [("name", ctypes.c_char_p), ("lanes", ctypes.c_int32),
                ("supported", ctypes.c_int32), ("active", ctypes.c_int32)]


class CapiTorch:
    """uniform_/normal_/bernoulli_(t, ..., generator=g) as randtensor.torch
    spells them, g a Generator of this class."""

    def __init__(self, library):
        self.lib = ctypes.CDLL(library)
        self.lib.randtensor_fill.restype = ctypes.c_int
        self.lib.randtensor_last_error.restype = ctypes.c_char_p
        info = TargetInfo()
        if self.lib.randtensor_get_active_target(ctypes.byref(info)) != 0:
            raise RuntimeError(self.lib.randtensor_last_error().decode())
        self.target = info.name.decode()

    class Generator:
        def __init__(self, seed=1):
            self.state = (ctypes.c_uint32 * 6)(0, 0, 0, 0, seed & 0xFFFFFFFF, seed >> 32)

    def _fill(self, t, kind, a, b, generator):
        assert t.is_contiguous() and t.device.type == "cpu"
        options = FillOptions()
        options.threads = torch.get_num_threads()  # as the adapter: torch's count
        options.distribution = Distribution(kind, a, b, 0, 0)
        sizes = (ctypes.c_int64 * 1)(t.numel())
        status = self.lib.randtensor_fill(
            ctypes.c_void_p(t.data_ptr()), ctypes.c_uint64(t.numel() * t.element_size()),
            ctypes.c_uint64(0), DTYPES[t.dtype], 1, sizes, None, generator.state,
            generator.state, ctypes.byref(options))
        if status != 0:
            raise RuntimeError(self.lib.randtensor_last_error().decode())
        return t

    def uniform_(self, t, low=0.0, high=1.0, *, generator):
        return self._fill(t, UNIFORM, low, high, generator)

    def normal_(self, t, mean=0.0, std=1.0, *, generator):
        return self._fill(t, NORMAL, mean, std, generator)

    def bernoulli_(self, t, p=0.5, *, generator):
        return self._fill(t, BERNOULLI, p, 0.0, generator)
