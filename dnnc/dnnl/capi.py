"""Raw ctypes bindings of the oneDNN 3.2 C API: the library, its constants, its prototypes.

The only module besides the object layer (dnnl.py) that touches ctypes. Nothing here checks
a status: the object layer wraps every function of SIGNATURES so that a failure raises.

- The library: ``$DNNC_ONEDNN_LIBRARY`` (a path) when set, else ``<sys.prefix>/lib/libdnnl.so.3``
  as the pinned ``onednn-cpu-gomp`` wheel installs it; its major version must be 3.
- Constants are spelled as in ``dnnl_types.h`` / ``dnnl_common_types.h``: one IntEnum per C
  enum (members named like the C enumerators, aliases included) and the ``DNNL_ARG_*`` macros.
  The enums were pasted from the headers once; test_capi_headers.py parses the real headers
  and fails on any missing, extra or different value.
- SIGNATURES is the one table of prototypes, written as the header declares them;
  ``prototype(name)`` turns an entry into a ctypes function with restype and argtypes set.
- The OpenMP runtime oneDNN runs on (the GNU OpenMP build takes its thread count from the
  calling thread's ``omp_set_num_threads``): ``openmp_function(name)`` finds the functions of
  OPENMP_SIGNATURES through libdnnl's own handle, so they are those of the very libgomp
  oneDNN is linked with, whatever other copy the process holds (torch bundles one).
"""

from __future__ import annotations

import ctypes
import os
import sys
from enum import IntEnum
from functools import cache
from pathlib import Path

LIBRARY_VARIABLE = "DNNC_ONEDNN_LIBRARY"
"""Environment variable: path of a libdnnl.so.3 to use instead of the installed wheel's."""

PINNED_PACKAGE = "onednn-cpu-gomp==2023.2.0"
"""The wheel that provides the library (oneDNN 3.2, GNU OpenMP runtime)."""

REQUIRED_MAJOR_VERSION = 3


class OneDnnLibraryError(RuntimeError):
    """libdnnl could not be loaded, or it is not a oneDNN 3 library."""


class dnnl_version_t(ctypes.Structure):
    _fields_ = [
        ("major", ctypes.c_int),
        ("minor", ctypes.c_int),
        ("patch", ctypes.c_int),
        ("hash", ctypes.c_char_p),
        ("cpu_runtime", ctypes.c_uint),
        ("gpu_runtime", ctypes.c_uint),
    ]


class dnnl_exec_arg_t(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_int), ("memory", ctypes.c_void_p)]


def library_path() -> Path:
    """Where the library is looked for: the environment variable, else the wheel's copy."""
    override = os.environ.get(LIBRARY_VARIABLE)
    if override:
        return Path(override)
    return Path(sys.prefix) / "lib" / "libdnnl.so.3"


@cache
def library() -> ctypes.CDLL:
    """The loaded libdnnl (once per process), its version checked."""
    path = library_path()
    try:
        handle = ctypes.CDLL(str(path))
    except OSError as error:
        raise OneDnnLibraryError(
            f"cannot load oneDNN from {path} ({error}); install {PINNED_PACKAGE} into this "
            f"Python environment or set {LIBRARY_VARIABLE} to the path of a libdnnl.so.3"
        ) from error
    get_version = handle.dnnl_version
    get_version.restype = ctypes.POINTER(dnnl_version_t)
    get_version.argtypes = []
    found = get_version().contents
    if found.major != REQUIRED_MAJOR_VERSION:
        raise OneDnnLibraryError(
            f"{path} is oneDNN {found.major}.{found.minor}.{found.patch}; dnnc needs oneDNN "
            f"{REQUIRED_MAJOR_VERSION}.x ({PINNED_PACKAGE}; or set {LIBRARY_VARIABLE})"
        )
    return handle


def version() -> tuple[int, int, int]:
    """(major, minor, patch) of the loaded library."""
    found = prototype("dnnl_version")().contents
    return found.major, found.minor, found.patch


def prototype(name: str) -> ctypes._NamedFuncPointer:
    """A fresh ctypes function object for an entry of SIGNATURES, restype and argtypes set.

    Fresh, so that a caller can give it an ``errcheck`` without affecting anyone else.
    """
    result, params = SIGNATURES[name]
    function = library()[name]
    function.restype = C_TYPES[result]
    argtypes = [C_TYPES[parameter_type(p)] for p in params]
    function.argtypes = [t for t in argtypes if t is not None]  # a parameter is never void
    return function


OPENMP_SIGNATURES: dict[str, tuple[type | None, list[type]]] = {
    "omp_get_max_threads": (ctypes.c_int, []),  # int omp_get_max_threads(void)
    "omp_set_num_threads": (None, [ctypes.c_int]),  # void omp_set_num_threads(int)
}
"""The OpenMP functions dnnc calls (omp.h): restype and argtypes."""


@cache
def openmp_function(name: str) -> ctypes._NamedFuncPointer:
    """A function of OPENMP_SIGNATURES, looked up through libdnnl's handle (dlsym searches a
    library's dependencies too: module docstring); an OneDnnLibraryError when the library
    runs on no OpenMP runtime."""
    result, params = OPENMP_SIGNATURES[name]
    try:
        function = library()[name]
    except AttributeError as error:
        raise OneDnnLibraryError(
            f"{library_path()} links no OpenMP runtime ({name} not found): dnnc needs the GNU "
            f"OpenMP build of oneDNN ({PINNED_PACKAGE})"
        ) from error
    function.restype = result
    function.argtypes = params
    return function


def parameter_type(declaration: str) -> str:
    """The type of a parameter declaration: ``'const int *perm'`` -> ``'const int *'``."""
    return declaration[: len(declaration) - len(parameter_name(declaration))].strip()


def parameter_name(declaration: str) -> str:
    """The name part of a parameter declaration: ``'dnnl_engine_t *engine'`` -> ``'engine'``."""
    return declaration.replace("*", " ").split()[-1]


# --- exec argument ids (dnnl_types.h) -----------------------------------------------------
DNNL_ARG_SRC_0: int = 1
DNNL_ARG_SRC: int = DNNL_ARG_SRC_0
DNNL_ARG_SRC_LAYER: int = DNNL_ARG_SRC_0
DNNL_ARG_FROM: int = DNNL_ARG_SRC_0
DNNL_ARG_SRC_1: int = 2
DNNL_ARG_SRC_ITER: int = DNNL_ARG_SRC_1
DNNL_ARG_SRC_2: int = 3
DNNL_ARG_SRC_ITER_C: int = DNNL_ARG_SRC_2
DNNL_ARG_SRC_3: int = 4
DNNL_ARG_AUGRU_ATTENTION: int = DNNL_ARG_SRC_3
DNNL_ARG_DST_0: int = 17
DNNL_ARG_DST: int = DNNL_ARG_DST_0
DNNL_ARG_TO: int = DNNL_ARG_DST_0
DNNL_ARG_DST_LAYER: int = DNNL_ARG_DST_0
DNNL_ARG_DST_1: int = 18
DNNL_ARG_DST_ITER: int = DNNL_ARG_DST_1
DNNL_ARG_DST_2: int = 19
DNNL_ARG_DST_ITER_C: int = DNNL_ARG_DST_2
DNNL_ARG_WEIGHTS_0: int = 33
DNNL_ARG_WEIGHTS: int = DNNL_ARG_WEIGHTS_0
DNNL_ARG_WEIGHTS_LAYER: int = DNNL_ARG_WEIGHTS_0
DNNL_ARG_WEIGHTS_1: int = 34
DNNL_ARG_WEIGHTS_ITER: int = DNNL_ARG_WEIGHTS_1
DNNL_ARG_WEIGHTS_2: int = 35
DNNL_ARG_WEIGHTS_PEEPHOLE: int = DNNL_ARG_WEIGHTS_2
DNNL_ARG_WEIGHTS_3: int = 36
DNNL_ARG_WEIGHTS_PROJECTION: int = DNNL_ARG_WEIGHTS_3
DNNL_ARG_BIAS: int = 41
DNNL_ARG_MEAN: int = 49
DNNL_ARG_VARIANCE: int = 50
DNNL_ARG_SCALE: int = 51
DNNL_ARG_SHIFT: int = 52
DNNL_ARG_WORKSPACE: int = 64
DNNL_ARG_SCRATCHPAD: int = 80
DNNL_ARG_DIFF_SRC_0: int = 129
DNNL_ARG_DIFF_SRC: int = DNNL_ARG_DIFF_SRC_0
DNNL_ARG_DIFF_SRC_LAYER: int = DNNL_ARG_DIFF_SRC_0
DNNL_ARG_DIFF_SRC_1: int = 130
DNNL_ARG_DIFF_SRC_ITER: int = DNNL_ARG_DIFF_SRC_1
DNNL_ARG_DIFF_SRC_2: int = 131
DNNL_ARG_DIFF_SRC_ITER_C: int = DNNL_ARG_DIFF_SRC_2
DNNL_ARG_DIFF_SRC_3: int = 132
DNNL_ARG_DIFF_AUGRU_ATTENTION: int = DNNL_ARG_DIFF_SRC_3
DNNL_ARG_DIFF_DST_0: int = 145
DNNL_ARG_DIFF_DST: int = DNNL_ARG_DIFF_DST_0
DNNL_ARG_DIFF_DST_LAYER: int = DNNL_ARG_DIFF_DST_0
DNNL_ARG_DIFF_DST_1: int = 146
DNNL_ARG_DIFF_DST_ITER: int = DNNL_ARG_DIFF_DST_1
DNNL_ARG_DIFF_DST_2: int = 147
DNNL_ARG_DIFF_DST_ITER_C: int = DNNL_ARG_DIFF_DST_2
DNNL_ARG_DIFF_WEIGHTS_0: int = 161
DNNL_ARG_DIFF_WEIGHTS: int = DNNL_ARG_DIFF_WEIGHTS_0
DNNL_ARG_DIFF_WEIGHTS_LAYER: int = DNNL_ARG_DIFF_WEIGHTS_0
DNNL_ARG_DIFF_WEIGHTS_1: int = 162
DNNL_ARG_DIFF_WEIGHTS_ITER: int = DNNL_ARG_DIFF_WEIGHTS_1
DNNL_ARG_DIFF_WEIGHTS_2: int = 163
DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE: int = DNNL_ARG_DIFF_WEIGHTS_2
DNNL_ARG_DIFF_WEIGHTS_3: int = 164
DNNL_ARG_DIFF_WEIGHTS_PROJECTION: int = DNNL_ARG_DIFF_WEIGHTS_3
DNNL_ARG_DIFF_BIAS: int = 169
DNNL_ARG_DIFF_SCALE: int = 255
DNNL_ARG_DIFF_SHIFT: int = 256
DNNL_ARG_ATTR_OUTPUT_SCALES: int = 513
DNNL_ARG_MULTIPLE_SRC: int = 1024
DNNL_ARG_MULTIPLE_DST: int = 2048
DNNL_ARG_ATTR_SCALES: int = 4096
DNNL_ARG_ATTR_ZERO_POINTS: int = 8192
DNNL_ARG_ATTR_POST_OP_DW: int = 16384
DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE: int = 32768
DNNL_MAX_NDIMS: int = 12
DNNL_RUNTIME_DIM_VAL: int = -(2**63)
"""INT64_MIN: a dimension (or stride) known only when the primitive runs (matmul)."""


def DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx: int) -> int:
    """Exec argument base of post-op ``idx`` (``| DNNL_ARG_SRC_1`` for a binary's operand)."""
    return DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE * (idx + 1)


# --- enums (dnnl_common_types.h, dnnl_types.h; dnnl_format_tag_t at the end of the file) ---


class dnnl_status_t(IntEnum):
    dnnl_success = 0
    dnnl_out_of_memory = 1
    dnnl_invalid_arguments = 2
    dnnl_unimplemented = 3
    dnnl_last_impl_reached = 4
    dnnl_runtime_error = 5
    dnnl_not_required = 6
    dnnl_invalid_graph = 7
    dnnl_invalid_graph_op = 8
    dnnl_invalid_shape = 9
    dnnl_invalid_data_type = 10


class dnnl_data_type_t(IntEnum):
    dnnl_data_type_undef = 0
    dnnl_f16 = 1
    dnnl_bf16 = 2
    dnnl_f32 = 3
    dnnl_s32 = 4
    dnnl_s8 = 5
    dnnl_u8 = 6
    dnnl_f64 = 7
    dnnl_boolean = 8
    dnnl_data_type_max = 32767


class dnnl_engine_kind_t(IntEnum):
    dnnl_any_engine = 0
    dnnl_cpu = 1
    dnnl_gpu = 2


class dnnl_stream_flags_t(IntEnum):
    dnnl_stream_in_order = 1
    dnnl_stream_out_of_order = 2
    dnnl_stream_default_flags = 1


class dnnl_fpmath_mode_t(IntEnum):
    dnnl_fpmath_mode_strict = 0
    dnnl_fpmath_mode_bf16 = 1
    dnnl_fpmath_mode_f16 = 2
    dnnl_fpmath_mode_any = 3
    dnnl_fpmath_mode_tf32 = 4


class dnnl_format_kind_t(IntEnum):
    dnnl_format_kind_undef = 0
    dnnl_format_kind_any = 1
    dnnl_blocked = 2
    dnnl_format_kind_opaque = 3
    dnnl_format_kind_sparse = 4
    dnnl_format_kind_max = 32767


