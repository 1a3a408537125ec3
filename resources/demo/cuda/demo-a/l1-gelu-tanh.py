import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# One fused pass over the data, four floats per thread (float4 loads and stores):
# the eager reference launches eight kernels (pow, mul, add, mul, tanh, add, mul, mul)
# and reads and writes the tensor once per op.
gelu_cpp = "torch::Tensor gelu_tanh_forward(torch::Tensor x);"

gelu_cuda = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>

__device__ __forceinline__ float gelu_tanh(float v) {
    const float k0 = 0.7978845608028654f;  // sqrt(2 / pi)
    const float k1 = 0.044715f;
    const float inner = k0 * (v + k1 * (v * v * v));
    return 0.5f * v * (1.0f + tanhf(inner));
}

__global__ void gelu_vec4_kernel(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = x[i];
        v.x = gelu_tanh(v.x);
        v.y = gelu_tanh(v.y);
        v.z = gelu_tanh(v.z);
        v.w = gelu_tanh(v.w);
        y[i] = v;
    }
}

// Elements [begin, n): the tail after the float4 part, or everything when the
// pointers are not 16-byte aligned.
__global__ void gelu_scalar_kernel(const float* __restrict__ x, float* __restrict__ y,
                                   int64_t begin, int64_t n) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = begin + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = gelu_tanh(x[i]);
    }
}

static unsigned int grid_for(int64_t work, int threads) {
    const int64_t blocks = (work + threads - 1) / threads;
    return (unsigned int)std::max<int64_t>(1, std::min<int64_t>(blocks, 65535));
}

torch::Tensor gelu_tanh_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "gelu_tanh_forward: x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "gelu_tanh_forward: x must be float32");
    torch::Tensor xc = x.contiguous();
    torch::Tensor y = torch::empty_like(xc);
    const int64_t n = xc.numel();
    if (n == 0) return y;
    const float* xp = xc.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    const int threads = 256;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    const bool aligned = (reinterpret_cast<uintptr_t>(xp) % 16 == 0) &&
                         (reinterpret_cast<uintptr_t>(yp) % 16 == 0);
    int64_t done = 0;
    if (aligned) {
        const int64_t n4 = n / 4;
        if (n4 > 0) {
            gelu_vec4_kernel<<<grid_for(n4, threads), threads, 0, stream>>>(
                reinterpret_cast<const float4*>(xp), reinterpret_cast<float4*>(yp), n4);
            C10_CUDA_KERNEL_LAUNCH_CHECK();
        }
        done = n4 * 4;
    }
    if (done < n) {
        gelu_scalar_kernel<<<grid_for(n - done, threads), threads, 0, stream>>>(xp, yp, done, n);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
    return y;
}
"""

gelu = load_inline(
    name="demo_a_cuda_gelu_tanh",
    cpp_sources=gelu_cpp,
    cuda_sources=gelu_cuda,
    functions=["gelu_tanh_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return gelu.gelu_tanh_forward(x)
