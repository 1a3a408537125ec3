"""End-to-end evaluations of fixture candidates (CPU mode).

Every fixture that builds uses the same kernel source, so a test run
compiles it once; the cache lives in KBHARNESS_TEST_BUILD_DIR.
"""

import os
import time
import unittest

import harness_testlib as lib


class _Base(unittest.TestCase):
    schema = None

    @classmethod
    def setUpClass(cls):
        cls.schema = lib.load_schema()

    def run_eval(self, fixture, **kw):
        code, doc, proc = lib.evaluate(lib.fixture(fixture), **kw)
        self.assertEqual(code, 0, lib.describe(doc, proc))
        self.assertIsNotNone(doc)
        self.assertEqual(lib.schema_errors(doc, self.schema), [], lib.describe(doc, proc))
        return doc

    def assertVerdict(self, doc, verdict):
        self.assertEqual(doc["verdict"], verdict, lib.describe(doc))


class CorrectCandidateTests(_Base):
    def test_correct_then_cached(self):
        doc = self.run_eval("fx_correct.py", timing_trials=8)
        self.assertVerdict(doc, "correct")
        trials = doc["correctness"]["trials"]
        self.assertEqual(len(trials), 5)
        self.assertTrue(all(t["passed"] and t["max_abs_error"] == 0.0 for t in trials))
        seeds = [t["seed"] for t in trials]
        self.assertEqual(len(set(seeds)), 5)
        self.assertNotIn(987654321, seeds)  # the request seed itself never appears
        cand = doc["timing"]["candidate"]
        comparison = doc["timing"]["comparison"]
        # interleaved rounds of 10 counted calls a side, at least three, as many on both sides
        self.assertGreaterEqual(comparison["rounds"], 3)
        self.assertEqual(len(cand["samples_ms"]), 10 * comparison["rounds"])
        self.assertEqual(len(doc["timing"]["eager"]["samples_ms"]), len(cand["samples_ms"]))
        self.assertEqual(len(cand["round_trips_ms"]), len(cand["samples_ms"]))
        self.assertGreater(cand["wall_ms"], 0)
        self.assertGreaterEqual(cand["wall_ms"], sum(cand["round_trips_ms"]) * 0.95)
        eager = comparison["eager"]
        self.assertLessEqual(eager["ci_low"], eager["speedup"])
        self.assertLessEqual(eager["speedup"], eager["ci_high"])
        self.assertIsNone(doc["timing"]["compile"])
        self.assertGreater(doc["speedup"]["eager"], 0)
        self.assertEqual(doc["environment"]["device"], "cpu")
        self.assertEqual(doc["environment"]["num_threads"], 1)
        self.assertIn(doc["build"]["status"], ("ok", "cached"))
        self.assertEqual(len(doc["build"]["cache_key"]), 64)
        self.assertEqual(doc["build"]["library_check"], {"libraries": 1, "status": "ok", "findings": 0})
        # where the time went: every stage of a full evaluation, adding up to the harness's time
        stages = doc["stage_seconds"]
        self.assertEqual(list(stages), ["judge_start", "judge_setup", "static_check", "reference", "worker_start",
                                        "build_and_construct", "correctness", "timing", "teardown"])
        self.assertTrue(all(v is not None and v >= 0 for v in stages.values()), stages)
        self.assertAlmostEqual(sum(v for k, v in stages.items() if k != "judge_start"), doc["harness_seconds"],
                               delta=0.01)
        self.assertGreater(stages["timing"], 0.1)

        import torch

        # where torch has no torch.compile the baseline is reported unavailable, never faked
        no_compile = not hasattr(torch, "compile")
        t0 = time.monotonic()
        again = self.run_eval("fx_correct.py", baseline={"eager": True, "compile": no_compile})
        elapsed = time.monotonic() - t0
        self.assertVerdict(again, "correct")
        self.assertEqual(again["build"]["status"], "cached")
        self.assertEqual(again["build"]["cache_key"], doc["build"]["cache_key"])
        self.assertLess(again["build"]["seconds"], 3.0)
        self.assertLess(elapsed, 30.0)
        if no_compile:
            self.assertIn("not available", again["timing"]["compile"]["unavailable"])

    def test_input_mutation_does_not_affect_the_comparison(self):
        doc = self.run_eval("fx_mutate.py")
        self.assertVerdict(doc, "correct")