class dnnl_prop_kind_t(IntEnum):
    dnnl_prop_kind_undef = 0
    dnnl_forward_training = 64
    dnnl_forward_inference = 96
    dnnl_forward = 64
    dnnl_backward = 128
    dnnl_backward_data = 160
    dnnl_backward_weights = 192
    dnnl_backward_bias = 193


class dnnl_primitive_kind_t(IntEnum):
    dnnl_undefined_primitive = 0
    dnnl_reorder = 1
    dnnl_shuffle = 2
    dnnl_concat = 3
    dnnl_sum = 4
    dnnl_convolution = 5
    dnnl_deconvolution = 6
    dnnl_eltwise = 7
    dnnl_lrn = 8
    dnnl_batch_normalization = 9
    dnnl_inner_product = 10
    dnnl_rnn = 11
    dnnl_gemm = 12
    dnnl_binary = 13
    dnnl_matmul = 14
    dnnl_resampling = 15
    dnnl_pooling = 16
    dnnl_reduction = 17
    dnnl_prelu = 18
    dnnl_softmax = 19
    dnnl_layer_normalization = 20
    dnnl_primitive_kind_max = 32767


class dnnl_alg_kind_t(IntEnum):
    dnnl_alg_kind_undef = 0x0
    dnnl_convolution_direct = 0x1
    dnnl_convolution_winograd = 0x2
    dnnl_convolution_auto = 0x3
    dnnl_deconvolution_direct = 0xA
    dnnl_deconvolution_winograd = 0xB
    dnnl_eltwise_relu = 0x20
    dnnl_eltwise_tanh = 0x21
    dnnl_eltwise_elu = 0x22
    dnnl_eltwise_square = 0x23
    dnnl_eltwise_abs = 0x24
    dnnl_eltwise_sqrt = 0x25
    dnnl_eltwise_linear = 0x26
    dnnl_eltwise_soft_relu = 0x27
    dnnl_eltwise_hardsigmoid = 0x28
    dnnl_eltwise_logistic = 0x29
    dnnl_eltwise_exp = 0x2A
    dnnl_eltwise_gelu_tanh = 0x2B
    dnnl_eltwise_swish = 0x2C
    dnnl_eltwise_log = 0x2D
    dnnl_eltwise_clip = 0x2E
    dnnl_eltwise_clip_v2 = 0x2F
    dnnl_eltwise_pow = 0x30
    dnnl_eltwise_gelu_erf = 0x31
    dnnl_eltwise_round = 0x32
    dnnl_eltwise_mish = 0x33
    dnnl_eltwise_hardswish = 0x34
    dnnl_eltwise_relu_use_dst_for_bwd = 0x100
    dnnl_eltwise_tanh_use_dst_for_bwd = 0x101
    dnnl_eltwise_elu_use_dst_for_bwd = 0x102
    dnnl_eltwise_sqrt_use_dst_for_bwd = 0x103
    dnnl_eltwise_logistic_use_dst_for_bwd = 0x104
    dnnl_eltwise_exp_use_dst_for_bwd = 0x105
    dnnl_eltwise_clip_v2_use_dst_for_bwd = 0x106
    dnnl_pooling_max = 0x1FF
    dnnl_pooling_avg_include_padding = 0x2FF
    dnnl_pooling_avg_exclude_padding = 0x3FF
    dnnl_lrn_across_channels = 0xAFF
    dnnl_lrn_within_channel = 0xBFF
    dnnl_vanilla_rnn = 0x1FFF
    dnnl_vanilla_lstm = 0x2FFF
    dnnl_vanilla_gru = 0x3FFF
    dnnl_lbr_gru = 0x4FFF
    dnnl_vanilla_augru = 0x5FFF
    dnnl_lbr_augru = 0x6FFF
    dnnl_binary_add = 0x1FFF0
    dnnl_binary_mul = 0x1FFF1
    dnnl_binary_max = 0x1FFF2
    dnnl_binary_min = 0x1FFF3
    dnnl_binary_div = 0x1FFF4
    dnnl_binary_sub = 0x1FFF5
    dnnl_binary_ge = 0x1FFF6
    dnnl_binary_gt = 0x1FFF7
    dnnl_binary_le = 0x1FFF8
    dnnl_binary_lt = 0x1FFF9
    dnnl_binary_eq = 0x1FFFA
    dnnl_binary_ne = 0x1FFFB
    dnnl_resampling_nearest = 0x2FFF0
    dnnl_resampling_linear = 0x2FFF1
    dnnl_reduction_max = 0x2FFF2
    dnnl_reduction_min = 0x2FFF3
    dnnl_reduction_sum = 0x2FFF4
    dnnl_reduction_mul = 0x2FFF5
    dnnl_reduction_mean = 0x2FFF6
    dnnl_reduction_norm_lp_max = 0x2FFF7
    dnnl_reduction_norm_lp_sum = 0x2FFF8
    dnnl_reduction_norm_lp_power_p_max = 0x2FFF9
    dnnl_reduction_norm_lp_power_p_sum = 0x2FFFA
    dnnl_softmax_accurate = 0x30000
    dnnl_softmax_log = 0x30001


class dnnl_normalization_flags_t(IntEnum):
    dnnl_normalization_flags_none = 0x0
    dnnl_use_global_stats = 0x1
    dnnl_use_scale = 0x2
    dnnl_use_shift = 0x4
    dnnl_fuse_norm_relu = 0x8
    dnnl_fuse_norm_add_relu = 0x10


class dnnl_scratchpad_mode_t(IntEnum):
    dnnl_scratchpad_mode_library = 0
    dnnl_scratchpad_mode_user = 1


class dnnl_query_t(IntEnum):
    dnnl_query_undef = 0
    dnnl_query_engine = 1
    dnnl_query_primitive_kind = 2
    dnnl_query_num_of_inputs_s32 = 3
    dnnl_query_num_of_outputs_s32 = 4
    dnnl_query_time_estimate_f64 = 5
    dnnl_query_memory_consumption_s64 = 6
    dnnl_query_scratchpad_engine = 7
    dnnl_query_impl_info_str = 8
    dnnl_query_reorder_src_engine = 9
    dnnl_query_reorder_dst_engine = 10
    dnnl_query_prop_kind = 11
    dnnl_query_cache_blob_id_size_s64 = 12
    dnnl_query_cache_blob_id = 13
    dnnl_query_strides = 14
    dnnl_query_dilations = 15
    dnnl_query_padding_l = 16
    dnnl_query_padding_r = 17
    dnnl_query_epsilon_f32 = 18
    dnnl_query_flags = 19
    dnnl_query_alg_kind = 20
    dnnl_query_alpha_f32 = 21
    dnnl_query_beta_f32 = 22
    dnnl_query_axis_s32 = 23
    dnnl_query_local_size_s64 = 24
    dnnl_query_k_f32 = 25
    dnnl_query_p_f32 = 26
    dnnl_query_factors = 27
    dnnl_query_cell_kind = 28
    dnnl_query_direction = 29
    dnnl_query_activation_kind = 30
    dnnl_query_kernel = 31
    dnnl_query_group_size_s64 = 32
    dnnl_query_some_md = 128
    dnnl_query_src_md = 129
    dnnl_query_diff_src_md = 130
    dnnl_query_weights_md = 131
    dnnl_query_diff_weights_md = 132
    dnnl_query_dst_md = 133
    dnnl_query_diff_dst_md = 134
    dnnl_query_workspace_md = 135
    dnnl_query_scratchpad_md = 136
    dnnl_query_exec_arg_md = 255
    dnnl_query_ndims_s32 = 256
    dnnl_query_dims = 257
    dnnl_query_data_type = 258
    dnnl_query_submemory_offset_s64 = 259
    dnnl_query_padded_dims = 260
    dnnl_query_padded_offsets = 261
    dnnl_query_format_kind = 262
    dnnl_query_inner_nblks_s32 = 263
    dnnl_query_inner_blks = 264
    dnnl_query_inner_idxs = 265
    dnnl_query_sparse_encoding = 266
    dnnl_query_nnz_s64 = 267
    dnnl_query_num_handles_s32 = 268
    dnnl_query_max = 32767


class dnnl_cpu_isa_t(IntEnum):
    dnnl_cpu_isa_default = 0
    dnnl_cpu_isa_sse41 = 1
    dnnl_cpu_isa_avx = 3
    dnnl_cpu_isa_avx2 = 7
    dnnl_cpu_isa_avx2_vnni = 15
    dnnl_cpu_isa_avx2_vnni_2 = 31
    dnnl_cpu_isa_avx512_core = 39
    dnnl_cpu_isa_avx512_core_vnni = 103
    dnnl_cpu_isa_avx512_core_bf16 = 231
    dnnl_cpu_isa_avx512_core_fp16 = 495
    dnnl_cpu_isa_avx512_core_amx = 4079
    dnnl_cpu_isa_avx512_core_amx_fp16 = 8175


# --- the one table of prototypes -------------------------------------------------------------

_HANDLES = (
    "dnnl_engine_t",
    "dnnl_stream_t",
    "dnnl_memory_desc_t",
    "dnnl_memory_t",
    "dnnl_post_ops_t",
    "dnnl_primitive_attr_t",
    "dnnl_primitive_desc_t",
    "dnnl_primitive_t",
)

C_TYPES: dict[str, type | None] = {
    **{handle: ctypes.c_void_p for handle in _HANDLES},
    **{"const_" + handle: ctypes.c_void_p for handle in _HANDLES},
    **{handle + " *": ctypes.POINTER(ctypes.c_void_p) for handle in _HANDLES},
    "const_dnnl_primitive_attr_t *": ctypes.POINTER(ctypes.c_void_p),
    "const_dnnl_memory_desc_t const *": ctypes.POINTER(ctypes.c_void_p),
    "const dnnl_dims_t": ctypes.POINTER(ctypes.c_int64),
    "const dnnl_exec_arg_t *": ctypes.POINTER(dnnl_exec_arg_t),
    "const dnnl_version_t*": ctypes.POINTER(dnnl_version_t),
    "const float *": ctypes.POINTER(ctypes.c_float),
    "const int *": ctypes.POINTER(ctypes.c_int),
    "void *": ctypes.c_void_p,
    "void **": ctypes.POINTER(ctypes.c_void_p),
    "int": ctypes.c_int,
    "int32_t": ctypes.c_int32,
    "unsigned": ctypes.c_uint,
    "float": ctypes.c_float,
    "size_t": ctypes.c_size_t,
    "dnnl_dim_t": ctypes.c_int64,
}
"""Each C type spelling of SIGNATURES -> its ctypes type (enums added below ENUMS)."""

_CONVOLUTION_SIGNATURE = (
    "dnnl_status_t",
    (
        "dnnl_primitive_desc_t *primitive_desc",
        "dnnl_engine_t engine",
        "dnnl_prop_kind_t prop_kind",
        "dnnl_alg_kind_t alg_kind",
        "const_dnnl_memory_desc_t src_desc",
        "const_dnnl_memory_desc_t weights_desc",
        "const_dnnl_memory_desc_t bias_desc",
        "const_dnnl_memory_desc_t dst_desc",
        "const dnnl_dims_t strides",
        "const dnnl_dims_t dilates",
        "const dnnl_dims_t padding_l",
        "const dnnl_dims_t padding_r",
        "const_dnnl_primitive_attr_t attr",
    ),
)
"""convolution_forward's and deconvolution_forward's descriptor creation (one signature)."""

