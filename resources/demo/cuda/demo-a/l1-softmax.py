import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# One thread per row: 128 threads in a single block, each making three serial
# passes over its 256-element row (max, sum of exp in double, normalised exp).
# Neighbouring threads read different rows, so nothing is coalesced, and the
# exponentials are computed twice in double precision.
softmax_cpp = "torch::Tensor softmax_forward(torch::Tensor x);"

softmax_cuda = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <climits>
#include <math.h>

__global__ void softmax_row_per_thread_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
    const int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float m = -INFINITY;
    for (int64_t j = 0; j < cols; ++j) m = fmaxf(m, xr[j]);
    double s = 0.0;
    for (int64_t j = 0; j < cols; ++j) s += exp((double)xr[j] - (double)m);
    const double inv = 1.0 / s;
    for (int64_t j = 0; j < cols; ++j) yr[j] = (float)(exp((double)xr[j] - (double)m) * inv);
}

torch::Tensor softmax_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "softmax_forward: x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "softmax_forward: x must be float32");
    TORCH_CHECK(x.dim() == 2, "softmax_forward: expects a (batch, dim) tensor");
    torch::Tensor xc = x.contiguous();
    torch::Tensor y = torch::empty_like(xc);
    const int64_t rows = xc.size(0), cols = xc.size(1);
    if (rows == 0 || cols == 0) return y;
    const int threads = 128;
    const int64_t blocks = (rows + threads - 1) / threads;
    TORCH_CHECK(blocks <= INT_MAX, "softmax_forward: too many rows");
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    softmax_row_per_thread_kernel<<<(unsigned int)blocks, threads, 0, stream>>>(
        xc.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

softmax = load_inline(
    name="demo_a_cuda_softmax",
    cpp_sources=softmax_cpp,
    cuda_sources=softmax_cuda,
    functions=["softmax_forward"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return softmax.softmax_forward(x)
