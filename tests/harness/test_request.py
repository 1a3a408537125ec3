"""Request parsing and the command line's exit codes."""

import json
import os
import tempfile
import unittest

import harness_testlib as lib
from kbharness import request


class RequestParsingTests(unittest.TestCase):
    def base(self, **kw):
        req = lib.make_request(lib.fixture("fx_correct.py"))
        req.update(kw)
        return req

    def test_valid_request_gets_defaults(self):
        req = self.base()
        del req["atol"], req["rtol"], req["timing_trials"]
        parsed = request.parse(req)
        self.assertEqual(parsed["atol"], 1e-4)
        self.assertEqual(parsed["rtol"], 1e-4)
        self.assertEqual(parsed["timing_trials"], 20)
        self.assertFalse(parsed["policy"]["allow_torch_ops"])

    def test_hardening_defaults(self):
        parsed = request.parse(self.base())
        self.assertEqual(parsed["sandbox"], "auto")
        self.assertEqual(parsed["strict_check"], "auto")
        self.assertEqual(parsed["memory_limit_mb"], request.DEFAULT_CPU_MEMORY_LIMIT_MB)
        self.assertIsNone(request.parse(self.base(device="cuda"))["memory_limit_mb"])
        self.assertIsNone(request.parse(self.base(memory_limit_mb=None))["memory_limit_mb"])
        self.assertEqual(request.parse(self.base(memory_limit_mb=4096))["memory_limit_mb"], 4096)
        self.assertEqual(request.parse(self.base(strict_check=True))["strict_check"], True)
        self.assertEqual(request.parse(self.base(policy={"allow_vendor_libraries": "gemm"}))["policy"]
                         ["allow_vendor_libraries"], "gemm")

    def test_fp16_default_tolerance(self):
        req = self.base(precision="fp16")
        del req["atol"], req["rtol"]
        self.assertEqual(request.parse(req)["atol"], 1e-2)

    def test_errors(self):
        cases = [
            ({"schema": "something/else"}, "schema"),
            ({"task_path": "relative/task.py"}, "absolute"),
            ({"candidate_path": "/nonexistent/candidate.py"}, "does not exist"),
            ({"device": "tpu"}, "device"),
            ({"correctness_trials": 0}, "correctness_trials"),
            ({"timing_trials": "many"}, "timing_trials"),
            ({"seed": "secret"}, "seed"),
            ({"seed": True}, "seed"),
            ({"precision": "fp8"}, "precision"),
            ({"allow_tf32": "yes"}, "allow_tf32"),
            ({"policy": []}, "policy"),
            ({"baseline": {"compile_mode": "fastest"}}, "compile_mode"),
            ({"build_dir": "cache"}, "build_dir"),
            ({"sandbox": "docker"}, "sandbox"),
            ({"strict_check": "yes"}, "strict_check"),
            ({"memory_limit_mb": 10}, "memory_limit_mb"),
            ({"policy": {"allow_vendor_libraries": "blas"}}, "allow_vendor_libraries"),
        ]
        for override, needle in cases:
            with self.subTest(override=override):
                with self.assertRaises(request.RequestError) as ctx:
                    request.parse(self.base(**override))
                self.assertIn(needle, str(ctx.exception))

    def test_missing_seed(self):
        req = self.base()
        del req["seed"]
        with self.assertRaises(request.RequestError):
            request.parse(req)

    def test_not_an_object(self):
        with self.assertRaises(request.RequestError):
            request.parse([1, 2, 3])


class CommandLineTests(unittest.TestCase):
    def test_bad_json_exits_2_with_error_document(self):
        with tempfile.TemporaryDirectory() as tmp:
            req = os.path.join(tmp, "req.json")
            res = os.path.join(tmp, "res.json")
            with open(req, "w") as f:
                f.write("{not json")
            proc = lib.run_cli(["evaluate", "--request", req, "--result", res], timeout=120)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn("not valid JSON", proc.stderr)
            with open(res) as f:
                doc = json.load(f)
            self.assertEqual(doc["error"], "bad_request")

    def test_missing_request_file(self):
        proc = lib.run_cli(["evaluate", "--request", "/nonexistent/req.json", "--result", "-"], timeout=120)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("cannot read request", proc.stderr)

    def test_request_from_stdin(self):
        req = lib.make_request(lib.fixture("fx_cheat.py"))
        proc = lib.run_cli(["evaluate", "--request", "-", "--result", "-"], stdin=json.dumps(req), timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(json.loads(proc.stdout)["verdict"], "rejected")

    def test_no_command(self):
        self.assertEqual(lib.run_cli([], timeout=60).returncode, 2)


if __name__ == "__main__":
    unittest.main()
