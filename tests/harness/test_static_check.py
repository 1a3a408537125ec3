"""The AST/C++ static checker."""

import glob
import os
import tempfile
import textwrap
import unittest

import harness_testlib as lib
from kbharness import static_check

HEADER = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

src = """
torch::Tensor op(torch::Tensor x) { return torch::empty_like(x); }
"""
ext = load_inline(name="t", cpp_sources=[src], functions=["op"])
'''


def check(body, policy=None, header=HEADER):
    return static_check.analyze(header + textwrap.dedent(body), policy or {})


def rules(findings, severity=None):
    return {f.rule for f in findings if severity is None or f.severity == severity}


def forward(code, init=""):
    return "\nclass ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n" + \
        textwrap.indent(textwrap.dedent(init), " " * 8) + \
        "\n    def forward(self, x):\n" + textwrap.indent(textwrap.dedent(code), " " * 8)


class TorchOpRuleTests(unittest.TestCase):
    def assertRejects(self, body, rule="torch-op-in-forward", **kw):
        found = check(body, **kw)
        self.assertIn(rule, rules(found, "reject"), found)
        return found

    def test_clean_candidate(self):
        found = check(forward("""
            y = torch.empty_like(x)
            n = x.numel()
            x = x.contiguous().view(-1).reshape(x.shape)
            return ext.op(x.to(x.device))
        """))
        self.assertEqual(rules(found, "reject"), set(), found)

    def test_torch_functions(self):
        for code in ("return torch.relu(x)", "return torch.matmul(x, x)", "return F.gelu(x)",
                     "return torch.nn.functional.softmax(x, dim=1)", "return torch.ops.aten.relu(x)",
                     "return torch.sigmoid(ext.op(x))"):
            with self.subTest(code=code):
                f = self.assertRejects(forward(code))
                self.assertTrue(any(x.line > 0 for x in f))

    def test_tensor_methods_and_operator(self):
        for code in ("return x.relu()", "return x.sum(dim=1)", "return x.exp_()", "return x @ x",
                     "return ext.op(x).softmax(-1)"):
            with self.subTest(code=code):
                self.assertRejects(forward(code))

    def test_nn_module_forward(self):
        self.assertRejects(forward("return self.lin(x)", init="self.lin = nn.Linear(4, 4)"))
        # using an nn.Linear only as a parameter holder is fine
        ok = check(forward("return ext.op(x, self.lin.weight)", init="self.lin = nn.Linear(4, 4)"))
        self.assertEqual(rules(ok, "reject"), set(), ok)

    def test_helpers_reachable_from_forward(self):
        body = """
def helper(t):
    return torch.tanh(t)
""" + forward("return self.step(x)") + """
    def step(self, x):
        return helper(ext.op(x))
"""
        found = self.assertRejects(body)
        self.assertTrue(any("helper" in f.message for f in found), found)

    def test_policy_allows_torch_ops(self):
        found = check(forward("return torch.relu(x)"), policy={"allow_torch_ops": True})
        self.assertNotIn("torch-op-in-forward", rules(found))

    def test_aliased_imports(self):
        body = "\nfrom torch import relu as r\nimport torch as T\n" + forward("return r(T.tanh(x))")
        found = check(body)
        self.assertEqual(sum(1 for f in found if f.rule == "torch-op-in-forward"), 2, found)

    def test_extension_module_methods_are_not_torch_ops(self):
        body = forward("return self.k.relu(x)", init="self.k = ext")
        self.assertEqual(rules(check(body), "reject"), set())
        body2 = "\ndef build():\n    return load_inline(name='b', cpp_sources=[src], functions=['relu'])\n" + \
            forward("return self.k.relu(x)", init="self.k = build()")
        self.assertEqual(rules(check(body2), "reject"), set())


class IntegrityRuleTests(unittest.TestCase):
    def test_reference_model(self):
        self.assertIn("reference-model-use", rules(check("\nclass ModelNew(Model):\n    pass\n")))
        self.assertIn("reference-model-use", rules(check(forward("return Model()(x)"))))

    def test_fallback(self):
        found = check(forward("""
            try:
                return ext.op(x)
            except Exception:
                return x.clamp(min=0)
        """))
        self.assertIn("fallback-try-except", rules(found, "reject"))
        body = "\ntry:\n    e2 = load_inline(name='u', cpp_sources=[src], functions=['op'])\nexcept Exception:\n" \
               "    e2 = None\n" + forward("return ext.op(x)")
        self.assertIn("fallback-try-except", rules(check(body), "reject"))

    def test_monkey_patching(self):
        for stmt in ("torch.allclose = lambda *a, **k: True", "import time\ntime.perf_counter = lambda: 0.0",
                     "torch.testing.assert_close = None", "setattr(torch, 'allclose', None)",
                     "F.relu = lambda x: x", "torch.backends.cuda.matmul.allow_tf32 = True"):
            with self.subTest(stmt=stmt):
                self.assertIn("monkey-patch", rules(check("\n" + stmt + "\n" + forward("return ext.op(x)")),
                                                    "reject"))

    def test_forbidden_imports(self):
        for mod in ("threading", "multiprocessing", "ctypes", "gc", "inspect", "socket", "subprocess",
                    "kbharness"):
            with self.subTest(mod=mod):
                self.assertIn("forbidden-import", rules(check("\nimport %s\n" % mod + forward("return ext.op(x)"))))
        self.assertIn("forbidden-import", rules(check("\nfrom concurrent.futures import ThreadPoolExecutor\n")))
        self.assertIn("forbidden-call", rules(check("\nimport os\nos.system('true')\n")))

    def test_dynamic_code(self):
        for stmt in ("exec('x = 1')", "eval('1')", "compile('1', 'f', 'eval')", "__import__('os')"):
            with self.subTest(stmt=stmt):
                self.assertIn("dynamic-code", rules(check("\n" + stmt + "\n"), "reject"))

    def test_file_writes(self):
        for stmt in ("open('/tmp/x', 'w').write('1')", "open('/tmp/x', mode='a')",
                     "import pathlib\npathlib.Path('/tmp/x').write_text('1')", "import os\nos.remove('/tmp/x')"):
            with self.subTest(stmt=stmt):
                found = check("\n" + stmt + "\n")
                self.assertTrue(rules(found, "reject") & {"file-write", "forbidden-call"}, found)
        self.assertNotIn("file-write", rules(check("\nopen('/etc/hostname').read()\n")))

    def test_global_settings(self):
        self.assertIn("global-state", rules(check("\ntorch.set_num_threads(64)\n"), "reject"))

    def test_syntax_error_and_missing_modelnew_are_invalid(self):
        found = static_check.analyze("def broken(:\n", {})
        self.assertEqual(static_check.verdict_for(found), "invalid_candidate")
        self.assertEqual(found[0].line, 1)
        found = check("\nclass Other(nn.Module):\n    pass\n")
        self.assertEqual(static_check.verdict_for(found), "invalid_candidate")

    def test_unreadable_kernel_file(self):
        """A workspace kernel file the check cannot read is not built unchecked."""
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "kernels"))
            with open(os.path.join(d, "model_new.py"), "w") as f:
                f.write("import torch.nn as nn\nimport kb_kernels\nclass ModelNew(nn.Module):\n"
                        "    def forward(self, x):\n        return kb_kernels.op(x)\n")
            with open(os.path.join(d, "kernels", "op.cu"), "wb") as f:
                f.write(b"__global__ void k(float* p) { p[0] = 1; } // \xff\xfe not UTF-8\n")
            found = static_check.analyze_workspace(d, {})
        self.assertIn("unreadable-source", rules(found, "reject"), found)
        self.assertEqual(static_check.verdict_for(found), "rejected")

    def test_no_kernel_is_only_suspicious(self):
        found = static_check.analyze("import torch.nn as nn\nclass ModelNew(nn.Module):\n"
                                     "    def forward(self, x):\n        return x\n", {})
        self.assertIn("no-custom-kernel", rules(found, "suspicious"))
        self.assertIsNone(static_check.verdict_for(found))

    def test_no_kernel_is_only_information_where_torch_ops_are_allowed(self):
        found = static_check.analyze("import torch.nn as nn\nclass ModelNew(nn.Module):\n"
                                     "    def forward(self, x):\n        return x\n", {"allow_torch_ops": True})
        self.assertIn("no-custom-kernel", rules(found, "info"))
        self.assertNotIn("no-custom-kernel", rules(found, "suspicious"))


class CppScanTests(unittest.TestCase):
    def cpp(self, code, policy=None):
        body = 'import torch.nn as nn\nfrom torch.utils.cpp_extension import load_inline\nsrc = r"""\n' + \
            textwrap.dedent(code) + '"""\next = load_inline(name="c", cpp_sources=[src], functions=["f"])\n' + \
            "class ModelNew(nn.Module):\n    def forward(self, x):\n        return ext.f(x)\n"
        return static_check.analyze(body, policy or {})

    def test_torch_compute_calls(self):
        found = self.cpp("""
            #include <torch/extension.h>
            torch::Tensor f(torch::Tensor x) {
                auto y = torch::empty_like(x);
                auto z = at::relu(x);
                return torch::matmul(z, y);
            }
        """)
        hits = [f for f in found if f.rule == "cpp-torch-op"]
        self.assertEqual(len(hits), 2, found)
        self.assertEqual(sorted(f.line for f in hits), [8, 9])

    def test_allowed_and_commented(self):
        found = self.cpp("""
            #include <torch/extension.h>
            // torch::matmul would be cheating
            /* at::relu(x) too */
            torch::Tensor f(torch::Tensor x) {
                auto y = torch::zeros({x.size(0)}, x.options());
                at::parallel_for(0, 10, 1, [&](int64_t b, int64_t e) {});
                TORCH_CHECK(x.is_contiguous(), "at::relu(x) in a message is fine");
                return y;
            }
        """)
        self.assertEqual(rules(found, "reject"), set(), found)

    def test_tensor_methods_threads_vendor(self):
        self.assertIn("cpp-torch-op", rules(self.cpp("torch::Tensor f(torch::Tensor x) { return x.matmul(x); }")))
        self.assertIn("cpp-thread-or-stream",
                      rules(self.cpp("#include <thread>\nvoid f() { std::thread t([]{}); t.detach(); }")))
        self.assertIn("vendor-library", rules(self.cpp("void f() { cublasSgemm(h, 0, 0, 1, 1, 1); }")))
        allowed = self.cpp("void f() { cublasSgemm(h, 0, 0, 1, 1, 1); }", {"allow_vendor_libraries": True})
        self.assertNotIn("vendor-library", rules(allowed))
        self.assertIn("precision-downgrade", rules(self.cpp("__global__ void k(__half* p) { p[0] = 0; }")))


class HardeningRuleTests(unittest.TestCase):
    """Rules that close the gaps the adversarial suite (tests/adversarial) probes."""

    def assertRule(self, body, rule, severity="reject", policy=None):
        found = check(body, policy)
        self.assertIn(rule, rules(found, severity), found)

    def test_forbidden_modules_through_attributes(self):
        self.assertRule("import torch.utils.data.dataloader as dl\nt = dl.threading.Thread\n", "forbidden-import")
        self.assertRule("import numpy as np\nc = np.ctypeslib\n", "forbidden-import")
        self.assertRule("x = torch.multiprocessing.Process\n", "forbidden-import")
        self.assertRule("import base64\n", "forbidden-import")
        self.assertRule("d = torch.__dict__\n", "introspection")
        self.assertRule("m = torch.hub.load\n", "network")

    def test_getattr_and_dynamic_classes(self):
        self.assertRule("f = getattr(torch, 're' + 'lu')\n", "dynamic-code")
        self.assertRule("f = getattr(torch, 'relu')\n", "torch-op-in-forward")
        self.assertRule("f = getattr(F, 'gelu')\n", "torch-op-in-forward")
        self.assertRule("f = getattr(torch, 'empty_like')\n", "dynamic-code", "suspicious")
        self.assertRule("T = type('T', (torch.Tensor,), {})\n", "dynamic-code", "suspicious")

    def test_tensor_subclasses(self):
        self.assertRule("class T(torch.Tensor):\n    pass\n", "tensor-subclass")
        self.assertRule("class T:\n    def __torch_function__(self, *a):\n        pass\n", "tensor-subclass")
        self.assertRule("y = torch.empty(3).as_subclass(object)\n", "tensor-subclass")

    def test_seed_probes_and_files(self):
        self.assertRule("s = open('/proc/self/stat').read()\n", "file-read")
        self.assertRule("s = open('/proc/%d/cmdline' % 1).read()\n", "file-read")
        self.assertRule("s = open(0).read()\n", "file-read")
        self.assertRule("s = input()\n", "file-read")
        self.assertRule("import os\np = os.getppid()\n", "forbidden-call")
        self.assertRule("torch.save({}, 'x.pt')\n", "file-write")
        self.assertRule("import io\nf = io.FileIO('x', 'w')\n", "file-write")
        self.assertRule("import os\nn = os.listdir('.')\n", "file-scan", "suspicious")

    def test_streams_graphs_and_runtime(self):
        self.assertRule("s = torch.cuda.Stream()\n", "side-stream")
        self.assertRule("g = torch.cuda.CUDAGraph()\n", "cuda-graph")
        self.assertRule("r = torch.cuda.cudart()\n", "cuda-runtime-access")

    def test_precision_everywhere(self):
        self.assertRule("dt = torch.float16\n", "precision-downgrade", "suspicious")
        self.assertRule("dt = torch.bfloat16\n", "precision-downgrade", "info", policy={"precision": "bf16"})

    def test_suspicious_structure(self):
        """Patterns that mark a candidate for review without rejecting it."""
        self.assertRule("\nclass ModelNew(nn.Module):\n    pass\n", "missing-forward", "suspicious")
        self.assertRule(forward("self.last = x\nreturn ext.op(x)\n"), "state-in-forward", "suspicious")
        self.assertRule("\nclass Helper(nn.Module):\n    pass\n" + forward("h = Helper()\nreturn ext.op(x)\n"),
                        "module-in-forward", "suspicious")
        self.assertRule("import os\nos.environ['OMP_NUM_THREADS'] = '8'\n", "env-change", "suspicious")

    def test_cpp_streams_graphs_l2_files(self):
        cpp = CppScanTests.cpp
        self.assertIn("side-stream", rules(cpp(self, "void f() { cudaStream_t s; cudaStreamCreate(&s); }")))
        self.assertIn("side-stream", rules(cpp(self, "void f() { auto s = at::cuda::getStreamFromPool(); }")))
        self.assertIn("cuda-graph", rules(cpp(self, "void f() { cudaGraph_t g; cudaGraphLaunch(e, 0); }")))
        self.assertIn("l2-persistence", rules(cpp(self, "void f() { cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1); }")))
        self.assertIn("l2-persistence", rules(cpp(self, "void f() { cudaStreamAttrValue a; a.accessPolicyWindow.hitRatio = 1; }")))
        self.assertIn("cpp-system-call", rules(cpp(self, "void f() { int fd = open(p, 1); }")))
        self.assertIn("cpp-system-call", rules(cpp(self, "#include <fstream>\nvoid f() { std::ofstream o(p); }")))
        self.assertIn("cpp-token-paste", rules(cpp(self, "#define CAT(a, b) a##b\nvoid f() { CAT(fo, pen)(p, q); }"),
                                                "suspicious"))
        ok = cpp(self, "void f() { auto s = at::cuda::getCurrentCUDAStream(); auto y = x.clone(); }")
        self.assertEqual(rules(ok, "reject"), set(), ok)

    def test_vendor_link_flags(self):
        body = ('import torch.nn as nn\nfrom torch.utils.cpp_extension import load_inline\n'
                'ext = load_inline(name="c", cpp_sources=["int f();"], functions=["f"], extra_ldflags=["-lcublas"])\n'
                'class ModelNew(nn.Module):\n    def forward(self, x):\n        return ext.f(x)\n')
        self.assertIn("vendor-library", rules(static_check.analyze(body, {}), "reject"))
        self.assertNotIn("vendor-library", rules(static_check.analyze(body, {"allow_vendor_libraries": "gemm"})))
        with self.assertRaises(ValueError):
            static_check.vendor_allowance("blas")


class NoFalsePositiveTests(unittest.TestCase):
    """The stored demo solutions and test fixtures get the expected checks."""

    def _check_demo_manifest(self, folder):
        import json

        with open(os.path.join(folder, "manifest.json")) as f:
            manifest = json.load(f)
        for c in manifest["candidates"]:
            with open(os.path.join(folder, c["file"])) as f:
                found = static_check.analyze(f.read(), {})
            verdict = static_check.verdict_for(found)
            with self.subTest(file=c["file"]):
                if c["expect"] == "rejected":
                    self.assertEqual(verdict, "rejected", found)
                else:
                    self.assertIsNone(verdict, found)
                    self.assertEqual(rules(found, "suspicious"), set(), found)

    def test_demo_candidates(self):
        self._check_demo_manifest(lib.DEMO_DIR)

    def test_cuda_demo_candidates(self):
        folder = os.path.join(lib.DEMO_DIR, "cuda")
        if not os.path.isfile(os.path.join(folder, "manifest.json")):
            self.skipTest("no CUDA demo candidates")
        self._check_demo_manifest(folder)

    def test_gpu_fixtures(self):
        """Honest CUDA kernels (and the deliberately buggy ones, which are wrong
        but not cheating): no reject or suspicious finding."""
        folder = os.path.join(lib.REPO, "tests", "gpu", "fixtures")
        paths = sorted(glob.glob(os.path.join(folder, "*.py")) + glob.glob(os.path.join(folder, "wrong", "*.py")))
        if not paths:
            self.skipTest("no GPU fixtures")
        for path in paths:
            with open(path) as f:
                found = static_check.analyze(f.read(), {})
            with self.subTest(file=os.path.relpath(path, folder)):
                self.assertIsNone(static_check.verdict_for(found), found)
                self.assertEqual(rules(found, "suspicious"), set(), found)

    def test_fixtures(self):
        expected = {"fx_cheat.py": "rejected", "fx_no_modelnew.py": "invalid_candidate",
                    "fx_subclass.py": "rejected"}
        for path in sorted(glob.glob(os.path.join(lib.FIXTURES, "fx_*.py"))):
            name = os.path.basename(path)
            with open(path) as f:
                verdict = static_check.verdict_for(static_check.analyze(f.read(), {}))
            with self.subTest(file=name):
                self.assertEqual(verdict, expected.get(name))


if __name__ == "__main__":
    unittest.main()