SIGNATURES: dict[str, tuple[str, tuple[str, ...]]] = {
    "dnnl_version": (
        "const dnnl_version_t*",
        (),
    ),
    "dnnl_set_primitive_cache_capacity": (
        "dnnl_status_t",
        ("int capacity",),
    ),
    "dnnl_engine_get_count": (
        "size_t",
        ("dnnl_engine_kind_t kind",),
    ),
    "dnnl_engine_create": (
        "dnnl_status_t",
        ("dnnl_engine_t *engine", "dnnl_engine_kind_t kind", "size_t index"),
    ),
    "dnnl_engine_destroy": (
        "dnnl_status_t",
        ("dnnl_engine_t engine",),
    ),
    "dnnl_stream_create": (
        "dnnl_status_t",
        ("dnnl_stream_t *stream", "dnnl_engine_t engine", "unsigned flags"),
    ),
    "dnnl_stream_wait": (
        "dnnl_status_t",
        ("dnnl_stream_t stream",),
    ),
    "dnnl_stream_destroy": (
        "dnnl_status_t",
        ("dnnl_stream_t stream",),
    ),
    "dnnl_memory_desc_create_with_tag": (
        "dnnl_status_t",
        (
            "dnnl_memory_desc_t *memory_desc",
            "int ndims",
            "const dnnl_dims_t dims",
            "dnnl_data_type_t data_type",
            "dnnl_format_tag_t tag",
        ),
    ),
    "dnnl_memory_desc_create_with_strides": (
        "dnnl_status_t",
        (
            "dnnl_memory_desc_t *memory_desc",
            "int ndims",
            "const dnnl_dims_t dims",
            "dnnl_data_type_t data_type",
            "const dnnl_dims_t strides",
        ),
    ),
    "dnnl_memory_desc_create_submemory": (
        "dnnl_status_t",
        (
            "dnnl_memory_desc_t *memory_desc",
            "const_dnnl_memory_desc_t parent_memory_desc",
            "const dnnl_dims_t dims",
            "const dnnl_dims_t offsets",
        ),
    ),
    "dnnl_memory_desc_reshape": (
        "dnnl_status_t",
        (
            "dnnl_memory_desc_t *out_memory_desc",
            "const_dnnl_memory_desc_t in_memory_desc",
            "int ndims",
            "const dnnl_dims_t dims",
        ),
    ),
    "dnnl_memory_desc_permute_axes": (
        "dnnl_status_t",
        (
            "dnnl_memory_desc_t *out_memory_desc",
            "const_dnnl_memory_desc_t in_memory_desc",
            "const int *permutation",
        ),
    ),
    "dnnl_memory_desc_clone": (
        "dnnl_status_t",
        ("dnnl_memory_desc_t *memory_desc", "const_dnnl_memory_desc_t existing_memory_desc"),
    ),
    "dnnl_memory_desc_destroy": (
        "dnnl_status_t",
        ("dnnl_memory_desc_t memory_desc",),
    ),
    "dnnl_memory_desc_query": (
        "dnnl_status_t",
        ("const_dnnl_memory_desc_t memory_desc", "dnnl_query_t what", "void *result"),
    ),
    "dnnl_memory_desc_equal": (
        "int",
        ("const_dnnl_memory_desc_t lhs", "const_dnnl_memory_desc_t rhs"),
    ),
    "dnnl_memory_desc_get_size": (
        "size_t",
        ("const_dnnl_memory_desc_t memory_desc",),
    ),
    "dnnl_memory_create": (
        "dnnl_status_t",
        (
            "dnnl_memory_t *memory",
            "const_dnnl_memory_desc_t memory_desc",
            "dnnl_engine_t engine",
            "void *handle",
        ),
    ),
    "dnnl_memory_destroy": (
        "dnnl_status_t",
        ("dnnl_memory_t memory",),
    ),
    "dnnl_memory_get_data_handle": (
        "dnnl_status_t",
        ("const_dnnl_memory_t memory", "void **handle"),
    ),
    "dnnl_memory_set_data_handle": (
        "dnnl_status_t",
        ("dnnl_memory_t memory", "void *handle"),
    ),
    "dnnl_primitive_attr_create": (
        "dnnl_status_t",
        ("dnnl_primitive_attr_t *attr",),
    ),
    "dnnl_primitive_attr_destroy": (
        "dnnl_status_t",
        ("dnnl_primitive_attr_t attr",),
    ),
    "dnnl_primitive_attr_set_post_ops": (
        "dnnl_status_t",
        ("dnnl_primitive_attr_t attr", "const_dnnl_post_ops_t post_ops"),
    ),
    "dnnl_primitive_attr_set_scales_mask": (
        "dnnl_status_t",
        ("dnnl_primitive_attr_t attr", "int arg", "int mask"),
    ),
    "dnnl_primitive_attr_set_zero_points_mask": (
        "dnnl_status_t",
        ("dnnl_primitive_attr_t attr", "int arg", "int mask"),
    ),
    "dnnl_primitive_attr_set_fpmath_mode": (
        "dnnl_status_t",
        ("dnnl_primitive_attr_t attr", "dnnl_fpmath_mode_t mode"),
    ),
    "dnnl_primitive_attr_set_scratchpad_mode": (
        "dnnl_status_t",
        ("dnnl_primitive_attr_t attr", "dnnl_scratchpad_mode_t mode"),
    ),
    "dnnl_post_ops_create": (
        "dnnl_status_t",
        ("dnnl_post_ops_t *post_ops",),
    ),
    "dnnl_post_ops_destroy": (
        "dnnl_status_t",
        ("dnnl_post_ops_t post_ops",),
    ),
    "dnnl_post_ops_len": (
        "int",
        ("const_dnnl_post_ops_t post_ops",),
    ),
    "dnnl_post_ops_append_eltwise": (
        "dnnl_status_t",
        ("dnnl_post_ops_t post_ops", "dnnl_alg_kind_t alg_kind", "float alpha", "float beta"),
    ),
    "dnnl_post_ops_append_binary": (
        "dnnl_status_t",
        (
            "dnnl_post_ops_t post_ops",
            "dnnl_alg_kind_t alg_kind",
            "const_dnnl_memory_desc_t src1_desc",
        ),
    ),
    "dnnl_post_ops_append_sum": (
        "dnnl_status_t",
        (
            "dnnl_post_ops_t post_ops",
            "float scale",
            "int32_t zero_point",
            "dnnl_data_type_t data_type",
        ),
    ),
    "dnnl_convolution_forward_primitive_desc_create": _CONVOLUTION_SIGNATURE,
    "dnnl_deconvolution_forward_primitive_desc_create": _CONVOLUTION_SIGNATURE,
    "dnnl_matmul_primitive_desc_create": (
        "dnnl_status_t",
        (
            "dnnl_primitive_desc_t *primitive_desc",
            "dnnl_engine_t engine",
            "const_dnnl_memory_desc_t src_desc",
            "const_dnnl_memory_desc_t weights_desc",
            "const_dnnl_memory_desc_t bias_desc",
            "const_dnnl_memory_desc_t dst_desc",
            "const_dnnl_primitive_attr_t attr",
        ),
    ),
    "dnnl_inner_product_forward_primitive_desc_create": (
        "dnnl_status_t",
        (
            "dnnl_primitive_desc_t *primitive_desc",
            "dnnl_engine_t engine",
            "dnnl_prop_kind_t prop_kind",
            "const_dnnl_memory_desc_t src_desc",
            "const_dnnl_memory_desc_t weights_desc",
            "const_dnnl_memory_desc_t bias_desc",
            "const_dnnl_memory_desc_t dst_desc",
            "const_dnnl_primitive_attr_t attr",
        ),
    ),
    "dnnl_eltwise_forward_primitive_desc_create": (
        "dnnl_status_t",
        (
            "dnnl_primitive_desc_t *primitive_desc",
            "dnnl_engine_t engine",
            "dnnl_prop_kind_t prop_kind",
            "dnnl_alg_kind_t alg_kind",
            "const_dnnl_memory_desc_t src_desc",
            "const_dnnl_memory_desc_t dst_desc",
            "float alpha",
            "float beta",
            "const_dnnl_primitive_attr_t attr",
        ),
    ),
    "dnnl_softmax_forward_primitive_desc_create": (
        "dnnl_status_t",
        (
            "dnnl_primitive_desc_t *primitive_desc",
            "dnnl_engine_t engine",
            "dnnl_prop_kind_t prop_kind",
            "dnnl_alg_kind_t alg_kind",
            "const_dnnl_memory_desc_t src_desc",
            "const_dnnl_memory_desc_t dst_desc",
            "int softmax_axis",
            "const_dnnl_primitive_attr_t attr",
        ),
    ),
    "dnnl_binary_primitive_desc_create": (
        "dnnl_status_t",
        (
            "dnnl_primitive_desc_t *primitive_desc",
            "dnnl_engine_t engine",
            "dnnl_alg_kind_t alg_kind",
            "const_dnnl_memory_desc_t src0_desc",
            "const_dnnl_memory_desc_t src1_desc",
            "const_dnnl_memory_desc_t dst_desc",
            "const_dnnl_primitive_attr_t attr",
        ),
    ),
    "dnnl_sum_primitive_desc_create": (
        "dnnl_status_t",
        (
            "dnnl_primitive_desc_t *sum_primitive_desc",
            "dnnl_engine_t engine",
            "const_dnnl_memory_desc_t dst_desc",
            "int n",
            "const float *scales",
            "const_dnnl_memory_desc_t const *src_descs",
            "const_dnnl_primitive_attr_t attr",
        ),
    ),
    "dnnl_concat_primitive_desc_create": (
        "dnnl_status_t",
        (
            "dnnl_primitive_desc_t *concat_primitive_desc",
            "dnnl_engine_t engine",
            "const_dnnl_memory_desc_t dst_desc",
            "int n",
            "int concat_dimension",
            "const_dnnl_memory_desc_t const *src_descs",
            "const_dnnl_primitive_attr_t attr",
        ),
    ),
    "dnnl_resampling_forward_primitive_desc_create": (
        "dnnl_status_t",
        (
            "dnnl_primitive_desc_t *primitive_desc",
            "dnnl_engine_t engine",
            "dnnl_prop_kind_t prop_kind",
            "dnnl_alg_kind_t alg_kind",
            "const float *factors",
            "const_dnnl_memory_desc_t src_desc",
            "const_dnnl_memory_desc_t dst_desc",
            "const_dnnl_primitive_attr_t attr",
        ),
    ),
    "dnnl_pooling_forward_primitive_desc_create": (
        "dnnl_status_t",
        (
            "dnnl_primitive_desc_t *primitive_desc",
            "dnnl_engine_t engine",
            "dnnl_prop_kind_t prop_kind",
            "dnnl_alg_kind_t alg_kind",
            "const_dnnl_memory_desc_t src_desc",
            "const_dnnl_memory_desc_t dst_desc",
            "const dnnl_dims_t strides",
            "const dnnl_dims_t kernel",
            "const dnnl_dims_t dilation",
            "const dnnl_dims_t padding_l",
            "const dnnl_dims_t padding_r",
            "const_dnnl_primitive_attr_t attr",
        ),
    ),
    "dnnl_batch_normalization_forward_primitive_desc_create": (
        "dnnl_status_t",
        (
            "dnnl_primitive_desc_t *primitive_desc",
            "dnnl_engine_t engine",
            "dnnl_prop_kind_t prop_kind",
            "const_dnnl_memory_desc_t src_desc",
            "const_dnnl_memory_desc_t dst_desc",
            "float epsilon",
            "unsigned flags",
            "const_dnnl_primitive_attr_t attr",
        ),
    ),
    "dnnl_layer_normalization_forward_primitive_desc_create": (
        "dnnl_status_t",
        (
            "dnnl_primitive_desc_t *primitive_desc",
            "dnnl_engine_t engine",
            "dnnl_prop_kind_t prop_kind",
            "const_dnnl_memory_desc_t src_desc",
            "const_dnnl_memory_desc_t dst_desc",
            "const_dnnl_memory_desc_t stat_desc",
            "float epsilon",
            "unsigned flags",
            "const_dnnl_primitive_attr_t attr",
        ),
    ),
    "dnnl_lrn_forward_primitive_desc_create": (
        "dnnl_status_t",
        (
            "dnnl_primitive_desc_t *primitive_desc",
            "dnnl_engine_t engine",
            "dnnl_prop_kind_t prop_kind",
            "dnnl_alg_kind_t alg_kind",
            "const_dnnl_memory_desc_t src_desc",
            "const_dnnl_memory_desc_t dst_desc",
            "dnnl_dim_t local_size",
            "float alpha",
            "float beta",
            "float k",
            "const_dnnl_primitive_attr_t attr",
        ),
    ),
    "dnnl_reduction_primitive_desc_create": (
        "dnnl_status_t",
        (
            "dnnl_primitive_desc_t *primitive_desc",
            "dnnl_engine_t engine",
            "dnnl_alg_kind_t alg_kind",
            "const_dnnl_memory_desc_t src_desc",
            "const_dnnl_memory_desc_t dst_desc",
            "float p",
            "float eps",
            "const_dnnl_primitive_attr_t attr",
        ),
    ),
    "dnnl_reorder_primitive_desc_create": (
        "dnnl_status_t",
        (
            "dnnl_primitive_desc_t *reorder_primitive_desc",
            "const_dnnl_memory_desc_t src_desc",
            "dnnl_engine_t src_engine",
            "const_dnnl_memory_desc_t dst_desc",
            "dnnl_engine_t dst_engine",
            "const_dnnl_primitive_attr_t attr",
        ),
    ),
    "dnnl_primitive_desc_query": (
        "dnnl_status_t",
        (
            "const_dnnl_primitive_desc_t primitive_desc",
            "dnnl_query_t what",
            "int index",
            "void *result",
        ),
    ),
    "dnnl_primitive_desc_query_md": (
        "const_dnnl_memory_desc_t",
        ("const_dnnl_primitive_desc_t primitive_desc", "dnnl_query_t what", "int index"),
    ),
    "dnnl_primitive_desc_next_impl": (
        "dnnl_status_t",
        ("dnnl_primitive_desc_t primitive_desc",),
    ),
    "dnnl_primitive_desc_clone": (
        "dnnl_status_t",
        (
            "dnnl_primitive_desc_t *primitive_desc",
            "const_dnnl_primitive_desc_t existing_primitive_desc",
        ),
    ),
    "dnnl_primitive_desc_destroy": (
        "dnnl_status_t",
        ("dnnl_primitive_desc_t primitive_desc",),
    ),
    "dnnl_primitive_desc_get_attr": (
        "dnnl_status_t",
        ("const_dnnl_primitive_desc_t primitive_desc", "const_dnnl_primitive_attr_t *attr"),
    ),
    "dnnl_primitive_create": (
        "dnnl_status_t",
        ("dnnl_primitive_t *primitive", "const_dnnl_primitive_desc_t primitive_desc"),
    ),
    "dnnl_primitive_execute": (
        "dnnl_status_t",
        (
            "const_dnnl_primitive_t primitive",
            "dnnl_stream_t stream",
            "int nargs",
            "const dnnl_exec_arg_t *args",
        ),
    ),
    "dnnl_primitive_destroy": (
        "dnnl_status_t",
        ("dnnl_primitive_t primitive",),
    ),
    "dnnl_get_effective_cpu_isa": (
        "dnnl_cpu_isa_t",
        (),
    ),
}
"""Function name -> (return type, parameter declarations), as the headers declare them."""


# --- dnnl_format_tag_t (dnnl_types.h): every tag and alias, pasted from the header ------------