class WrongOutputTests(_Base):
    def test_wrong_values(self):
        doc = self.run_eval("fx_wrong.py")
        self.assertVerdict(doc, "incorrect")
        trials = doc["correctness"]["trials"]
        self.assertEqual(len(trials), 5)
        self.assertFalse(any(t["passed"] for t in trials))
        self.assertAlmostEqual(trials[0]["max_abs_error"], 0.01, places=5)
        self.assertGreater(trials[0]["mismatch_fraction"], 0.3)
        self.assertLess(trials[0]["mismatch_fraction"], 0.7)
        self.assertIsNone(doc["timing"])

    def test_nan_output(self):
        doc = self.run_eval("fx_nan.py")
        self.assertVerdict(doc, "incorrect")
        self.assertIn("NaN", doc["message"])

    def test_wrong_shape(self):
        doc = self.run_eval("fx_wrong_shape.py")
        self.assertVerdict(doc, "incorrect")
        self.assertIn("shape mismatch", doc["message"])

    def test_wrong_dtype(self):
        doc = self.run_eval("fx_wrong_dtype.py")
        self.assertVerdict(doc, "incorrect")
        self.assertIn("dtype mismatch", doc["message"])

    def test_tensor_subclass_rejected(self):
        # caught statically; tests/adversarial has a variant that hides the
        # subclass from the checker and is caught by the output encoding
        doc = self.run_eval("fx_subclass.py")
        self.assertVerdict(doc, "rejected")
        self.assertIn("tensor-subclass", [f["rule"] for f in doc["static_findings"]])


class CrashAndHangTests(_Base):
    def test_segfault_is_runtime_error(self):
        doc = self.run_eval("fx_segfault.py")
        self.assertVerdict(doc, "runtime_error")
        self.assertIn("SIGSEGV", doc["message"])

    def test_infinite_loop_times_out(self):
        t0 = time.monotonic()
        doc = self.run_eval("fx_hang.py", trial_timeout_seconds=3)
        elapsed = time.monotonic() - t0
        self.assertVerdict(doc, "timeout")
        self.assertIn("3.0 s", doc["message"])
        self.assertLess(elapsed, 40.0)

    def test_constructor_exception(self):
        doc = self.run_eval("fx_construct_error.py")
        self.assertVerdict(doc, "runtime_error")
        self.assertIn("weights missing", doc["message"])

    def test_no_modelnew_is_invalid(self):
        doc = self.run_eval("fx_no_modelnew.py")
        self.assertVerdict(doc, "invalid_candidate")

    def test_cheat_is_rejected_before_building(self):
        doc = self.run_eval("fx_cheat.py")
        self.assertVerdict(doc, "rejected")
        self.assertEqual(doc["build"]["status"], "skipped")
        self.assertIn("torch-op-in-forward", [f["rule"] for f in doc["static_findings"]])
        self.assertIsNone(doc["correctness"])


