// RUN: dnnc-opt --list-passes | filecheck %s

/// Every pass with its class, its rule (the module docstring) and its options.
// CHECK:      # Passes and pipelines
// CHECK:      ## dnn-fuse-post-ops
// CHECK-NEXT: {{^$}}
// CHECK-NEXT: `dnnc.passes.fuse_post_ops.FusePostOpsPass`
// CHECK:      Options:
// CHECK-NEXT: - `max-post-ops` (int, default `8`): The longest post-op chain to build
// CHECK:      ## dnn-optimize
// CHECK:      ## dnn-to-onednn
