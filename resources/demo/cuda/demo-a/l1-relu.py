import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# One thread per row: each of the 64 threads walks a whole 4096-element row with a
# branch per element. Neighbouring threads read and write different rows, so no
# access is coalesced and only two warps do all the work.
relu_cpp = "torch::Tensor relu_forward(torch::Tensor x);"

relu_cuda = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <climits>

__global__ void relu_rows_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
    const int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    for (int64_t j = 0; j < cols; ++j) {
        const float v = xr[j];
        if (v < 0.0f) {
            yr[j] = 0.0f;
        } else {
            yr[j] = v;  // NaN stays NaN, as in torch.relu
        }
    }
}

torch::Tensor relu_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "relu_forward: x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "relu_forward: x must be float32");
    torch::Tensor xc = x.contiguous();
    torch::Tensor y = torch::empty_like(xc);
    const int64_t n = xc.numel();
    if (n == 0) return y;
    const int64_t cols = xc.dim() > 0 ? xc.size(xc.dim() - 1) : 1;
    const int64_t rows = n / cols;
    const int threads = 128;
    const int64_t blocks = (rows + threads - 1) / threads;
    TORCH_CHECK(blocks <= INT_MAX, "relu_forward: too many rows");
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    relu_rows_kernel<<<(unsigned int)blocks, threads, 0, stream>>>(
        xc.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

relu = load_inline(
    name="demo_a_cuda_relu",
    cpp_sources=relu_cpp,
    cuda_sources=relu_cuda,
    functions=["relu_forward"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return relu.relu_forward(x)
