import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

relu_cpp = "torch::Tensor relu_inplace(torch::Tensor y);"

relu_cuda = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <algorithm>

__global__ void relu_inplace_kernel(float* __restrict__ y, int64_t n) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        if (y[i] < 0.0f) y[i] = 0.0f;
    }
}

torch::Tensor relu_inplace(torch::Tensor y) {
    TORCH_CHECK(y.is_cuda() && y.scalar_type() == torch::kFloat32 && y.is_contiguous(),
                "relu_inplace: contiguous float32 CUDA tensor expected");
    const int64_t n = y.numel();
    if (n == 0) return y;
    const int threads = 256;
    const unsigned int blocks = (unsigned int)std::min<int64_t>((n + threads - 1) / threads, 65535);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    relu_inplace_kernel<<<blocks, threads, 0, stream>>>(y.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

relu = load_inline(
    name="demo_b_cuda_linear_relu",
    cpp_sources=relu_cpp,
    cuda_sources=relu_cuda,
    functions=["relu_inplace"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        # the GEMM is PyTorch's, only the ReLU is custom
        y = F.linear(x, self.linear.weight, self.linear.bias)
        return relu.relu_inplace(y)
