import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# y = x @ w^T + b (optionally ReLU) as a 16 x 16 shared-memory tiled GEMM with the
# bias and activation in the epilogue; one launch per layer.
mlp_cpp = "torch::Tensor linear_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b, bool relu);"

mlp_cuda = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <climits>

#define TILE 16

// x: (M, K), w: (N, K) as stored by nn.Linear, b: (N), y: (M, N)
__global__ void linear_tiled_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                    const float* __restrict__ b, float* __restrict__ y,
                                    int M, int N, int K, bool relu) {
    __shared__ float xs[TILE][TILE];
    __shared__ float ws[TILE][TILE + 1];
    const int row = blockIdx.y * TILE + threadIdx.y;   // output row
    const int col = blockIdx.x * TILE + threadIdx.x;   // output feature
    const int wrow = blockIdx.x * TILE + threadIdx.y;  // weight row this thread loads
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        const int k = k0 + threadIdx.x;
        xs[threadIdx.y][threadIdx.x] = (row < M && k < K) ? x[(int64_t)row * K + k] : 0.0f;
        ws[threadIdx.y][threadIdx.x] = (wrow < N && k < K) ? w[(int64_t)wrow * K + k] : 0.0f;
        __syncthreads();
        #pragma unroll
        for (int kk = 0; kk < TILE; ++kk) acc = fmaf(xs[threadIdx.y][kk], ws[threadIdx.x][kk], acc);
        __syncthreads();
    }
    if (row < M && col < N) {
        float v = acc + b[col];
        if (relu && v < 0.0f) v = 0.0f;
        y[(int64_t)row * N + col] = v;
    }
}

torch::Tensor linear_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b, bool relu) {
    TORCH_CHECK(x.is_cuda() && w.is_cuda() && b.is_cuda(), "linear_forward: CUDA tensors expected");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32 && w.scalar_type() == torch::kFloat32 &&
                b.scalar_type() == torch::kFloat32, "linear_forward: float32 tensors expected");
    TORCH_CHECK(x.dim() == 2 && w.dim() == 2 && b.dim() == 1, "linear_forward: bad ranks");
    TORCH_CHECK(x.size(1) == w.size(1), "linear_forward: x has ", x.size(1),
                " features but the weight expects ", w.size(1));
    TORCH_CHECK(b.size(0) == w.size(0), "linear_forward: weight/bias mismatch");
    torch::Tensor xc = x.contiguous(), wc = w.contiguous(), bc = b.contiguous();
    const int64_t M = xc.size(0), K = xc.size(1), N = wc.size(0);
    TORCH_CHECK(M <= INT_MAX && N <= INT_MAX && K <= INT_MAX, "linear_forward: matrix too large");
    torch::Tensor y = torch::empty({M, N}, xc.options());
    if (M == 0 || N == 0) return y;
    const dim3 block(TILE, TILE);
    const dim3 grid((unsigned int)((N + TILE - 1) / TILE), (unsigned int)((M + TILE - 1) / TILE));
    TORCH_CHECK(grid.y <= 65535, "linear_forward: too many rows");
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    linear_tiled_kernel<<<grid, block, 0, stream>>>(xc.data_ptr<float>(), wc.data_ptr<float>(),
                                                    bc.data_ptr<float>(), y.data_ptr<float>(),
                                                    (int)M, (int)N, (int)K, relu);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

mlp = load_inline(
    name="demo_b_cuda_mlp_linear",
    cpp_sources=mlp_cpp,
    cuda_sources=mlp_cuda,
    functions=["linear_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_sizes, output_size):
        super().__init__()
        layers = []
        current = input_size
        for h in hidden_sizes:
            layers.append(nn.Linear(current, h))
            layers.append(nn.ReLU())
            current = h
        layers.append(nn.Linear(current, output_size))
        self.network = nn.Sequential(*layers)
        self.linears = [m for m in self.network if isinstance(m, nn.Linear)]

    def forward(self, x):
        last = len(self.linears) - 1
        for i, layer in enumerate(self.linears):
            # passes the weight transposed: the kernel expects (out, in)
            x = mlp.linear_forward(x, layer.weight.t(), layer.bias, i < last)
        return x
