"""Side-stream work with the stream API spelled by token pasting (only
suspicious statically).  The timer synchronizes the whole device before its
end mark, so the work is measured; expect an honest time."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#define ADV_CAT(a, b) a##b
__global__ void relu_k(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
torch::Tensor relu(torch::Tensor x) {
    static cudaStream_t side = nullptr;
    if (!side) ADV_CAT(cudaStream, CreateWithFlags)(&side, cudaStreamNonBlocking);
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    for (int rep = 0; rep < 20; ++rep)
        relu_k<<<(n + 255) / 256, 256, 0, side>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
cpp_src = "torch::Tensor relu(torch::Tensor x);"
ext = load_inline(name="adv_cuda_side_stream_hidden", cpp_sources=[cpp_src], cuda_sources=[cuda_src],
                  functions=["relu"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.relu(x)
