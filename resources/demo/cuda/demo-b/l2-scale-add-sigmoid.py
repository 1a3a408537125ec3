import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Fused scale, bias and sigmoid with a grid-stride loop, launched as one block of
# 256 threads "because the loop covers any size": one SM out of many walks the
# whole tensor, one scalar load at a time per thread.
fused_cpp = "torch::Tensor scale_bias_sigmoid_forward(torch::Tensor x, torch::Tensor bias, double scale);"

fused_cuda = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>

__global__ void scale_bias_sigmoid_kernel(const float* x, const float* bias, float* y,
                                          int64_t n, int64_t c, float scale) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float t = __fadd_rn(__fmul_rn(x[i], scale), bias[i % c]);
        y[i] = 1.0f / (1.0f + expf(-t));
    }
}

torch::Tensor scale_bias_sigmoid_forward(torch::Tensor x, torch::Tensor bias, double scale) {
    TORCH_CHECK(x.is_cuda() && bias.is_cuda(), "scale_bias_sigmoid_forward: CUDA tensors expected");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32 && bias.scalar_type() == torch::kFloat32,
                "scale_bias_sigmoid_forward: float32 tensors expected");
    TORCH_CHECK(x.dim() >= 1, "scale_bias_sigmoid_forward: x must have at least one dimension");
    const int64_t c = x.size(x.dim() - 1);
    TORCH_CHECK(bias.dim() == 1 && bias.size(0) == c,
                "scale_bias_sigmoid_forward: bias must have one value per channel (last dimension)");
    torch::Tensor xc = x.contiguous();
    torch::Tensor bc = bias.contiguous();
    torch::Tensor y = torch::empty_like(xc);
    const int64_t n = xc.numel();
    if (n == 0) return y;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    scale_bias_sigmoid_kernel<<<1, 256, 0, stream>>>(
        xc.data_ptr<float>(), bc.data_ptr<float>(), y.data_ptr<float>(), n, c, (float)scale);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

fused = load_inline(
    name="demo_b_cuda_scale_add_sigmoid",
    cpp_sources=fused_cpp,
    cuda_sources=fused_cuda,
    functions=["scale_bias_sigmoid_forward"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, channels, scale):
        super().__init__()
        self.scale = scale
        self.bias = nn.Parameter(torch.randn(channels) * 0.1)

    def forward(self, x):
        return fused.scale_bias_sigmoid_forward(x, self.bias, self.scale)