class dnnl_format_tag_t(IntEnum):
    dnnl_format_tag_undef = 0
    dnnl_format_tag_any = 1
    dnnl_a = 2
    dnnl_ab = 3
    dnnl_abc = 4
    dnnl_abcd = 5
    dnnl_abcde = 6
    dnnl_abcdef = 7
    dnnl_abcdefg = 8
    dnnl_abcdefgh = 9
    dnnl_abcdefghi = 10
    dnnl_abcdefghij = 11
    dnnl_abcdefghijk = 12
    dnnl_abcdefghijkl = 13
    dnnl_ba = 14
    dnnl_acb = 15
    dnnl_bac = 16
    dnnl_bca = 17
    dnnl_cab = 18
    dnnl_cba = 19
    dnnl_abdc = 20
    dnnl_acbd = 21
    dnnl_acdb = 22
    dnnl_adbc = 23
    dnnl_adcb = 24
    dnnl_bacd = 25
    dnnl_bcda = 26
    dnnl_cdab = 27
    dnnl_cdba = 28
    dnnl_dcab = 29
    dnnl_abced = 30
    dnnl_abdec = 31
    dnnl_acbde = 32
    dnnl_acdeb = 33
    dnnl_adecb = 34
    dnnl_bacde = 35
    dnnl_bcdea = 36
    dnnl_cdeab = 37
    dnnl_cdeba = 38
    dnnl_decab = 39
    dnnl_abcdfe = 40
    dnnl_abdefc = 41
    dnnl_abdfce = 42
    dnnl_acbdef = 43
    dnnl_adefcb = 44
    dnnl_defcab = 45
    dnnl_abcdegf = 46
    dnnl_abcdefhg = 47
    dnnl_abcdefgih = 48
    dnnl_abcdefghji = 49
    dnnl_abcdefghikj = 50
    dnnl_abcdefghijlk = 51
    dnnl_Abc16a = 52
    dnnl_ABc16a16b = 53
    dnnl_ABc32a32b = 54
    dnnl_ABc4a4b = 55
    dnnl_aBc16b = 56
    dnnl_ABc16b16a = 57
    dnnl_Abc4a = 58
    dnnl_aBc32b = 59
    dnnl_aBc4b = 60
    dnnl_ABc4b16a4b = 61
    dnnl_ABc2b8a4b = 62
    dnnl_ABc16b16a4b = 63
    dnnl_ABc16b16a2b = 64
    dnnl_ABc4b4a = 65
    dnnl_ABc8a16b2a = 66
    dnnl_ABc8a8b = 67
    dnnl_ABc8a4b = 68
    dnnl_aBc8b = 69
    dnnl_ABc8b16a2b = 70
    dnnl_BAc8a16b2a = 71
    dnnl_ABc8b8a = 72
    dnnl_Abcd16a = 73
    dnnl_Abcd8a = 74
    dnnl_ABcd16a16b = 75
    dnnl_Abcd32a = 76
    dnnl_ABcd32a32b = 77
    dnnl_aBcd16b = 78
    dnnl_ABcd16b16a = 79
    dnnl_aBCd16b16c = 80
    dnnl_aBCd16c16b = 81
    dnnl_Abcd4a = 82
    dnnl_aBcd32b = 83
    dnnl_aBcd4b = 84
    dnnl_ABcd4b16a4b = 85
    dnnl_ABcd16b16a4b = 86
    dnnl_ABcd16b16a2b = 87
    dnnl_ABcd4b4a = 88
    dnnl_ABcd4a4b = 89
    dnnl_aBCd2c4b2c = 90
    dnnl_aBCd4b8c2b = 91
    dnnl_aBCd4c16b4c = 92
    dnnl_aBCd2c8b4c = 93
    dnnl_aBCd16c16b4c = 94
    dnnl_aBCd16c16b2c = 95
    dnnl_aBCd4c4b = 96
    dnnl_aBCd4b4c = 97
    dnnl_ABcd8a16b2a = 98
    dnnl_ABcd2b8a4b = 99
    dnnl_ABcd8a8b = 100
    dnnl_ABcd8a4b = 101
    dnnl_aBcd8b = 102
    dnnl_aBCd4c8b2c = 103
    dnnl_ABcd8b16a2b = 104
    dnnl_aBCd8b16c2b = 105
    dnnl_BAcd8a16b2a = 106
    dnnl_ABcd8b8a = 107
    dnnl_aBCd8b8c = 108
    dnnl_aBCd8b4c = 109
    dnnl_aBCd8c16b2c = 110
    dnnl_ABcde8a16b2a = 111
    dnnl_aCBd8b16c2b = 112
    dnnl_aBCd8c8b = 113
    dnnl_Abcde16a = 114
    dnnl_Abcde32a = 115
    dnnl_ABcde16a16b = 116
    dnnl_BAcde8a16b2a = 117
    dnnl_aBCd2b4c2b = 118
    dnnl_ABcde4b16a4b = 119
    dnnl_ABcde2b8a4b = 120
    dnnl_aBcde16b = 121
    dnnl_ABcde16b16a = 122
    dnnl_aBCde16b16c = 123
    dnnl_aBCde16c16b = 124
    dnnl_aBCde2c8b4c = 125
    dnnl_Abcde4a = 126
    dnnl_aBcde32b = 127
    dnnl_aBcde4b = 128
    dnnl_ABcde4b4a = 129
    dnnl_ABcde4a4b = 130
    dnnl_aBCde4b4c = 131
    dnnl_aBCde2c4b2c = 132
    dnnl_aBCde4b8c2b = 133
    dnnl_aBCde4c16b4c = 134
    dnnl_aBCde16c16b4c = 135
    dnnl_aBCde16c16b2c = 136
    dnnl_aBCde4c4b = 137
    dnnl_Abcde8a = 138
    dnnl_ABcde8a8b = 139
    dnnl_ABcde8a4b = 140
    dnnl_BAcde16b16a = 141
    dnnl_aBcde8b = 142
    dnnl_ABcde8b16a2b = 143
    dnnl_aBCde8b16c2b = 144
    dnnl_aBCde4c8b2c = 145
    dnnl_aCBde8b16c2b = 146
    dnnl_ABcde8b8a = 147
    dnnl_ABcde32a32b = 148
    dnnl_aBCde8b8c = 149
    dnnl_aBCde8b4c = 150
    dnnl_ABc4a8b8a4b = 151
    dnnl_ABcd4a8b8a4b = 152
    dnnl_ABcde4a8b8a4b = 153
    dnnl_BAc4b8a8b4a = 154
    dnnl_BAcd4b8a8b4a = 155
    dnnl_BAcde4b8a8b4a = 156
    dnnl_ABcd2a8b8a2b = 157
    dnnl_aBCd4b8c8b4c = 158
    dnnl_aBCde4b8c8b4c = 159
    dnnl_aBCde2b8c8b2c = 160
    dnnl_aBCde8c16b2c = 161
    dnnl_aBCde8c8b = 162
    dnnl_aBCde2b4c2b = 163
    dnnl_aBcdef16b = 164
    dnnl_aBCdef16b16c = 165
    dnnl_aBCdef16c16b = 166
    dnnl_aBCdef4c16b4c = 167
    dnnl_aBCdef2c8b4c = 168
    dnnl_aBCdef4c8b2c = 169
    dnnl_aBCdef2b4c2b = 170
    dnnl_aBcdef4b = 171
    dnnl_aBCdef4c4b = 172
    dnnl_aBCdef4b4c = 173
    dnnl_aBCdef2c4b2c = 174
    dnnl_aBCdef4b8c2b = 175
    dnnl_aBCdef8b8c = 176
    dnnl_aBCdef8b4c = 177
    dnnl_aBCdef8c16b2c = 178
    dnnl_aBCdef4b8c8b4c = 179
    dnnl_aBCdef8b16c2b = 180
    dnnl_aCBdef8b16c2b = 181
    dnnl_aBCdef8c8b = 182
    dnnl_aBdc16b = 183
    dnnl_aBdC16b2c = 184
    dnnl_aBdC16b4c = 185
    dnnl_aBdc4b = 186
    dnnl_aBdc8b = 187
    dnnl_aBdec16b = 188
    dnnl_aBdeC16b2c = 189
    dnnl_aBdeC16b4c = 190
    dnnl_aBdec32b = 191
    dnnl_aBdec4b = 192
    dnnl_aBdec8b = 193
    dnnl_aBdefc16b = 194
    dnnl_aBdefC16b2c = 195
    dnnl_aCBdef16c16b = 196
    dnnl_aBdefc4b = 197
    dnnl_aBdefc8b = 198
    dnnl_Abcdef16a = 199
    dnnl_Abcdef32a = 200
    dnnl_aBedc16b = 201
    dnnl_Acb16a = 202
    dnnl_AcB16a2b = 203
    dnnl_AcB16a4b = 204
    dnnl_Acb4a = 205
    dnnl_Acb8a = 206
    dnnl_aCBd16b16c = 207
    dnnl_aCBd16c16b = 208
    dnnl_aCBde16b16c = 209
    dnnl_aCBde16c16b = 210
    dnnl_Acdb16a = 211
    dnnl_AcdB16a2b = 212
    dnnl_AcdB16a4b = 213
    dnnl_Acdb32a = 214
    dnnl_Acdb4a = 215
    dnnl_Acdb8a = 216
    dnnl_Acdeb16a = 217
    dnnl_AcdeB16a2b = 218
    dnnl_Acdeb4a = 219
    dnnl_Acdeb8a = 220
    dnnl_Adcb16a = 221
    dnnl_BAc16a16b = 222
    dnnl_BAc16b16a = 223
    dnnl_BAcd16a16b = 224
    dnnl_BAcd16b16a = 225
    dnnl_aCBd4c8b8c4b = 226
    dnnl_aCBde4c8b8c4b = 227
    dnnl_aCBdef4c8b8c4b = 228
    dnnl_BAcde16a16b = 229
    dnnl_aCBdef16b16c = 230
    dnnl_ABc16b32a = 231
    dnnl_ABc16b64a = 232
    dnnl_ABc4b32a4b = 233
    dnnl_ABc4b64a4b = 234
    dnnl_ABc8b32a2b = 235
    dnnl_ABc8b64a2b = 236
    dnnl_AB16b16a = 237
    dnnl_AB16b32a = 238
    dnnl_AB16b64a = 239
    dnnl_AB8b16a2b = 240
    dnnl_AB8b32a2b = 241
    dnnl_AB8b64a2b = 242
    dnnl_AB4b16a4b = 243
    dnnl_AB4b32a4b = 244
    dnnl_AB4b64a4b = 245
    dnnl_AB16b16a4b = 246
    dnnl_ABcd16b32a = 247
    dnnl_ABcd16b64a = 248
    dnnl_ABcd4b32a4b = 249
    dnnl_ABcd4b64a4b = 250
    dnnl_ABcd8b32a2b = 251
    dnnl_ABcd8b64a2b = 252
    dnnl_ABcde4b32a4b = 253
    dnnl_ABcde4b64a4b = 254
    dnnl_ABcde16b16a4b = 255
    dnnl_ABcde16b16a2b = 256
    dnnl_ABcde16b32a = 257
    dnnl_ABcde16b64a = 258
    dnnl_ABcde8b32a2b = 259
    dnnl_ABcde8b64a2b = 260
    dnnl_aBCdef16c16b4c = 261
    dnnl_aBCdef16c16b2c = 262
    dnnl_AB32a32b8a4b = 263
    dnnl_AB8a4b = 264
    dnnl_AB32a32b8a2b = 265
    dnnl_AB8a2b = 266
    dnnl_abDc32d = 267
    dnnl_abDC32d4c = 268
    dnnl_abdEc32e = 269
    dnnl_abdEC32e2c = 270
    dnnl_abdEC32e4c = 271
    dnnl_aBdefC16b4c = 272
    dnnl_AcdeB16a4b = 273
    dnnl_ABcd16a16b2a = 274
    dnnl_ABc16a16b2a = 275
    dnnl_aBCd16b16c2b = 276
    dnnl_aBCde16b16c2b = 277
    dnnl_Acb32a = 278
    dnnl_AcB32a2b = 279
    dnnl_AcB32a4b = 280
    dnnl_Acb48a = 281
    dnnl_AcB48a2b = 282
    dnnl_AcB48a4b = 283
    dnnl_Acb64a = 284
    dnnl_AcB64a2b = 285
    dnnl_AcB64a4b = 286
    dnnl_cBa2b = 287
    dnnl_cBa4b = 288
    dnnl_aBdc32b = 289
    dnnl_aBdC32b2c = 290
    dnnl_aBdC32b4c = 291
    dnnl_aBdc48b = 292
    dnnl_aBdC48b2c = 293
    dnnl_aBdC48b4c = 294
    dnnl_aBdc64b = 295
    dnnl_aBdC64b2c = 296
    dnnl_aBdC64b4c = 297
    dnnl_adCb2c = 298
    dnnl_adCb4c = 299
    dnnl_AcdB32a2b = 300
    dnnl_AcdB32a4b = 301
    dnnl_Acdb48a = 302
    dnnl_AcdB48a2b = 303
    dnnl_AcdB48a4b = 304
    dnnl_Acdb64a = 305
    dnnl_AcdB64a2b = 306
    dnnl_AcdB64a4b = 307
    dnnl_cdBa2b = 308
    dnnl_cdBa4b = 309
    dnnl_aBdeC32b2c = 310
    dnnl_aBdeC32b4c = 311
    dnnl_aBdec48b = 312
    dnnl_aBdeC48b2c = 313
    dnnl_aBdeC48b4c = 314
    dnnl_aBdec64b = 315
    dnnl_aBdeC64b2c = 316
    dnnl_aBdeC64b4c = 317
    dnnl_adeCb2c = 318
    dnnl_adeCb4c = 319
    dnnl_Acdeb32a = 320
    dnnl_AcdeB32a2b = 321
    dnnl_AcdeB32a4b = 322
    dnnl_Acdeb48a = 323
    dnnl_AcdeB48a2b = 324
    dnnl_AcdeB48a4b = 325
    dnnl_Acdeb64a = 326
    dnnl_AcdeB64a2b = 327
    dnnl_AcdeB64a4b = 328
    dnnl_cdeBa2b = 329
    dnnl_cdeBa4b = 330
    dnnl_aBdefc32b = 331
    dnnl_aBdefC32b2c = 332
    dnnl_aBdefC32b4c = 333
    dnnl_aBdefc48b = 334
    dnnl_aBdefC48b2c = 335
    dnnl_aBdefC48b4c = 336
    dnnl_aBdefc64b = 337
    dnnl_aBdefC64b2c = 338
    dnnl_aBdefC64b4c = 339
    dnnl_adefCb2c = 340
    dnnl_adefCb4c = 341
    dnnl_AB16b32a4b = 342
    dnnl_AB16b48a4b = 343
    dnnl_AB16b64a4b = 344
    dnnl_AB16b16a2b = 345
    dnnl_AB16b32a2b = 346
    dnnl_AB16b48a2b = 347
    dnnl_AB16b64a2b = 348
    dnnl_ABc16b32a4b = 349
    dnnl_ABc16b48a4b = 350
    dnnl_ABc16b64a4b = 351
    dnnl_ABc16b32a2b = 352
    dnnl_ABc16b48a2b = 353
    dnnl_ABc16b64a2b = 354
    dnnl_ABcd16b32a4b = 355
    dnnl_ABcd16b48a4b = 356
    dnnl_ABcd16b64a4b = 357
    dnnl_ABcd16b32a2b = 358
    dnnl_ABcd16b48a2b = 359
    dnnl_ABcd16b64a2b = 360
    dnnl_ABcde16b32a4b = 361
    dnnl_ABcde16b48a4b = 362
    dnnl_ABcde16b64a4b = 363
    dnnl_ABcde16b32a2b = 364
    dnnl_ABcde16b48a2b = 365
    dnnl_ABcde16b64a2b = 366
    dnnl_ABc32a16b = 367
    dnnl_ABcd32a16b = 368
    dnnl_ABcde32a16b = 369
    dnnl_AB48a16b = 370
    dnnl_AB48a32b = 371
    dnnl_ABc40a16b = 372
    dnnl_ABc40a32b = 373
    dnnl_aBC48b16c = 374
    dnnl_aBC48b32c = 375
    dnnl_ABcd40a16b = 376
    dnnl_ABcd40a32b = 377
    dnnl_abCd32c = 378
    dnnl_abdCe32c = 379
    dnnl_abdCE32c2e = 380
    dnnl_BA16a16b2a = 381
    dnnl_BA16a32b2a = 382
    dnnl_BA16a48b2a = 383
    dnnl_BA16a64b2a = 384
    dnnl_BA16a16b4a = 385
    dnnl_BA16a32b4a = 386
    dnnl_BA16a48b4a = 387
    dnnl_BA16a64b4a = 388
    dnnl_ABcd8a2b = 389
    dnnl_aBdeC16c16b2c = 390
    dnnl_aBdeC16c16b4c = 391
    dnnl_aBdefC16c16b2c = 392
    dnnl_AcB16b16a2b = 393
    dnnl_AcB16b16a4b = 394
    dnnl_AcdB16b16a2b = 395
    dnnl_AcdB16b16a4b = 396
    dnnl_AcdeB16b16a2b = 397
    dnnl_aBdefC16c16b4c = 398
    dnnl_AcdeB16b16a4b = 399
    dnnl_AcB16b32a2b = 400
    dnnl_AcB16b32a4b = 401
    dnnl_AcB16b48a2b = 402
    dnnl_AcB16b48a4b = 403
    dnnl_AcB16b64a2b = 404
    dnnl_AcB16b64a4b = 405
    dnnl_aBdC16c16b2c = 406
    dnnl_aBdC16c16b4c = 407
    dnnl_aBdC16c32b2c = 408
    dnnl_aBdC16c32b4c = 409
    dnnl_aBdC16c48b2c = 410
    dnnl_aBdC16c48b4c = 411
    dnnl_aBdC16c64b2c = 412
    dnnl_aBdC16c64b4c = 413
    dnnl_AcdB16b32a2b = 414
    dnnl_AcdB16b32a4b = 415
    dnnl_AcdB16b48a2b = 416
    dnnl_AcdB16b48a4b = 417
    dnnl_AcdB16b64a2b = 418
    dnnl_AcdB16b64a4b = 419
    dnnl_aBdeC16c32b2c = 420
    dnnl_aBdeC16c32b4c = 421
    dnnl_aBdeC16c48b2c = 422
    dnnl_aBdeC16c48b4c = 423
    dnnl_aBdeC16c64b2c = 424
    dnnl_aBdeC16c64b4c = 425
    dnnl_AcdeB16b32a2b = 426
    dnnl_AcdeB16b32a4b = 427
    dnnl_AcdeB16b48a2b = 428
    dnnl_AcdeB16b48a4b = 429
    dnnl_AcdeB16b64a2b = 430
    dnnl_AcdeB16b64a4b = 431
    dnnl_aBdefC16c32b2c = 432
    dnnl_aBdefC16c32b4c = 433
    dnnl_aBdefC16c48b2c = 434
    dnnl_aBdefC16c48b4c = 435
    dnnl_aBdefC16c64b2c = 436
    dnnl_aBdefC16c64b4c = 437
    dnnl_decbA16a = 438
    dnnl_ABc4a2b = 439
    dnnl_ABc8a2b = 440
    dnnl_aBCd8b2c = 441
    dnnl_ABcde4a2b = 442
    dnnl_ABcde8a2b = 443
    dnnl_ABcde40a16b = 444
    dnnl_ABcde40a32b = 445
    dnnl_aBCde8b2c = 446
    dnnl_ABcde4a8b8a2b = 447
    dnnl_ABcd4a8b8a2b = 448
    dnnl_ABc4a8b8a2b = 449
    dnnl_aBCdef4b8c8b2c = 450
    dnnl_aBCde4b8c8b2c = 451
    dnnl_aBCd4b8c8b2c = 452
    dnnl_BAcde4b8a8b2a = 453
    dnnl_BAcd4b8a8b2a = 454
    dnnl_BAc4b8a8b2a = 455
    dnnl_aCBdef4c8b8c2b = 456
    dnnl_aCBde4c8b8c2b = 457
    dnnl_aCBd4c8b8c2b = 458
    dnnl_aBCdef8b2c = 459
    dnnl_AB32a16b = 460
    dnnl_AB32a32b = 461
    dnnl_BA4b8a8b2a = 462
    dnnl_BA4b8a8b4a = 463
    dnnl_aBC32b16c = 464
    dnnl_aBC32b32c = 465
    dnnl_aCB4c8b8c2b = 466
    dnnl_aCB4c8b8c4b = 467
    dnnl_ABcd4a2b = 468
    dnnl_ABc2b8a16b4a = 469
    dnnl_ABcd2b8a16b4a = 470
    dnnl_ABcde2b8a16b4a = 471
    dnnl_ABc2a8b16a4b = 472
    dnnl_ABc2a8b16a2b = 473
    dnnl_ABc2b32a8b = 474
    dnnl_ABcd2a8b16a4b = 475
    dnnl_ABcd2a8b16a2b = 476
    dnnl_aCBd2c8b16c2b = 477
    dnnl_ABcd2b32a8b = 478
    dnnl_aBCd2c8b16c2b = 479
    dnnl_ABcde2a8b16a4b = 480
    dnnl_ABcde2a8b16a2b = 481
    dnnl_aCBde2c8b16c2b = 482
    dnnl_ABcde2b32a8b = 483
    dnnl_aBC2b8c16b2c = 484
    dnnl_aBCd2b8c16b2c = 485
    dnnl_aBCde2b8c16b2c = 486
    dnnl_aBCdef2b8c16b2c = 487
    dnnl_BAcde2b8a16b4a = 488
    dnnl_BAcd2b8a16b4a = 489
    dnnl_BAc2b8a16b4a = 490
    dnnl_BAcde2b8a16b2a = 491
    dnnl_BAcd2b8a16b2a = 492
    dnnl_BAc2b8a16b2a = 493
    dnnl_aBCde2c8b16c2b = 494
    dnnl_aBCdef2c8b16c2b = 495
    dnnl_aCBdef2c8b16c2b = 496
    dnnl_aBCd2b8c16b4c = 497
    dnnl_aBCde2b8c16b4c = 498
    dnnl_BA4b8a16b2a = 499
    dnnl_BA4b8a16b4a = 500
    dnnl_aCB4c8b16c2b = 501
    dnnl_aCB4c8b16c4b = 502
    dnnl_BA16a16b = 503
    dnnl_BA16a32b = 504
    dnnl_BA16a48b = 505
    dnnl_BA16a64b = 506
    dnnl_aCB16c2b = 507
    dnnl_aCB16c4b = 508
    dnnl_BA16b2a = 509
    dnnl_BA16b4a = 510
    dnnl_aBC16b16c = 511
    dnnl_aBC16b32c = 512
    dnnl_AB16a16b = 513
    dnnl_AB16a32b = 514
    dnnl_ABcde16a16b2a = 515
    dnnl_aBCdef16b16c2b = 516
    dnnl_Acedb16a = 517
    dnnl_aBdfec16b = 518
    dnnl_abdEC64e2c = 519
    dnnl_abdEC64e4c = 520
    dnnl_aCB16b16c = 521
    dnnl_aCB16b32c = 522
    dnnl_aCB16b48c = 523
    dnnl_aCB16b64c = 524
    dnnl_aCB16b16c2b = 525
    dnnl_aCB16b32c2b = 526
    dnnl_aCB16b48c2b = 527
    dnnl_aCB16b64c2b = 528
    dnnl_aCB16b16c4b = 529
    dnnl_aCB16b32c4b = 530
    dnnl_aCB16b48c4b = 531
    dnnl_aCB16b64c4b = 532
    dnnl_abCd4c = 533
    dnnl_abCde4c = 534
    dnnl_abCdef4c = 535
    dnnl_abCde32c = 536
    dnnl_abCdef32c = 537
    dnnl_ABcd16a32b = 538
    dnnl_decbA8a = 539
    dnnl_aCdefB16b32c2b = 540
    dnnl_aCdefB16b32c4b = 541
    dnnl_aCdefB16b48c2b = 542
    dnnl_aCdefB16b48c4b = 543
    dnnl_aCdefB16b64c2b = 544
    dnnl_aCdefB16b64c4b = 545
    dnnl_BcdeA16a32b2a = 546
    dnnl_BcdeA16a32b4a = 547
    dnnl_BcdeA16a48b2a = 548
    dnnl_BcdeA16a48b4a = 549
    dnnl_BcdeA16a64b2a = 550
    dnnl_BcdeA16a64b4a = 551
    dnnl_aCdefb32c = 552
    dnnl_aCdefB32c2b = 553
    dnnl_aCdefB32c4b = 554
    dnnl_aCdefb48c = 555
    dnnl_aCdefB48c2b = 556
    dnnl_aCdefB48c4b = 557
    dnnl_aCdefb64c = 558
    dnnl_aCdefB64c2b = 559
    dnnl_aCdefB64c4b = 560
    dnnl_Bcdea32b = 561
    dnnl_BcdeA32b2a = 562
    dnnl_BcdeA32b4a = 563
    dnnl_Bcdea48b = 564
    dnnl_BcdeA48b2a = 565
    dnnl_BcdeA48b4a = 566
    dnnl_Bcdea64b = 567
    dnnl_BcdeA64b2a = 568
    dnnl_BcdeA64b4a = 569
    dnnl_Bca32b = 570
    dnnl_BcA32b2a = 571
    dnnl_BcA32b4a = 572
    dnnl_Bca48b = 573
    dnnl_BcA48b2a = 574
    dnnl_BcA48b4a = 575
    dnnl_Bca64b = 576
    dnnl_BcA64b2a = 577
    dnnl_BcA64b4a = 578
    dnnl_aCdb32c = 579
    dnnl_aCdB32c2b = 580
    dnnl_aCdB32c4b = 581
    dnnl_aCdb48c = 582
    dnnl_aCdB48c2b = 583
    dnnl_aCdB48c4b = 584
    dnnl_aCdb64c = 585
    dnnl_aCdB64c2b = 586
    dnnl_aCdB64c4b = 587
    dnnl_BcA16a16b2a = 588
    dnnl_BcA16a16b4a = 589
    dnnl_BcdA16a16b2a = 590
    dnnl_BcdA16a16b4a = 591
    dnnl_BcdeA16a16b2a = 592
    dnnl_BcdeA16a16b4a = 593
    dnnl_aCdB16b16c2b = 594
    dnnl_aCdB16b16c4b = 595
    dnnl_aCdeB16b16c2b = 596
    dnnl_aCdeB16b16c4b = 597
    dnnl_aCdefB16b16c2b = 598
    dnnl_aCdefB16b16c4b = 599
    dnnl_BcA16a32b2a = 600
    dnnl_BcA16a32b4a = 601
    dnnl_BcA16a48b2a = 602
    dnnl_BcA16a48b4a = 603
    dnnl_BcA16a64b2a = 604
    dnnl_BcA16a64b4a = 605
    dnnl_aCdB16b32c2b = 606
    dnnl_aCdB16b32c4b = 607
    dnnl_aCdB16b48c2b = 608
    dnnl_aCdB16b48c4b = 609
    dnnl_aCdB16b64c2b = 610
    dnnl_aCdB16b64c4b = 611
    dnnl_BcdA16a32b2a = 612
    dnnl_BcdA16a32b4a = 613
    dnnl_BcdA16a48b2a = 614
    dnnl_BcdA16a48b4a = 615
    dnnl_BcdA16a64b2a = 616
    dnnl_BcdA16a64b4a = 617
    dnnl_aCdeB16b32c2b = 618
    dnnl_aCdeB16b32c4b = 619
    dnnl_aCdeB16b48c2b = 620
    dnnl_aCdeB16b48c4b = 621
    dnnl_aCdeB16b64c2b = 622
    dnnl_aCdeB16b64c4b = 623
    dnnl_Bca16b = 624
    dnnl_BcA16b2a = 625
    dnnl_BcA16b4a = 626
    dnnl_Bcda16b = 627
    dnnl_BcdA16b2a = 628
    dnnl_BcdA16b4a = 629
    dnnl_Bcdea16b = 630
    dnnl_BcdeA16b2a = 631
    dnnl_BcdeA16b4a = 632
    dnnl_aCdb16c = 633
    dnnl_aCdB16c2b = 634
    dnnl_aCdB16c4b = 635
    dnnl_aCdeb16c = 636
    dnnl_aCdeB16c2b = 637
    dnnl_aCdeB16c4b = 638
    dnnl_aCdefb16c = 639
    dnnl_aCdefB16c2b = 640
    dnnl_aCdefB16c4b = 641
    dnnl_Bcda32b = 642
    dnnl_BcdA32b2a = 643
    dnnl_BcdA32b4a = 644
    dnnl_Bcda48b = 645
    dnnl_BcdA48b2a = 646
    dnnl_BcdA48b4a = 647
    dnnl_Bcda64b = 648
    dnnl_BcdA64b2a = 649
    dnnl_BcdA64b4a = 650
    dnnl_aCdeb32c = 651
    dnnl_aCdeB32c2b = 652
    dnnl_aCdeB32c4b = 653
    dnnl_aCdeb48c = 654
    dnnl_aCdeB48c2b = 655
    dnnl_aCdeB48c4b = 656
    dnnl_aCdeb64c = 657
    dnnl_aCdeB64c2b = 658
    dnnl_aCdeB64c4b = 659
    dnnl_Acb24a = 660
    dnnl_Acdb24a = 661
    dnnl_Acdeb24a = 662
    dnnl_aBdc24b = 663
    dnnl_aBdec24b = 664
    dnnl_aBdefc24b = 665
    dnnl_abDc16d = 666
    dnnl_abdEc16e = 667
    dnnl_abdCe16c = 668
    dnnl_AcB24a2b = 669
    dnnl_AcdB24a2b = 670
    dnnl_AcdeB24a2b = 671
    dnnl_aBdC24b2c = 672
    dnnl_aBdeC24b2c = 673
    dnnl_aBdefC24b2c = 674
    dnnl_AcB8a2b = 675
    dnnl_AcdB8a2b = 676
    dnnl_AcdeB8a2b = 677
    dnnl_aBdC8b2c = 678
    dnnl_aBdeC8b2c = 679
    dnnl_aBdefC8b2c = 680
    dnnl_AB8b32a = 681
    dnnl_ABc8b32a = 682
    dnnl_ABcd8b32a = 683
    dnnl_ABcde8b32a = 684
    dnnl_AB8b24a = 685
    dnnl_ABc8b24a = 686
    dnnl_ABcd8b24a = 687
    dnnl_ABcde8b24a = 688
    dnnl_AB8b16a = 689
    dnnl_ABc8b16a = 690
    dnnl_ABcd8b16a = 691
    dnnl_ABcde8b16a = 692
    dnnl_AB8b8a = 693
    dnnl_AB4b8a4b = 694
    dnnl_AB4b24a4b = 695
    dnnl_ABc4b8a4b = 696
    dnnl_ABc4b24a4b = 697
    dnnl_ABcd4b8a4b = 698
    dnnl_ABcd4b24a4b = 699
    dnnl_ABcde4b8a4b = 700
    dnnl_ABcde4b24a4b = 701
    dnnl_AB8b24a2b = 702
    dnnl_ABc8b24a2b = 703
    dnnl_ABcd8b24a2b = 704
    dnnl_ABcde8b24a2b = 705
    dnnl_AB8b8a2b = 706
    dnnl_ABc8b8a2b = 707
    dnnl_ABcd8b8a2b = 708
    dnnl_ABcde8b8a2b = 709
    dnnl_AcB24a4b = 710
    dnnl_AcdB24a4b = 711
    dnnl_AcdeB24a4b = 712
    dnnl_aBdC24b4c = 713
    dnnl_aBdeC24b4c = 714
    dnnl_aBdefC24b4c = 715
    dnnl_AcB8a4b = 716
    dnnl_AcdB8a4b = 717
    dnnl_AcdeB8a4b = 718
    dnnl_aBdC8b4c = 719
    dnnl_aBdeC8b4c = 720
    dnnl_aBdefC8b4c = 721
    dnnl_Bca8b = 722
    dnnl_BcA8b2a = 723
    dnnl_Bcda8b = 724
    dnnl_BcdA8b2a = 725
    dnnl_Bcdea8b = 726
    dnnl_BcdeA8b2a = 727
    dnnl_aCdb8c = 728
    dnnl_aCdB8c2b = 729
    dnnl_aCdeb8c = 730
    dnnl_aCdeB8c2b = 731
    dnnl_aCdefb8c = 732
    dnnl_aCdefB8c2b = 733
    dnnl_Bca24b = 734
    dnnl_BcA24b2a = 735
    dnnl_Bcda24b = 736
    dnnl_BcdA24b2a = 737
    dnnl_Bcdea24b = 738
    dnnl_BcdeA24b2a = 739
    dnnl_aCdb24c = 740
    dnnl_aCdB24c2b = 741
    dnnl_aCdeb24c = 742
    dnnl_aCdeB24c2b = 743
    dnnl_aCdefb24c = 744
    dnnl_aCdefB24c2b = 745
    dnnl_BcA8b4a = 746
    dnnl_BcdA8b4a = 747
    dnnl_BcdeA8b4a = 748
    dnnl_aCdB8c4b = 749
    dnnl_aCdeB8c4b = 750
    dnnl_aCdefB8c4b = 751
    dnnl_BcA24b4a = 752
    dnnl_BcdA24b4a = 753
    dnnl_BcdeA24b4a = 754
    dnnl_aCdB24c4b = 755
    dnnl_aCdeB24c4b = 756
    dnnl_aCdefB24c4b = 757
    dnnl_AB16b48a = 758
    dnnl_ABc16b48a = 759
    dnnl_ABcd16b48a = 760
    dnnl_ABcde16b48a = 761
    dnnl_format_tag_last = 762
    dnnl_x = 2
    dnnl_nc = 3
    dnnl_cn = 14
    dnnl_tn = 3
    dnnl_nt = 14
    dnnl_ncw = 4
    dnnl_nwc = 15
    dnnl_nchw = 5
    dnnl_nhwc = 22
    dnnl_chwn = 26
    dnnl_ncdhw = 6
    dnnl_ndhwc = 33
    dnnl_oi = 3
    dnnl_io = 14
    dnnl_oiw = 4
    dnnl_owi = 15
    dnnl_wio = 19
    dnnl_woi = 18
    dnnl_iwo = 17
    dnnl_oihw = 5
    dnnl_hwio = 28
    dnnl_hwoi = 27
    dnnl_ohwi = 22
    dnnl_ihwo = 26
    dnnl_iohw = 25
    dnnl_oidhw = 6
    dnnl_iodhw = 35
    dnnl_dhwio = 38
    dnnl_dhwoi = 37
    dnnl_odhwi = 33
    dnnl_idhwo = 36
    dnnl_goiw = 5
    dnnl_gowi = 20
    dnnl_wigo = 29
    dnnl_goihw = 6
    dnnl_gohwi = 31
    dnnl_hwigo = 39
    dnnl_giohw = 32
    dnnl_goidhw = 7
    dnnl_godhwi = 41
    dnnl_giodhw = 43
    dnnl_dhwigo = 45
    dnnl_tnc = 4
    dnnl_ntc = 16
    dnnl_ldnc = 5
    dnnl_ldigo = 6
    dnnl_ldgoi = 31
    dnnl_ldio = 5
    dnnl_ldoi = 20
    dnnl_ldgo = 5
    dnnl_ldOi16o = 666
    dnnl_ldOi32o = 267
    dnnl_ldOI32o4i = 268
    dnnl_ldIo32i = 378
    dnnl_ldgOi16o = 667
    dnnl_ldgOi32o = 269
    dnnl_ldgOI32o2i = 270
    dnnl_ldgOI32o4i = 271
    dnnl_ldgOI64o2i = 519
    dnnl_ldgOI64o4i = 520
    dnnl_ldgIo16i = 668
    dnnl_ldgIo32i = 379
    dnnl_ldgIO32i2o = 380
    dnnl_nCdhw32c = 127
    dnnl_nCdhw16c = 121
    dnnl_nCdhw4c = 128
    dnnl_nCdhw8c = 142
    dnnl_nChw32c = 83
    dnnl_nChw16c = 78
    dnnl_nChw4c = 84
    dnnl_nChw8c = 102
    dnnl_nCw32c = 59
    dnnl_nCw16c = 56
    dnnl_nCw4c = 60
    dnnl_nCw8c = 69
    dnnl_NCw16n16c = 53
    dnnl_NCdhw16n16c = 116
    dnnl_NChw16n16c = 75
    dnnl_NCw32n16c = 367
    dnnl_NChw32n16c = 368
    dnnl_NChw16n32c = 538
    dnnl_NCdhw32n16c = 369
    dnnl_NCw32n32c = 54
    dnnl_NChw32n32c = 77
    dnnl_NCdhw32n32c = 148
    dnnl_OI16i16o = 237
    dnnl_OI16i32o = 238
    dnnl_OI16i48o = 758
    dnnl_OI16i64o = 239
    dnnl_OI8i8o2i = 706
    dnnl_OI8i16o2i = 240
    dnnl_OI8i24o2i = 702
    dnnl_OI8i32o2i = 241
    dnnl_OI8i64o2i = 242
    dnnl_OI4i8o4i = 694
    dnnl_OI4i16o4i = 243
    dnnl_OI4i24o4i = 695
    dnnl_OI4i32o4i = 244
    dnnl_OI4i64o4i = 245
    dnnl_OI16i16o4i = 246
    dnnl_OI8i32o = 681
    dnnl_OI8i24o = 685
    dnnl_OI8i16o = 689
    dnnl_OI8i8o = 693
    dnnl_IOw16o16i = 222
    dnnl_IOw16i16o = 223
    dnnl_OIw16i16o = 57
    dnnl_OIw16i32o = 231
    dnnl_OIw16i48o = 759
    dnnl_OIw16i64o = 232
    dnnl_OIw16o16i = 53
    dnnl_Oiw16o = 52
    dnnl_OIw4i8o4i = 696
    dnnl_OIw4i16o4i = 61
    dnnl_OIw4i24o4i = 697
    dnnl_OIw4i32o4i = 233
    dnnl_OIw4i64o4i = 234
    dnnl_OIw2i8o4i = 62
    dnnl_OIw16i16o4i = 63
    dnnl_OIw16i16o2i = 64
    dnnl_OIw16o16i2o = 275
    dnnl_OIw4i4o = 65
    dnnl_OIw4o4i = 55
    dnnl_Oiw4o = 58
    dnnl_OIw8i8o2i = 707
    dnnl_OIw8i16o2i = 70
    dnnl_OIw8i24o2i = 703
    dnnl_OIw8i32o2i = 235
    dnnl_OIw8i64o2i = 236
    dnnl_OIw8i8o = 72
    dnnl_OIw8o16i2o = 66
    dnnl_IOw8o16i2o = 71
    dnnl_OIw8o8i = 67
    dnnl_OIw8o4i = 68
    dnnl_Owi16o = 202
    dnnl_OwI16o2i = 203
    dnnl_OwI16o4i = 204
    dnnl_Iwo8i = 722
    dnnl_IwO8i2o = 723
    dnnl_IwO8i4o = 746
    dnnl_Iwo16i = 624
    dnnl_IwO16i2o = 625
    dnnl_IwO16i4o = 626
    dnnl_Iwo24i = 734
    dnnl_IwO24i2o = 735
    dnnl_IwO24i4o = 752
    dnnl_Owi4o = 205
    dnnl_Owi8o = 206
    dnnl_OwI8o2i = 675
    dnnl_OIw8i32o = 682
    dnnl_OIw8i24o = 686
    dnnl_OIw8i16o = 690
    dnnl_OwI8o4i = 716
    dnnl_IOhw16i16o = 225
    dnnl_IOhw16o16i = 224
    dnnl_Ohwi16o = 211
    dnnl_OhwI16o2i = 212
    dnnl_OhwI16o4i = 213
    dnnl_Ihwo8i = 724
    dnnl_IhwO8i2o = 725
    dnnl_IhwO8i4o = 747
    dnnl_Ihwo16i = 627
    dnnl_IhwO16i2o = 628
    dnnl_IhwO16i4o = 629
    dnnl_Ihwo24i = 736
    dnnl_IhwO24i2o = 737
    dnnl_IhwO24i4o = 753
    dnnl_Ohwi24o = 661
    dnnl_Ohwi32o = 214
    dnnl_Ohwi4o = 215
    dnnl_Ohwi8o = 216
    dnnl_OhwI8o2i = 676
    dnnl_OhwI8o4i = 717
    dnnl_OIhw16i16o = 79
    dnnl_OIhw16i32o = 247
    dnnl_OIhw16i48o = 760
    dnnl_OIhw16i64o = 248
    dnnl_OIhw16o16i = 75
    dnnl_Oihw16o = 73
    dnnl_OIhw4i8o4i = 698
    dnnl_OIhw4i16o4i = 85
    dnnl_OIhw4i24o4i = 699
    dnnl_OIhw4i32o4i = 249
    dnnl_OIhw4i64o4i = 250
    dnnl_OIhw16i16o4i = 86
    dnnl_OIhw16i16o2i = 87
    dnnl_OIhw16o16i2o = 274
    dnnl_OIhw4i4o = 88
    dnnl_OIhw4o4i = 89
    dnnl_Oihw4o = 82
    dnnl_OIhw8i8o2i = 708
    dnnl_OIhw8i16o2i = 104
    dnnl_OIhw8i32o2i = 251
    dnnl_OIhw8i24o2i = 704
    dnnl_OIhw8i64o2i = 252
    dnnl_OIhw8i8o = 107
    dnnl_OIhw8o16i2o = 98
    dnnl_OIhw2i8o4i = 99
    dnnl_IOhw8o16i2o = 106
    dnnl_OIhw8o8i = 100
    dnnl_OIhw8o4i = 101
    dnnl_Owhi16o = 221
    dnnl_OIhw8i32o = 683
    dnnl_OIhw8i24o = 687
    dnnl_OIhw8i16o = 691
    dnnl_Odhwi16o = 217
    dnnl_OdhwI16o2i = 218
    dnnl_OdhwI16o4i = 273
    dnnl_Idhwo8i = 726
    dnnl_IdhwO8i2o = 727
    dnnl_IdhwO8i4o = 748
    dnnl_Idhwo16i = 630
    dnnl_IdhwO16i2o = 631
    dnnl_IdhwO16i4o = 632
    dnnl_Idhwo24i = 738
    dnnl_IdhwO24i2o = 739
    dnnl_IdhwO24i4o = 754
    dnnl_Odhwi4o = 219
    dnnl_Odhwi8o = 220
    dnnl_OdhwI8o2i = 677
    dnnl_OdhwI8o4i = 718
    dnnl_Odwhi16o = 517
    dnnl_OIdhw16i16o = 122
    dnnl_OIdhw16i32o = 257
    dnnl_OIdhw16i48o = 761
    dnnl_OIdhw16i64o = 258
    dnnl_OIdhw16o16i = 116
    dnnl_Oidhw16o = 114
    dnnl_OIdhw4i4o = 129
    dnnl_OIdhw4o4i = 130
    dnnl_Oidhw4o = 126
    dnnl_OIdhw8i8o2i = 709
    dnnl_OIdhw8i16o2i = 143
    dnnl_OIdhw8i32o2i = 259
    dnnl_OIdhw8i24o2i = 705
    dnnl_OIdhw8i64o2i = 260
    dnnl_OIdhw8i8o = 147
    dnnl_OIdhw8o16i2o = 111
    dnnl_IOdhw8o16i2o = 117
    dnnl_OIdhw4i8o4i = 700
    dnnl_OIdhw4i16o4i = 119
    dnnl_OIdhw4i24o4i = 701
    dnnl_OIdhw4i32o4i = 253
    dnnl_OIdhw4i64o4i = 254
    dnnl_OIdhw16i16o4i = 255
    dnnl_OIdhw16i16o2i = 256
    dnnl_OIdhw2i8o4i = 120
    dnnl_OIdhw8o8i = 139
    dnnl_OIdhw8o4i = 140
    dnnl_IOdhw16i16o = 141
    dnnl_OIdhw4o8i8o4i = 153
    dnnl_IOdhw16o16i = 229
    dnnl_OIdhw16o16i2o = 515
    dnnl_OIdhw8i32o = 684
    dnnl_OIdhw8i24o = 688
    dnnl_OIdhw8i16o = 692
    dnnl_Goiw16g = 73
    dnnl_Goiw8g = 74
    dnnl_Goiw4g = 82
    dnnl_gIOw16o16i = 207
    dnnl_gIOw16i16o = 208
    dnnl_gOIw16i16o = 81
    dnnl_gOIw16o16i = 80
    dnnl_gOiw16o = 78
    dnnl_gOIw4i16o4i = 92
    dnnl_gOIw2i8o4i = 93
    dnnl_gOIw16i16o4i = 94
    dnnl_gOIw16i16o2i = 95
    dnnl_gOIw16o16i2o = 276
    dnnl_gOIw4i4o = 96
    dnnl_gOIw4o4i = 97
    dnnl_gOiw4o = 84
    dnnl_gOIw8i16o2i = 110
    dnnl_gOIw8i8o = 113
    dnnl_gOIw8o16i2o = 105
    dnnl_gIOw8o16i2o = 112
    dnnl_gOIw8o8i = 108
    dnnl_gOIw8o4i = 109
    dnnl_gOwi16o = 183
    dnnl_gOwI16o2i = 184
    dnnl_gOwI16o4i = 185
    dnnl_gIwo8i = 728
    dnnl_gIwO8i2o = 729
    dnnl_gIwO8i4o = 749
    dnnl_gIwo16i = 633
    dnnl_gIwO16i2o = 634
    dnnl_gIwO16i4o = 635
    dnnl_gIwo24i = 740
    dnnl_gIwO24i2o = 741
    dnnl_gIwO24i4o = 755
    dnnl_gOwi4o = 186
    dnnl_gOwi8o = 187
    dnnl_gOwI8o2i = 678
    dnnl_gOwI8o4i = 719
    dnnl_Goiw32g = 76
    dnnl_gOIw2i4o2i = 90
    dnnl_gOIw2o4i2o = 118
    dnnl_gOIw4i8o2i = 103
    dnnl_gOIw4o8i2o = 91
    dnnl_goIw4i = 533
    dnnl_goIw32i = 378
    dnnl_gIOhw16i16o = 210
    dnnl_gIOhw16o16i = 209
    dnnl_gOhwi16o = 188
    dnnl_gOhwI16o2i = 189
    dnnl_gOhwI16o4i = 190
    dnnl_gIhwo8i = 730
    dnnl_gIhwO8i2o = 731
    dnnl_gIhwO8i4o = 750
    dnnl_gIhwo16i = 636
    dnnl_gIhwO16i2o = 637
    dnnl_gIhwO16i4o = 638
    dnnl_gIhwo24i = 742
    dnnl_gIhwO24i2o = 743
    dnnl_gIhwO24i4o = 756
    dnnl_gOhwi32o = 191
    dnnl_gOhwi24o = 664
    dnnl_gOhwI24o2i = 673
    dnnl_gOhwI24o4i = 714
    dnnl_gOhwi4o = 192
    dnnl_gOhwi8o = 193
    dnnl_gOhwI8o2i = 679
    dnnl_gOhwI8o4i = 720
    dnnl_Goihw16g = 114
    dnnl_gOIhw16i16o = 124
    dnnl_gOIhw16o16i = 123
    dnnl_gOihw16o = 121
    dnnl_gOIhw2i8o4i = 125
    dnnl_gOIhw4i16o4i = 134
    dnnl_gOIhw16i16o4i = 135
    dnnl_gOIhw16i16o2i = 136
    dnnl_gOIhw16o16i2o = 277
    dnnl_gOIhw4i4o = 137
    dnnl_gOIhw4o4i = 131
    dnnl_gOihw4o = 128
    dnnl_Goihw8g = 138
    dnnl_Goihw4g = 126
    dnnl_gOIhw8i16o2i = 161
    dnnl_gOIhw8i8o = 162
    dnnl_gOIhw8o16i2o = 144
    dnnl_gIOhw8o16i2o = 146
    dnnl_gOIhw8o8i = 149
    dnnl_gOIhw8o4i = 150
    dnnl_Goihw32g = 115
    dnnl_gOwhi16o = 201
    dnnl_goIhw4i = 534
    dnnl_goIhw32i = 536
    dnnl_OIw4o8i8o4i = 151
    dnnl_OIhw4o8i8o4i = 152
    dnnl_IOw4i8o8i4o = 154
    dnnl_IOhw4i8o8i4o = 155
    dnnl_IOdhw4i8o8i4o = 156
    dnnl_OIhw2o8i8o2i = 157
    dnnl_gOIw4o8i8o4i = 158
    dnnl_gOIhw4o8i8o4i = 159
    dnnl_gOIdhw4o8i8o4i = 179
    dnnl_gIOw4i8o8i4o = 226
    dnnl_gIOhw4i8o8i4o = 227
    dnnl_gIOdhw4i8o8i4o = 228
    dnnl_gOIhw2o8i8o2i = 160
    dnnl_gOIhw2i4o2i = 132
    dnnl_gOIhw2o4i2o = 163
    dnnl_gOIhw4i8o2i = 145
    dnnl_gOIhw4o8i2o = 133
    dnnl_gIOdhw16i16o = 196
    dnnl_gIOdhw16o16i = 230
    dnnl_gOdhwi16o = 194
    dnnl_gOdhwI16o2i = 195
    dnnl_gOdhwI16o4i = 272
    dnnl_gIdhwo8i = 732
    dnnl_gIdhwO8i2o = 733
    dnnl_gIdhwO8i4o = 751
    dnnl_gIdhwo16i = 639
    dnnl_gIdhwO16i2o = 640
    dnnl_gIdhwO16i4o = 641
    dnnl_gIdhwo24i = 744
    dnnl_gIdhwO24i2o = 745
    dnnl_gIdhwO24i4o = 757
    dnnl_gOdhwi4o = 197
    dnnl_gOdhwi8o = 198
    dnnl_gOdhwI8o2i = 680
    dnnl_gOdhwI8o4i = 721
    dnnl_gOdwhi16o = 518
    dnnl_gOIdhw16i16o = 166
    dnnl_gOIdhw4i16o4i = 167
    dnnl_gOIdhw16i16o4i = 261
    dnnl_gOIdhw2i8o4i = 168
    dnnl_gOIdhw16i16o2i = 262
    dnnl_gOIdhw16o16i = 165
    dnnl_gOIdhw16o16i2o = 516
    dnnl_gOidhw16o = 164
    dnnl_gOIdhw4i4o = 172
    dnnl_gOIdhw4o4i = 173
    dnnl_gOidhw4o = 171
    dnnl_gOIdhw8i16o2i = 178
    dnnl_gOIdhw8i8o = 182
    dnnl_gOIdhw8o16i2o = 180
    dnnl_gIOdhw8o16i2o = 181
    dnnl_gOIdhw8o8i = 176
    dnnl_gOIdhw8o4i = 177
    dnnl_Goidhw16g = 199
    dnnl_Goidhw32g = 200
    dnnl_gOIdhw2i4o2i = 174
    dnnl_gOIdhw4i8o2i = 169
    dnnl_gOIdhw2o4i2o = 170
    dnnl_gOIdhw4o8i2o = 175
    dnnl_goIdhw4i = 535
    dnnl_goIdhw32i = 537
    dnnl_Owi24o = 660
    dnnl_OwI24o2i = 669
    dnnl_OwI24o4i = 710
    dnnl_Owi32o = 278
    dnnl_OwI32o2i = 279
    dnnl_OwI32o4i = 280
    dnnl_Owi48o = 281
    dnnl_OwI48o2i = 282
    dnnl_OwI48o4i = 283
    dnnl_Owi64o = 284
    dnnl_OwI64o2i = 285
    dnnl_OwI64o4i = 286
    dnnl_Iwo32i = 570
    dnnl_IwO32i2o = 571
    dnnl_IwO32i4o = 572
    dnnl_Iwo48i = 573
    dnnl_IwO48i2o = 574
    dnnl_IwO48i4o = 575
    dnnl_Iwo64i = 576
    dnnl_IwO64i2o = 577
    dnnl_IwO64i4o = 578
    dnnl_wIo2i = 287
    dnnl_wIo4i = 288
    dnnl_gOwi24o = 663
    dnnl_gOwI24o2i = 672
    dnnl_gOwI24o4i = 713
    dnnl_gOwi32o = 289
    dnnl_gOwI32o2i = 290
    dnnl_gOwI32o4i = 291
    dnnl_gOwi48o = 292
    dnnl_gOwI48o2i = 293
    dnnl_gOwI48o4i = 294
    dnnl_gOwi64o = 295
    dnnl_gOwI64o2i = 296
    dnnl_gOwI64o4i = 297
    dnnl_gIwo32i = 579
    dnnl_gIwO32i2o = 580
    dnnl_gIwO32i4o = 581
    dnnl_gIwo48i = 582
    dnnl_gIwO48i2o = 583
    dnnl_gIwO48i4o = 584
    dnnl_gIwo64i = 585
    dnnl_gIwO64i2o = 586
    dnnl_gIwO64i4o = 587
    dnnl_gwio = 24
    dnnl_gwIo2i = 298
    dnnl_gwIo4i = 299
    dnnl_OhwI24o = 661
    dnnl_OhwI24o2i = 670
    dnnl_OhwI24o4i = 711
    dnnl_OhwI32o = 214
    dnnl_OhwI32o2i = 300
    dnnl_OhwI32o4i = 301
    dnnl_Ohwi48o = 302
    dnnl_OhwI48o2i = 303
    dnnl_OhwI48o4i = 304
    dnnl_Ohwi64o = 305
    dnnl_OhwI64o2i = 306
    dnnl_OhwI64o4i = 307
    dnnl_Ihwo32i = 642
    dnnl_IhwO32i2o = 643
    dnnl_IhwO32i4o = 644
    dnnl_Ihwo48i = 645
    dnnl_IhwO48i2o = 646
    dnnl_IhwO48i4o = 647
    dnnl_Ihwo64i = 648
    dnnl_IhwO64i2o = 649
    dnnl_IhwO64i4o = 650
    dnnl_hwIo2i = 308
    dnnl_hwIo4i = 309
    dnnl_gOhwI24o = 664
    dnnl_gOhwI32o = 191
    dnnl_gOhwI32o2i = 310
    dnnl_gOhwI32o4i = 311
    dnnl_gOhwi48o = 312
    dnnl_gOhwI48o2i = 313
    dnnl_gOhwI48o4i = 314
    dnnl_gOhwi64o = 315
    dnnl_gOhwI64o2i = 316
    dnnl_gOhwI64o4i = 317
    dnnl_gIhwo32i = 651
    dnnl_gIhwO32i2o = 652
    dnnl_gIhwO32i4o = 653
    dnnl_gIhwo48i = 654
    dnnl_gIhwO48i2o = 655
    dnnl_gIhwO48i4o = 656
    dnnl_gIhwo64i = 657
    dnnl_gIhwO64i2o = 658
    dnnl_gIhwO64i4o = 659
    dnnl_ghwio = 34
    dnnl_ghwIo2i = 318
    dnnl_ghwIo4i = 319
    dnnl_Odhwi24o = 662
    dnnl_OdhwI24o2i = 671
    dnnl_OdhwI24o4i = 712
    dnnl_Odhwi32o = 320
    dnnl_OdhwI32o2i = 321
    dnnl_OdhwI32o4i = 322
    dnnl_Odhwi48o = 323
    dnnl_OdhwI48o2i = 324
    dnnl_OdhwI48o4i = 325
    dnnl_Odhwi64o = 326
    dnnl_OdhwI64o2i = 327
    dnnl_OdhwI64o4i = 328
    dnnl_Idhwo32i = 561
    dnnl_IdhwO32i2o = 562
    dnnl_IdhwO32i4o = 563
    dnnl_Idhwo48i = 564
    dnnl_IdhwO48i2o = 565
    dnnl_IdhwO48i4o = 566
    dnnl_Idhwo64i = 567
    dnnl_IdhwO64i2o = 568
    dnnl_IdhwO64i4o = 569
    dnnl_dhwIo2i = 329
    dnnl_dhwIo4i = 330
    dnnl_gOdhwi24o = 665
    dnnl_gOdhwI24o2i = 674
    dnnl_gOdhwI24o4i = 715
    dnnl_gOdhwi32o = 331
    dnnl_gOdhwI32o2i = 332
    dnnl_gOdhwI32o4i = 333
    dnnl_gOdhwi48o = 334
    dnnl_gOdhwI48o2i = 335
    dnnl_gOdhwI48o4i = 336
    dnnl_gOdhwi64o = 337
    dnnl_gOdhwI64o2i = 338
    dnnl_gOdhwI64o4i = 339
    dnnl_gIdhwo32i = 552
    dnnl_gIdhwO32i2o = 553
    dnnl_gIdhwO32i4o = 554
    dnnl_gIdhwo48i = 555
    dnnl_gIdhwO48i2o = 556
    dnnl_gIdhwO48i4o = 557
    dnnl_gIdhwo64i = 558
    dnnl_gIdhwO64i2o = 559
    dnnl_gIdhwO64i4o = 560
    dnnl_gdhwio = 44
    dnnl_gdhwIo2i = 340
    dnnl_gdhwIo4i = 341
    dnnl_OI16i32o4i = 342
    dnnl_OI16i48o4i = 343
    dnnl_OI16i64o4i = 344
    dnnl_OI16i16o2i = 345
    dnnl_OI16i32o2i = 346
    dnnl_OI16i48o2i = 347
    dnnl_OI16i64o2i = 348
    dnnl_OIw16i32o4i = 349
    dnnl_OIw16i48o4i = 350
    dnnl_OIw16i64o4i = 351
    dnnl_OIw16i32o2i = 352
    dnnl_OIw16i48o2i = 353
    dnnl_OIw16i64o2i = 354
    dnnl_OIhw16i32o4i = 355
    dnnl_OIhw16i48o4i = 356
    dnnl_OIhw16i64o4i = 357
    dnnl_OIhw16i32o2i = 358
    dnnl_OIhw16i48o2i = 359
    dnnl_OIhw16i64o2i = 360
    dnnl_OIdhw16i32o4i = 361
    dnnl_OIdhw16i48o4i = 362
    dnnl_OIdhw16i64o4i = 363
    dnnl_OIdhw16i32o2i = 364
    dnnl_OIdhw16i48o2i = 365
    dnnl_OIdhw16i64o2i = 366
    dnnl_OwI16i16o2i = 393
    dnnl_OwI16i16o4i = 394
    dnnl_OhwI16i16o2i = 395
    dnnl_OhwI16i16o4i = 396
    dnnl_OdhwI16i16o2i = 397
    dnnl_OdhwI16i16o4i = 399
    dnnl_IwO16o16i2o = 588
    dnnl_IwO16o16i4o = 589
    dnnl_IhwO16o16i2o = 590
    dnnl_IhwO16o16i4o = 591
    dnnl_IdhwO16o16i2o = 592
    dnnl_IdhwO16o16i4o = 593
    dnnl_gOwI16i16o2i = 406
    dnnl_gOwI16i16o4i = 407
    dnnl_gOhwI16i16o2i = 390
    dnnl_gOhwI16i16o4i = 391
    dnnl_gOdhwI16i16o2i = 392
    dnnl_gOdhwI16i16o4i = 398
    dnnl_gIwO16o16i2o = 594
    dnnl_gIwO16o16i4o = 595
    dnnl_gIhwO16o16i2o = 596
    dnnl_gIhwO16o16i4o = 597
    dnnl_gIdhwO16o16i2o = 598
    dnnl_gIdhwO16o16i4o = 599
    dnnl_OwI16i32o2i = 400
    dnnl_OwI16i32o4i = 401
    dnnl_OwI16i48o2i = 402
    dnnl_OwI16i48o4i = 403
    dnnl_OwI16i64o2i = 404
    dnnl_OwI16i64o4i = 405
    dnnl_IwO16o32i2o = 600
    dnnl_IwO16o32i4o = 601
    dnnl_IwO16o48i2o = 602
    dnnl_IwO16o48i4o = 603
    dnnl_IwO16o64i2o = 604
    dnnl_IwO16o64i4o = 605
    dnnl_gOwI16i32o2i = 408
    dnnl_gOwI16i32o4i = 409
    dnnl_gOwI16i48o2i = 410
    dnnl_gOwI16i48o4i = 411
    dnnl_gOwI16i64o2i = 412
    dnnl_gOwI16i64o4i = 413
    dnnl_gIwO16o32i2o = 606
    dnnl_gIwO16o32i4o = 607
    dnnl_gIwO16o48i2o = 608
    dnnl_gIwO16o48i4o = 609
    dnnl_gIwO16o64i2o = 610
    dnnl_gIwO16o64i4o = 611
    dnnl_OhwI16i32o2i = 414
    dnnl_OhwI16i32o4i = 415
    dnnl_OhwI16i48o2i = 416
    dnnl_OhwI16i48o4i = 417
    dnnl_OhwI16i64o2i = 418
    dnnl_OhwI16i64o4i = 419
    dnnl_IhwO16o32i2o = 612
    dnnl_IhwO16o32i4o = 613
    dnnl_IhwO16o48i2o = 614
    dnnl_IhwO16o48i4o = 615
    dnnl_IhwO16o64i2o = 616
    dnnl_IhwO16o64i4o = 617
    dnnl_gOhwI16i32o2i = 420
    dnnl_gOhwI16i32o4i = 421
    dnnl_gOhwI16i48o2i = 422
    dnnl_gOhwI16i48o4i = 423
    dnnl_gOhwI16i64o2i = 424
    dnnl_gOhwI16i64o4i = 425
    dnnl_gIhwO16o32i2o = 618
    dnnl_gIhwO16o32i4o = 619
    dnnl_gIhwO16o48i2o = 620
    dnnl_gIhwO16o48i4o = 621
    dnnl_gIhwO16o64i2o = 622
    dnnl_gIhwO16o64i4o = 623
    dnnl_OdhwI16i32o2i = 426
    dnnl_OdhwI16i32o4i = 427
    dnnl_OdhwI16i48o2i = 428
    dnnl_OdhwI16i48o4i = 429
    dnnl_OdhwI16i64o2i = 430
    dnnl_OdhwI16i64o4i = 431
    dnnl_IdhwO16o32i2o = 546
    dnnl_IdhwO16o32i4o = 547
    dnnl_IdhwO16o48i2o = 548
    dnnl_IdhwO16o48i4o = 549
    dnnl_IdhwO16o64i2o = 550
    dnnl_IdhwO16o64i4o = 551
    dnnl_gOdhwI16i32o2i = 432
    dnnl_gOdhwI16i32o4i = 433
    dnnl_gOdhwI16i48o2i = 434
    dnnl_gOdhwI16i48o4i = 435
    dnnl_gOdhwI16i64o2i = 436
    dnnl_gOdhwI16i64o4i = 437
    dnnl_gIdhwO16o32i2o = 540
    dnnl_gIdhwO16o32i4o = 541
    dnnl_gIdhwO16o48i2o = 542
    dnnl_gIdhwO16o48i4o = 543
    dnnl_gIdhwO16o64i2o = 544
    dnnl_gIdhwO16o64i4o = 545
    dnnl_hwioG16g = 438
    dnnl_hwioG8g = 539
    dnnl_NCdhw40n16c = 444
    dnnl_NCw40n16c = 372
    dnnl_NChw40n16c = 376
    dnnl_NCw40n32c = 373
    dnnl_NChw40n32c = 377
    dnnl_NCdhw40n32c = 445
    dnnl_OIdhw4o8i8o2i = 447
    dnnl_OIhw4o8i8o2i = 448
    dnnl_OIw4o8i8o2i = 449
    dnnl_gOIdhw4o8i8o2i = 450
    dnnl_gOIhw4o8i8o2i = 451
    dnnl_gOIw4o8i8o2i = 452
    dnnl_IOdhw4i8o8i2o = 453
    dnnl_IOhw4i8o8i2o = 454
    dnnl_IOw4i8o8i2o = 455
    dnnl_gIOdhw4i8o8i2o = 456
    dnnl_gIOhw4i8o8i2o = 457
    dnnl_gIOw4i8o8i2o = 458
    dnnl_NCw2c32n8c = 474
    dnnl_NChw2c32n8c = 478
    dnnl_NCdhw2c32n8c = 483
    dnnl_OIw2i8o16i4o = 469
    dnnl_OIhw2i8o16i4o = 470
    dnnl_OIdhw2i8o16i4o = 471
    dnnl_OIw2o8i16o4i = 472
    dnnl_OIw2o8i16o2i = 473
    dnnl_IOw2i8o16i4o = 490
    dnnl_IOw2i8o16i2o = 493
    dnnl_OIhw2o8i16o4i = 475
    dnnl_OIhw2o8i16o2i = 476
    dnnl_IOhw2i8o16i4o = 489
    dnnl_IOhw2i8o16i2o = 492
    dnnl_OIdhw2o8i16o4i = 480
    dnnl_OIdhw2o8i16o2i = 481
    dnnl_IOdhw2i8o16i4o = 488
    dnnl_IOdhw2i8o16i2o = 491
    dnnl_gOIw2o8i16o2i = 485
    dnnl_gIOw2i8o16i2o = 477
    dnnl_gIOhw2i8o16i2o = 494
    dnnl_gIOdhw2i8o16i2o = 495
    dnnl_gOIhw2o8i16o2i = 486
    dnnl_gOIdhw2o8i16o2i = 487
    dnnl_gOIw2o8i16o4i = 497
    dnnl_gOIhw2o8i16o4i = 498


ENUMS: dict[str, type[IntEnum]] = {
    enum.__name__: enum
    for enum in (
        dnnl_status_t,
        dnnl_data_type_t,
        dnnl_engine_kind_t,
        dnnl_stream_flags_t,
        dnnl_fpmath_mode_t,
        dnnl_format_kind_t,
        dnnl_prop_kind_t,
        dnnl_primitive_kind_t,
        dnnl_alg_kind_t,
        dnnl_normalization_flags_t,
        dnnl_scratchpad_mode_t,
        dnnl_query_t,
        dnnl_cpu_isa_t,
        dnnl_format_tag_t,
    )
}
"""Every C enum declared here, by its C name."""

C_TYPES.update({name: ctypes.c_int for name in ENUMS})
