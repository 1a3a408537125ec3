"""validate-task, and the sample suite's files."""

import json
import os
import unittest

import harness_testlib as lib
from kbharness import validate_task


class ValidateTaskTests(unittest.TestCase):
    def test_below_tolerance_task_is_flagged(self):
        report = validate_task.validate(lib.fixture("task_tiny_softmax.py"))
        self.assertTrue(report["ok"], report)
        self.assertIn("below-tolerance", [f["flag"] for f in report["flags"]])
        self.assertEqual(report["output_shapes"], [[4, 262144]])

    def test_constant_and_input_insensitive_flags(self):
        import tempfile

        src = ("import torch\nimport torch.nn as nn\nclass Model(nn.Module):\n"
               "    def forward(self, x):\n        return torch.ones_like(x) * 3.0\n"
               "def get_inputs():\n    return [torch.randn(16, 16)]\n"
               "def get_init_inputs():\n    return []\n")
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(src)
        try:
            flags = [x["flag"] for x in validate_task.validate(f.name)["flags"]]
        finally:
            os.unlink(f.name)
        self.assertIn("near-constant", flags)
        self.assertIn("input-insensitive", flags)

    def test_weakness_flags_chunked_match_the_whole_tensor_tests(self):
        import torch

        def whole(tensors, atol, rtol):
            # the definition: whole-tensor float64 tests after nan_to_num
            ts = [torch.nan_to_num(t.double()) for t in tensors]
            flags = []
            if any(not bool(torch.isfinite(t.double()).all()) for t in tensors):
                flags.append("non-finite-output")
            if all(torch.allclose(torch.zeros_like(t), t, atol=atol, rtol=rtol) for t in ts):
                flags.append("below-tolerance")
            elif all(torch.allclose(torch.full_like(t, float(t.mean())), t, atol=atol, rtol=rtol) for t in ts):
                flags.append("near-constant")
            elif sum(int((t.abs() <= atol).sum()) for t in ts) >= 0.95 * sum(t.numel() for t in ts):
                flags.append("mostly-below-tolerance")
            return flags, max(float(t.abs().max()) for t in ts)

        g = torch.Generator().manual_seed(5)
        tail_big = torch.zeros(1000)
        tail_big[-1] = 1.0  # the one large element sits in the last chunk
        mostly = torch.rand(1000, generator=g) * 1e-6
        mostly[::50] = 1.0
        with_nan = torch.randn(999, generator=g)
        with_nan[700] = float("nan")
        with_inf = torch.full((640,), 2.0)
        with_inf[3] = float("inf")
        cases = {"random": [torch.randn(1000, generator=g)], "zeros": [torch.zeros(1000)],
                 "tiny": [torch.rand(1000, generator=g) * 1e-6], "tail": [tail_big],
                 "constant": [torch.full((777,), 3.0) + torch.rand(777, generator=g) * 1e-5],
                 "mostly-small": [mostly], "nan": [with_nan], "inf": [with_inf],
                 "two outputs": [torch.zeros(300), torch.randn(5, 7, generator=g)],
                 "half": [torch.randn(1000, generator=g).half()]}
        old = validate_task.CHUNK
        validate_task.CHUNK = 64  # many chunks, the last one partial
        try:
            for name, ts in cases.items():
                with self.subTest(case=name):
                    flags, mag = validate_task.weakness_flags(ts, 1e-4, 1e-4)
                    want_flags, want_mag = whole(ts, 1e-4, 1e-4)
                    self.assertEqual([f for f, _ in flags], want_flags)
                    self.assertEqual(mag, want_mag)
        finally:
            validate_task.CHUNK = old

    def test_weight_insensitive_flag(self):
        import tempfile

        # the weights are multiplied by zero: any weights give the same output
        src = ("import torch\nimport torch.nn as nn\nclass Model(nn.Module):\n"
               "    def __init__(self):\n        super().__init__()\n        self.lin = nn.Linear(16, 16)\n"
               "    def forward(self, x):\n        return x * 2.0 + 0.0 * self.lin(x)\n"
               "def get_inputs():\n    return [torch.randn(8, 16)]\n"
               "def get_init_inputs():\n    return []\n")
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(src)
        try:
            flags = [x["flag"] for x in validate_task.validate(f.name)["flags"]]
            honest = src.replace("x * 2.0 + 0.0 * self.lin(x)", "self.lin(x)")
            with open(f.name, "w") as g:
                g.write(honest)
            honest_flags = [x["flag"] for x in validate_task.validate(f.name)["flags"]]
        finally:
            os.unlink(f.name)
        self.assertIn("weight-insensitive", flags)
        self.assertNotIn("weight-insensitive", honest_flags)

    def test_malformed_tasks_exit_2(self):
        cases = {"task_syntax_error.py": "syntax error", "task_missing_inputs.py": "get_inputs",
                 "task_raises.py": "reference is broken"}
        for name, needle in cases.items():
            with self.subTest(task=name):
                proc = lib.run_cli(["validate-task", lib.fixture(name)], timeout=120)
                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                report = json.loads(proc.stdout)
                self.assertFalse(report["ok"])
                self.assertIn(needle, " ".join(report["errors"]))
                self.assertIn(needle, proc.stderr)

    def test_cli_ok(self):
        proc = lib.run_cli(["validate-task", lib.RELU_TASK], timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(json.loads(proc.stdout)["ok"])

    def test_evaluate_with_broken_task_exits_2(self):
        code, doc, proc = lib.evaluate(lib.fixture("fx_construct_error.py"), task=lib.fixture("task_missing_inputs.py"))
        self.assertEqual(code, 2, proc.stderr)
        self.assertEqual(doc["error"], "task_error")
        self.assertIn("get_inputs", doc["message"])


class SampleSuiteTests(unittest.TestCase):
    def test_suite_manifest_and_tasks(self):
        with open(os.path.join(lib.SUITE_DIR, "suite.json")) as f:
            suite = json.load(f)
        self.assertEqual(suite["name"], "sample")
        tasks = suite["tasks"]
        self.assertGreaterEqual(len(tasks), 8)
        self.assertEqual({t["level"] for t in tasks}, {1, 2, 3})
        self.assertEqual(len({t["id"] for t in tasks}), len(tasks))
        for t in tasks:
            with self.subTest(task=t["id"]):
                report = validate_task.validate(os.path.join(lib.SUITE_DIR, t["file"]))
                self.assertTrue(report["ok"], report)
                self.assertEqual(report["flags"], [], report)
                self.assertLess(report["seconds"], 1.0)
                self.assertTrue(t["ops"])


if __name__ == "__main__":
    unittest.main()
