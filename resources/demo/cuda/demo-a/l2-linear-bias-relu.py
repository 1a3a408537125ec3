import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Naive GEMM with the bias and ReLU fused in: one thread computes a whole output
# row (out_features dot products of length in_features, accumulated in double).
# No tiling, no shared memory, and only batch_size threads (64) do all the work.
linear_cpp = "torch::Tensor linear_bias_relu_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b);"

linear_cuda = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <climits>

// y[row, j] = relu(sum_k x[row, k] * w[j, k] + b[j]); w has nn.Linear's (out, in) layout.
__global__ void linear_bias_relu_row_kernel(const float* x, const float* w, const float* b, float* y,
                                            int64_t rows, int64_t out_f, int64_t in_f) {
    const int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* xr = x + row * in_f;
    float* yr = y + row * out_f;
    for (int64_t j = 0; j < out_f; ++j) {
        const float* wr = w + j * in_f;
        double acc = 0.0;
        for (int64_t k = 0; k < in_f; ++k) acc += (double)xr[k] * (double)wr[k];
        const float v = (float)(acc + (double)b[j]);
        yr[j] = v < 0.0f ? 0.0f : v;
    }
}

torch::Tensor linear_bias_relu_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b) {
    TORCH_CHECK(x.is_cuda() && w.is_cuda() && b.is_cuda(), "linear_bias_relu_forward: CUDA tensors expected");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32 && w.scalar_type() == torch::kFloat32 &&
                b.scalar_type() == torch::kFloat32, "linear_bias_relu_forward: float32 tensors expected");
    TORCH_CHECK(x.dim() == 2 && w.dim() == 2 && b.dim() == 1, "linear_bias_relu_forward: bad ranks");
    TORCH_CHECK(x.size(1) == w.size(1), "linear_bias_relu_forward: x has ", x.size(1),
                " features but the weight expects ", w.size(1));
    TORCH_CHECK(b.size(0) == w.size(0), "linear_bias_relu_forward: weight/bias mismatch");
    torch::Tensor xc = x.contiguous(), wc = w.contiguous(), bc = b.contiguous();
    const int64_t rows = xc.size(0), in_f = xc.size(1), out_f = wc.size(0);
    torch::Tensor y = torch::empty({rows, out_f}, xc.options());
    if (rows == 0 || out_f == 0) return y;
    const int threads = 128;
    const int64_t blocks = (rows + threads - 1) / threads;
    TORCH_CHECK(blocks <= INT_MAX, "linear_bias_relu_forward: too many rows");
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    linear_bias_relu_row_kernel<<<(unsigned int)blocks, threads, 0, stream>>>(
        xc.data_ptr<float>(), wc.data_ptr<float>(), bc.data_ptr<float>(), y.data_ptr<float>(),
        rows, out_f, in_f);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

linear = load_inline(
    name="demo_a_cuda_linear_bias_relu",
    cpp_sources=linear_cpp,
    cuda_sources=linear_cuda,
    functions=["linear_bias_relu_forward"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        # the same layer as the reference, so the seeded initialisation matches
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return linear.linear_bias_relu_forward(x, self.linear.weight, self.linear.bias)
