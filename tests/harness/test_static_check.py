"""The AST/C++ static checker."""

import glob
import os
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

    def test_no_kernel_is_only_suspicious(self):
        found = static_check.analyze("import torch.nn as nn\nclass ModelNew(nn.Module):\n"
                                     "    def forward(self, x):\n        return x\n", {})
        self.assertIn("no-custom-kernel", rules(found, "suspicious"))
        self.assertIsNone(static_check.verdict_for(found))


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


class NoFalsePositiveTests(unittest.TestCase):
    """The stored demo solutions and test fixtures get the expected checks."""

    def test_demo_candidates(self):
        import json

        with open(os.path.join(lib.DEMO_DIR, "manifest.json")) as f:
            manifest = json.load(f)
        for c in manifest["candidates"]:
            with open(os.path.join(lib.DEMO_DIR, c["file"])) as f:
                found = static_check.analyze(f.read(), {})
            verdict = static_check.verdict_for(found)
            with self.subTest(file=c["file"]):
                if c["expect"] == "rejected":
                    self.assertEqual(verdict, "rejected", found)
                else:
                    self.assertIsNone(verdict, found)
                    self.assertEqual(rules(found, "suspicious"), set(), found)

    def test_fixtures(self):
        expected = {"fx_cheat.py": "rejected", "fx_no_modelnew.py": "invalid_candidate"}
        for path in sorted(glob.glob(os.path.join(lib.FIXTURES, "fx_*.py"))):
            name = os.path.basename(path)
            with open(path) as f:
                verdict = static_check.verdict_for(static_check.analyze(f.read(), {}))
            with self.subTest(file=name):
                self.assertEqual(verdict, expected.get(name))


if __name__ == "__main__":
    unittest.main()
