"""The one place where dnnc's passes and named pipelines are listed (dialects: `dnnc.dialects`).

Factories are lazy (like xDSL's `get_all_passes()`): a module is imported only when its pass is
used. Adding a pass is one line, `"<name>": "<module>:<Class>"`, in `_DNNC_PASSES`;
`test/python/test_registry.py` then checks the pass name against
its class, its file and its lit test (`test/Passes/<pass-name>.mlir`, or `test/Lowering/...` for
passes in `dnnc.lowering`). What the named pipelines run is in `dnnc/driver/pipelines.py`."""

from collections.abc import Callable

from xdsl.passes import ModulePass
from xdsl.transforms import get_all_passes as get_xdsl_passes

from dnnc.dialects import load_target

PassFactory = Callable[[], type[ModulePass]]

_XDSL_PASSES = ("canonicalize", "cse", "dce")
"""The few generic xDSL passes dnnc offers (they work on any dialect with `Pure` ops)."""

_DNNC_PASSES: dict[str, str] = {
    "dnn-recover-gelu": "dnnc.passes.recover_gelu:RecoverGeluPass",
    "dnn-recover-swish": "dnnc.passes.recover_swish:RecoverSwishPass",
    "dnn-recover-layer-norm": "dnnc.passes.recover_layer_norm:RecoverLayerNormPass",
    "dnn-recover-attention": "dnnc.passes.recover_attention:RecoverAttentionPass",
    "dnn-expand-attention": "dnnc.passes.expand_attention:ExpandAttentionPass",
    "dnn-recover-kv-append": "dnnc.passes.recover_kv_append:RecoverKvAppendPass",
    "onednn-verify-buffers": "dnnc.lowering.verify_buffers:VerifyBuffersPass",
    "dnn-plan-memory": "dnnc.lowering.plan_memory:PlanMemoryPass",
    "convert-dnn-to-onednn": "dnnc.lowering.convert_dnn_to_onednn:ConvertDnnToOnednnPass",
    "dnn-fuse-post-ops": "dnnc.passes.fuse_post_ops:FusePostOpsPass",
    "dnn-fuse-quantized": "dnnc.passes.fuse_quantized:FuseQuantizedPass",
    "dnn-fuse-quantized-matmul": "dnnc.passes.fuse_quantized_matmul:FuseQuantizedMatmulPass",
    "dnn-keep-int8": "dnnc.passes.keep_int8:KeepInt8Pass",
    "dnn-shift-to-u8": "dnnc.passes.shift_to_u8:ShiftToU8Pass",
    "dnn-share-dynamic-quantize": "dnnc.passes.share_dynamic_quantize:ShareDynamicQuantizePass",
    "dnn-propagate-special-values": (
        "dnnc.passes.propagate_special_values:PropagateSpecialValuesPass"
    ),
    "dnn-guard-special-values": "dnnc.passes.guard_special_values:GuardSpecialValuesPass",
    "dnn-dense-as-inner-product": "dnnc.passes.dense_as_inner_product:DenseAsInnerProductPass",
    "dnn-select-kernels": "dnnc.passes.select_kernels:SelectKernelsPass",
    "dnn-assign-precision": "dnnc.passes.assign_precision:AssignPrecisionPass",
    "dnn-assign-layouts": "dnnc.passes.assign_layouts:AssignLayoutsPass",
    "dnn-insert-data-transforms": "dnnc.passes.insert_data_transforms:InsertDataTransformsPass",
    "dnn-remove-redundant-reorders": (
        "dnnc.passes.remove_redundant_reorders:RemoveRedundantReordersPass"
    ),
    "dnn-canonicalize": "dnnc.passes.canonicalize:CanonicalizePass",
    "dnn-transpose-as-view": "dnnc.passes.transpose_as_view:TransposeAsViewPass",
    "dnn-fold-constants": "dnnc.passes.fold_constants:FoldConstantsPass",
    "dnn-scale-weights": "dnnc.passes.scale_weights:ScaleWeightsPass",
    "dnn-hoist-strides": "dnnc.passes.hoist_strides:HoistStridesPass",
    "dnn-buffer-fusing": "dnnc.passes.buffer_fusing:BufferFusingPass",
    "dnn-inplace": "dnnc.passes.inplace:InplacePass",
}
"""dnnc's own passes: command-line name -> `module:Class`."""

_PIPELINES: dict[str, str] = {
    "dnn-optimize": "dnnc.driver.pipelines:OptimizePipeline",
    "dnn-to-onednn": "dnnc.driver.pipelines:ToOnednnPipeline",
}
"""Named pipelines: usable wherever a pass name is."""


def _pass_factory(target: str) -> PassFactory:
    """A factory importing the pass class `module:Class` when called."""

    def load() -> type[ModulePass]:
        cls = load_target(target)
        if not (isinstance(cls, type) and issubclass(cls, ModulePass)):
            raise TypeError(f"registry entry {target} is not a ModulePass")
        return cls

    return load


def get_dnnc_passes() -> dict[str, PassFactory]:
    """dnnc's own passes (not the xDSL ones, not the pipelines) by command-line name."""
    return {name: _pass_factory(target) for name, target in _DNNC_PASSES.items()}


def get_pipelines() -> dict[str, PassFactory]:
    """The named pipelines by command-line name."""
    return {name: _pass_factory(target) for name, target in _PIPELINES.items()}


def get_all_passes() -> dict[str, PassFactory]:
    """Every name `-p` accepts: the xDSL passes, dnnc's passes and the named pipelines."""
    xdsl_passes = get_xdsl_passes()
    passes = {name: xdsl_passes[name] for name in _XDSL_PASSES}
    passes.update(get_dnnc_passes())
    passes.update(get_pipelines())
    return passes
