// A ResNet-style basic block on a 1x16x32x32 input, then 2x2 max pooling:
//   y = maxpool(relu(bn2(conv2(relu(bn1(conv1(x))))) + x))
// Weights live in residual_block.npz next to this file
// (written by make_residual_block_weights.py, fixed seed).
func.func @residual_block(%x: tensor<1x16x32x32xf32>) -> tensor<1x16x16x16xf32> {
  %conv1_wei = dnn.weight "residual_block.npz", "conv1.wei" : tensor<16x16x3x3xf32>
  %conv1_bias = dnn.weight "residual_block.npz", "conv1.bias" : tensor<16xf32>
  %bn1_scale = dnn.weight "residual_block.npz", "bn1.scale" : tensor<16xf32>
  %bn1_shift = dnn.weight "residual_block.npz", "bn1.shift" : tensor<16xf32>
  %bn1_mean = dnn.weight "residual_block.npz", "bn1.mean" : tensor<16xf32>
  %bn1_variance = dnn.weight "residual_block.npz", "bn1.variance" : tensor<16xf32>
  %conv2_wei = dnn.weight "residual_block.npz", "conv2.wei" : tensor<16x16x3x3xf32>
  %conv2_bias = dnn.weight "residual_block.npz", "conv2.bias" : tensor<16xf32>
  %bn2_scale = dnn.weight "residual_block.npz", "bn2.scale" : tensor<16xf32>
  %bn2_shift = dnn.weight "residual_block.npz", "bn2.shift" : tensor<16xf32>
  %bn2_mean = dnn.weight "residual_block.npz", "bn2.mean" : tensor<16xf32>
  %bn2_variance = dnn.weight "residual_block.npz", "bn2.variance" : tensor<16xf32>

  %c1 = dnn.conv2d %x, %conv1_wei, %conv1_bias {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x16x32x32xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>
  %b1 = dnn.batch_norm %c1, %bn1_scale, %bn1_shift, %bn1_mean, %bn1_variance : (tensor<1x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>
  %r1 = dnn.eltwise relu %b1 : tensor<1x16x32x32xf32>

  %c2 = dnn.conv2d %r1, %conv2_wei, %conv2_bias {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x16x32x32xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>
  %b2 = dnn.batch_norm %c2, %bn2_scale, %bn2_shift, %bn2_mean, %bn2_variance : (tensor<1x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>

  %sum = dnn.binary add %b2, %x : (tensor<1x16x32x32xf32>, tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32>
  %r2 = dnn.eltwise relu %sum : tensor<1x16x32x32xf32>
  %y = dnn.pool max %r2 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x16x32x32xf32>) -> tensor<1x16x16x16xf32>
  func.return %y : tensor<1x16x16x16xf32>
}