class BuildErrorTests(_Base):
    def test_build_error_has_log_and_parsed_errors(self):
        doc = self.run_eval("fx_build_error.py")
        self.assertVerdict(doc, "build_error")
        build = doc["build"]
        self.assertEqual(build["status"], "failed")
        self.assertIn("error", build["log"])
        self.assertTrue(build["errors"], build)
        # the errors point at the candidate's own lines, not at load_inline's main.cpp
        by_message = {e["message"]: e for e in build["errors"]}
        convert = next(e for m, e in by_message.items() if "cannot convert" in m)
        self.assertEqual(convert["file"], "fx_build_error.py")
        self.assertEqual(convert["line"], 12)  # const float* in = x;
        self.assertEqual(convert["generated_file"], "main.cpp")
        self.assertGreater(convert["generated_line"], 0)
        self.assertIsNone(doc["correctness"])

    def test_error_mapping_leaves_ambiguous_and_unknown_lines(self):
        import tempfile

        from kbharness import buildcache
        with tempfile.TemporaryDirectory() as d:
            key = "k" * 64
            os.makedirs(os.path.join(d, key[:32]))
            with open(os.path.join(d, key[:32], "cuda.cu"), "w") as f:
                f.write("#include <torch/types.h>\n__global__ void k() {\n  int a = 1;\n  oops;\n}\n"
                        "void g() {\n  int a = 1;\n}\n")
            cand = os.path.join(d, "cand.py")
            with open(cand, "w") as f:
                f.write('src = r"""\n__global__ void k() {\n  int a = 1;\n  oops;\n}\n"""\n'
                        'other = """\n  int a = 1;\n  int a = 1;\n"""\n')
            errors = [{"file": "cuda.cu", "line": 4, "message": "oops"},      # unique: mapped
                      {"file": "cuda.cu", "line": 7, "message": "dup"},       # three equal lines, tie
                      {"file": "cuda.cu", "line": 1, "message": "include"},   # not in the candidate
                      {"file": "other.cu", "line": 2, "message": "missing"}]  # no such generated file
            n = buildcache.map_to_candidate(errors, [{"cache_key": key}], d, cand)
            self.assertEqual(n, 1)
            self.assertEqual((errors[0]["file"], errors[0]["line"]), ("cand.py", 4))
            self.assertEqual((errors[0]["generated_file"], errors[0]["generated_line"]), ("cuda.cu", 4))
            for e, line in zip(errors[1:], (7, 1, 2)):
                self.assertNotEqual(e["file"], "cand.py")
                self.assertEqual(e["line"], line)

    def test_build_command(self):
        code, doc, proc = lib.evaluate(lib.fixture("fx_correct.py"), command="build")
        self.assertEqual(code, 0, lib.describe(doc, proc))
        self.assertEqual(doc["verdict"], "built", lib.describe(doc, proc))
        self.assertIn(doc["build"]["status"], ("ok", "cached"))


def _cuda_available():
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:
        return False


