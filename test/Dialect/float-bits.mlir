/// A hexadecimal literal in a float tensor is the element's bit pattern (MLIR's rule): the form
/// in which NaN, infinities and finite values without a short decimal (123456792) print, so
/// that a text round trip keeps them (xDSL alone read `dense<0xFF800000> : tensor<f32>` as
/// 4.28e9, not -inf: every saved causal mask changed).
// RUN: dnnc-opt %s --split-input-file | dnnc-opt --split-input-file | filecheck %s
// RUN: dnnc-opt %s --split-input-file --print-op-generic | dnnc-opt --split-input-file | filecheck %s

// CHECK-LABEL: func.func @special_values
// CHECK-NEXT:    %a = dnn.constant dense<[0xff800000, 0x7f800000, 0x7fc00000, 1.500000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %b = dnn.constant dense<0xff800000> : tensor<1x1x1x1xf32>
// CHECK-NEXT:    %c = dnn.constant dense<0x4CEB79A3> : tensor<2xf32>
// CHECK-NEXT:    %d = dnn.constant dense<[0xfc00, 1.000000e+00]> : tensor<2xf16>
// CHECK-NEXT:    %e = dnn.constant dense<[0xff80, 1.000000e+00]> : tensor<2xbf16>
// CHECK-NEXT:    %f = dnn.constant dense<[16, -3]> : tensor<2xi32>
func.func @special_values() -> (tensor<4xf32>, tensor<1x1x1x1xf32>, tensor<2xf32>, tensor<2xf16>, tensor<2xbf16>, tensor<2xi32>) {
  %a = dnn.constant dense<[0xFF800000, 0x7F800000, 0x7FC00000, 1.5]> : tensor<4xf32>
  %b = dnn.constant dense<0xFF800000> : tensor<1x1x1x1xf32>
  %c = dnn.constant dense<123456792.0> : tensor<2xf32>
  %d = dnn.constant dense<[0xFC00, 1.0]> : tensor<2xf16>
  %e = dnn.constant dense<[0xFF80, 0x3F80]> : tensor<2xbf16>
  %f = dnn.constant dense<[0x10, -3]> : tensor<2xi32>
  func.return %a, %b, %c, %d, %e, %f : tensor<4xf32>, tensor<1x1x1x1xf32>, tensor<2xf32>, tensor<2xf16>, tensor<2xbf16>, tensor<2xi32>
}
