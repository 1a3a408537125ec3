import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# sigmoid(x * scale + bias[c]) in one pass, four floats per thread: the eager
# reference launches three kernels (mul, add, sigmoid) and makes three trips
# through memory.
fused_cpp = "torch::Tensor scale_bias_sigmoid_forward(torch::Tensor x, torch::Tensor bias, double scale);"

fused_cuda = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>

__device__ __forceinline__ float scale_bias_sigmoid(float v, float scale, float b) {
    // same rounding steps as the reference: (x * scale), then + bias, then sigmoid
    const float t = __fadd_rn(__fmul_rn(v, scale), b);
    return 1.0f / (1.0f + expf(-t));
}

// Vector path: channels % 4 == 0 and all pointers 16-byte aligned, so each float4
// of x lies inside one row and matches one float4 of the bias.
__global__ void scale_bias_sigmoid_vec4_kernel(const float4* __restrict__ x, const float4* __restrict__ bias,
                                               float4* __restrict__ y, int64_t n4, int64_t c4, float scale) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        const float4 v = x[i];
        const float4 b = bias[i % c4];
        float4 r;
        r.x = scale_bias_sigmoid(v.x, scale, b.x);
        r.y = scale_bias_sigmoid(v.y, scale, b.y);
        r.z = scale_bias_sigmoid(v.z, scale, b.z);
        r.w = scale_bias_sigmoid(v.w, scale, b.w);
        y[i] = r;
    }
}

__global__ void scale_bias_sigmoid_scalar_kernel(const float* __restrict__ x, const float* __restrict__ bias,
                                                 float* __restrict__ y, int64_t n, int64_t c, float scale) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = scale_bias_sigmoid(x[i], scale, bias[i % c]);
    }
}

static unsigned int grid_for(int64_t work, int threads) {
    const int64_t blocks = (work + threads - 1) / threads;
    return (unsigned int)std::max<int64_t>(1, std::min<int64_t>(blocks, 65535));
}

static bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

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
    const float* xp = xc.data_ptr<float>();
    const float* bp = bc.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    const float s = (float)scale;
    const int threads = 256;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    if (c % 4 == 0 && aligned16(xp) && aligned16(bp) && aligned16(yp)) {
        const int64_t n4 = n / 4;  // n is a multiple of c, hence of 4
        scale_bias_sigmoid_vec4_kernel<<<grid_for(n4, threads), threads, 0, stream>>>(
            reinterpret_cast<const float4*>(xp), reinterpret_cast<const float4*>(bp),
            reinterpret_cast<float4*>(yp), n4, c / 4, s);
    } else {
        scale_bias_sigmoid_scalar_kernel<<<grid_for(n, threads), threads, 0, stream>>>(xp, bp, yp, n, c, s);
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

fused = load_inline(
    name="demo_a_cuda_scale_add_sigmoid",
    cpp_sources=fused_cpp,
    cuda_sources=fused_cuda,
    functions=["scale_bias_sigmoid_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, channels, scale):
        super().__init__()
        self.scale = scale
        # created exactly like the reference's bias, so the seeded values match
        self.bias = nn.Parameter(torch.randn(channels) * 0.1)

    def forward(self, x):
        return fused.scale_bias_sigmoid_forward(x, self.bias, self.scale)