@unittest.skipUnless(_cuda_available(), "no CUDA device")
class CudaTests(_Base):
    def test_cuda_relu(self):
        doc = self.run_eval("fx_cuda_relu.py", device="cuda", timing_trials=20,
                            baseline={"eager": True, "compile": True, "compile_mode": "default"})
        self.assertVerdict(doc, "correct")
        self.assertEqual(doc["timing"]["method"], "cuda-events+l2-flush")
        self.assertIsNotNone(doc["environment"]["device_capability"])
        self.assertIn("median_ms", doc["timing"]["compile"])

    def test_cuda_wrong_and_cheat(self):
        self.assertVerdict(self.run_eval("fx_cheat.py", device="cuda"), "rejected")

    def _gpu_memory_rise_mib(self, fn):
        """Runs fn() while nvidia-smi samples the GPU's memory in use; returns (fn's value,
        the largest rise over the level before, in MiB)."""
        import subprocess
        import threading

        def used():
            out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits",
                                  "-i", "0"], capture_output=True, text=True, timeout=30).stdout
            return int(out.split()[0])

        base = used()
        peak = [base]
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                peak[0] = max(peak[0], used())
                stop.wait(0.05)

        t = threading.Thread(target=sample)
        t.start()
        try:
            value = fn()
        finally:
            stop.set()
            t.join()
        return value, peak[0] - base

    def test_build_pool_never_touches_the_gpu(self):
        """The build step of a GPU run (the build pool, running beside another candidate's
        timing) makes no CUDA context and no allocation: its judge only reads the device's
        properties, its worker sees no GPU. A candidate that allocates 1 GiB on the GPU when
        imported is built there, its import left to the evaluation, where the allocation
        shows (the sampler's positive control)."""
        import tempfile

        # the correct CUDA ReLU candidate, with its own extension name and a 1 GiB buffer
        # allocated on the GPU when the module is imported
        with open(lib.fixture("fx_cuda_relu.py")) as f:
            source = f.read()
        source = source.replace('name="kbharness_test_cuda_relu"', 'name="kbharness_test_cuda_import_alloc"')
        source = source.replace("class ModelNew(", '_scratch = torch.empty(1 << 28, dtype=torch.float32, '
                                                   'device="cuda")\n\n\nclass ModelNew(')
        self.assertIn("_scratch", source)
        with tempfile.TemporaryDirectory(prefix="kbharness-test-") as tmp:
            candidate = os.path.join(tmp, "fx_cuda_import_alloc.py")
            with open(candidate, "w") as f:
                f.write(source)

            (code, doc, proc), rise = self._gpu_memory_rise_mib(
                lambda: lib.evaluate(candidate, command="build", device="cuda"))
            self.assertEqual(code, 0, lib.describe(doc, proc))
            self.assertEqual(doc["verdict"], "built", lib.describe(doc, proc))
            self.assertIn(doc["build"]["status"], ("ok", "cached"))
            self.assertIn("tries again on the GPU", doc["message"])
            self.assertLess(rise, 256, "the build step used %d MiB of GPU memory" % rise)
            (code, doc, proc), rise = self._gpu_memory_rise_mib(
                lambda: lib.evaluate(candidate, device="cuda", timing_trials=10))
            self.assertEqual(code, 0, lib.describe(doc, proc))
            self.assertEqual(lib.schema_errors(doc, self.schema), [], lib.describe(doc, proc))
        self.assertVerdict(doc, "correct")
        self.assertEqual(doc["build"]["status"], "cached")  # the build pool's build, same cache key
        self.assertGreater(rise, 1024, "the evaluation's 1 GiB allocation was not seen (%d MiB)" % rise)

    def test_large_task_memory_stays_bounded(self):
        """A 1.5 GiB input: judge and worker each hold a bounded number of copies of it
        (stale trial outputs and shared copies are dropped, cached memory is given back
        between stages), so 6-7 GB KernelBench tasks fit beside each other's process."""
        unit = 4096 * 98304 * 4
        doc = self.run_eval("fx_cuda_relu.py", task=lib.fixture("task_large_relu.py"), device="cuda",
                            timing_trials=10, timing_input_sets=1)
        self.assertVerdict(doc, "correct")
        mem = doc["gpu_memory"]
        self.assertTrue(mem["released_between_stages"])
        slack = 1 << 30  # L2 flush and bandwidth-probe buffers, allocator rounding
        stages = mem["judge_stage_peak_reserved_bytes"]
        self.assertEqual(set(stages), {"setup", "correctness", "candidate_timing", "eager_timing"}, mem)
        self.assertEqual(mem["judge_peak_reserved_bytes"], max(stages.values()), mem)
        # correctness: inputs, reference output, the shared copy, the candidate's output
        self.assertLessEqual(stages["correctness"], 4 * unit + slack, mem)
        self.assertLessEqual(mem["judge_peak_reserved_bytes"], 5 * unit + slack, mem)
        self.assertIsNotNone(mem["worker_peak_reserved_bytes"])
        self.assertLessEqual(mem["worker_peak_reserved_bytes"], 5 * unit + slack, mem)
        self.assertGreaterEqual(mem["worker_peak_reserved_bytes"], 2 * unit, mem)  # input and output at least


class WorkspaceFormatTests(_Base):
    """model_new.py + kernels/*.cpp (*.cu on a GPU) built into one extension."""

    def test_workspace_candidate_builds_and_is_correct(self):
        doc = self.run_eval("ws_relu", timing_trials=5)
        self.assertVerdict(doc, "correct")
        self.assertEqual(doc["candidate_format"], "workspace")
        self.assertIn(doc["build"]["status"], ("ok", "cached"))
        self.assertTrue(all(t["passed"] for t in doc["correctness"]["trials"]))

    def test_every_kernel_file_is_checked(self):
        doc = self.run_eval("ws_cheat")
        self.assertVerdict(doc, "rejected")
        self.assertIn("kernels/relu_binding.cpp", doc["message"])
        rules = {(f["rule"], f["line"]) for f in doc["static_findings"]}
        with open(lib.fixture(os.path.join("ws_cheat", "kernels", "relu_binding.cpp"))) as f:
            line = [n for n, text in enumerate(f, 1) if "torch::relu(" in text][0]
        self.assertIn(("cpp-torch-op", line), rules)
        self.assertEqual(doc["build"]["status"], "skipped")  # nothing was built


if __name__ == "__main__":
    unittest.main()
