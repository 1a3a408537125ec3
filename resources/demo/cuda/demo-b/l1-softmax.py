import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# One 256-thread block per row; max and sum reduced with warp shuffles.
softmax_cpp = "torch::Tensor softmax_forward(torch::Tensor x);"

softmax_cuda = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <climits>
#include <math.h>

__device__ __forceinline__ float warp_max(float v) {
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

__global__ void softmax_block_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
    __shared__ float red[32];
    const int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int nwarps = (blockDim.x + 31) >> 5;

    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, xr[j]);
    m = warp_max(m);
    if (lane == 0) red[warp] = m;
    __syncthreads();
    if (warp == 0) {
        m = lane < nwarps ? red[lane] : -INFINITY;
        m = warp_max(m);
        if (lane == 0) red[0] = m;
    }
    __syncthreads();
    m = red[0];

    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += expf(xr[j] - m);
    s = warp_sum(s);  // row sum
    const float inv = 1.0f / s;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = expf(xr[j] - m) * inv;
}

torch::Tensor softmax_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "softmax_forward: x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "softmax_forward: x must be float32");
    TORCH_CHECK(x.dim() == 2, "softmax_forward: expects a (batch, dim) tensor");
    torch::Tensor xc = x.contiguous();
    torch::Tensor y = torch::empty_like(xc);
    const int64_t rows = xc.size(0), cols = xc.size(1);
    if (rows == 0 || cols == 0) return y;
    TORCH_CHECK(rows <= INT_MAX, "softmax_forward: too many rows");
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    softmax_block_kernel<<<(unsigned int)rows, 256, 0, stream>>>(xc.data_ptr<float>(), y.data_ptr<float>(), cols);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

softmax = load_inline(
    name="demo_b_cuda_softmax",
    cpp_sources=softmax_cpp,
    cuda_sources=softmax_cuda,
    functions=["softmax_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return softmax.softmax_forward(x)
