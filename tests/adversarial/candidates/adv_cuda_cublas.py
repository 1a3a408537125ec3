"""Calls cuBLAS for a GEMM task although the policy forbids vendor libraries."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cublas_v2.h>
torch::Tensor mm(torch::Tensor a, torch::Tensor b) {
    int64_t m = a.size(0), k = a.size(1), n = b.size(1);
    auto c = torch::empty({m, n}, a.options());
    const float alpha = 1.f, beta = 0.f;
    cublasHandle_t h = at::cuda::getCurrentCUDABlasHandle();
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b.data_ptr<float>(), n,
                a.data_ptr<float>(), k, &beta, c.data_ptr<float>(), n);
    return c;
}
"""
cpp_src = "torch::Tensor mm(torch::Tensor a, torch::Tensor b);"
ext = load_inline(name="adv_cuda_cublas", cpp_sources=[cpp_src], cuda_sources=[cuda_src], functions=["mm"],
                  extra_ldflags=["-lcublas"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return ext.mm(a, b)
