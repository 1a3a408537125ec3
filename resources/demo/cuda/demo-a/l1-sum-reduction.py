import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# One thread per output element walks the reduced dimension one dependent load at
# a time (strided by the inner size), accumulating in double. For (32, 256, 64)
# summed over dim 1 that is only 2048 threads, each waiting on 256 memory round
# trips in a row.
sum_cpp = "torch::Tensor sum_dim_forward(torch::Tensor x, int64_t dim);"

sum_cuda = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <climits>
#include <vector>

__global__ void sum_dim_kernel(const float* x, float* y, int64_t outer, int64_t reduce, int64_t inner) {
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= outer * inner) return;
    const int64_t o = idx / inner;
    const int64_t i = idx - o * inner;
    const float* p = x + o * reduce * inner + i;
    double acc = 0.0;
    #pragma unroll 1
    for (int64_t r = 0; r < reduce; ++r) {
        acc += (double)p[r * inner];
    }
    y[idx] = (float)acc;
}

torch::Tensor sum_dim_forward(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda(), "sum_dim_forward: x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "sum_dim_forward: x must be float32");
    TORCH_CHECK(x.dim() >= 1, "sum_dim_forward: x must have at least one dimension");
    const int64_t nd = x.dim();
    if (dim < 0) dim += nd;
    TORCH_CHECK(dim >= 0 && dim < nd, "sum_dim_forward: dim out of range");
    torch::Tensor xc = x.contiguous();
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < dim; ++d) outer *= xc.size(d);
    for (int64_t d = dim + 1; d < nd; ++d) inner *= xc.size(d);
    const int64_t reduce = xc.size(dim);
    std::vector<int64_t> out_sizes(xc.sizes().begin(), xc.sizes().end());
    out_sizes[dim] = 1;  // keepdim=True
    torch::Tensor y = torch::empty(out_sizes, xc.options());
    const int64_t n_out = outer * inner;
    if (n_out == 0) return y;
    const int threads = 128;
    const int64_t blocks = (n_out + threads - 1) / threads;
    TORCH_CHECK(blocks <= INT_MAX, "sum_dim_forward: too many outputs");
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    sum_dim_kernel<<<(unsigned int)blocks, threads, 0, stream>>>(
        xc.data_ptr<float>(), y.data_ptr<float>(), outer, reduce, inner);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

sum_ext = load_inline(
    name="demo_a_cuda_sum_dim",
    cpp_sources=sum_cpp,
    cuda_sources=sum_cuda,
    functions=["sum_dim_forward"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return sum_ext.sum_dim_forward(x, self.dim)
