"""The profile subcommand without a GPU: its parsers and summary (kbharness/ncureport.py) and
its answers where nothing can be profiled (kbharness/profile.py).

The ncu and nsys outputs under fixtures/ncu/ are hand-written in the documented formats of
``ncu --csv --page raw --metrics ...``, ``ncu --csv --page details`` and
``nsys stats --report cuda_gpu_kern_sum --format csv`` (see fixtures/ncu/README.txt): quoted
fields, the units row of the raw page, auto-scaled units, thousands separators, "n/a" values
and ncu's own ==PROF== lines, as ncu prints them.
"""

import json
import os
import tempfile
import unittest
from unittest import mock

from harness_testlib import FIXTURES, RELU_TASK, fixture, make_request, run_cli

from kbharness import ncureport, profile, request

NCU = os.path.join(FIXTURES, "ncu")


def read(name):
    with open(os.path.join(NCU, name), "r", encoding="utf-8") as f:
        return f.read()


def summary_of(ncu_text, nsys_text=None, kernel_limit=40):
    doc = ncureport.summarize(ncureport.parse_ncu_csv(ncu_text),
                            ncureport.parse_nsys_kernel_summary(nsys_text) if nsys_text else None,
                            calls=3, kernel_limit=kernel_limit)
    doc["status"] = "ok"
    return doc


def launch(name, **metrics):
    return {"id": "0", "name": name, "metrics": metrics, "launch": {}}


class NcuRawPageTests(unittest.TestCase):
    def test_rows_units_and_numbers(self):
        launches = ncureport.parse_ncu_raw(read("ncu_raw.csv"))
        self.assertEqual(len(launches), 6)  # the units row and ==PROF== lines are not launches
        gelu, fill = launches[0], launches[1]
        self.assertEqual(gelu["name"], "gelu_tanh_kernel(const float *, float *, long)")
        self.assertTrue(fill["name"].startswith("void at::native::vectorized_elementwise_kernel<4,"))
        m = gelu["metrics"]
        self.assertAlmostEqual(m[ncureport.TIME_METRIC], 4.22e-6)            # usecond
        self.assertAlmostEqual(m[ncureport.DRAM_BYTES], 2.10e6)              # Mbyte
        self.assertAlmostEqual(m[ncureport.SM_HZ], 1.59e9)                   # cycle/nsecond
        self.assertAlmostEqual(m[ncureport.DRAM_HZ], 2.62e9)                 # Ghz
        self.assertEqual(m[ncureport.PEAK_FFMA], 16896.0)                    # "16,896"
        self.assertEqual(m["sm__sass_thread_inst_executed_op_ffma_pred_on.sum"], 1572864.0)
        self.assertEqual(m[ncureport.ACHIEVED_OCC], 83.51)
        self.assertEqual(gelu["launch"], {"grid": "(1024, 1, 1)", "block": "(256, 1, 1)"})
        # "n/a" is no value, not zero
        self.assertNotIn("sm__sass_thread_inst_executed_op_hadd_pred_on.sum", fill["metrics"])

    def test_thousands_separators_in_durations(self):
        launches = ncureport.parse_ncu_raw(read("ncu_raw_latency.csv"))
        self.assertEqual([round(x["metrics"][ncureport.TIME_METRIC] * 1e6, 2) for x in launches],
                         [1231.84, 1230.91, 1232.07])

    def test_a_run_without_kernels_has_an_empty_table(self):
        header = '"ID","Process ID","Kernel Name","gpu__time_duration.sum"\n"","","","usecond"\n'
        self.assertEqual(ncureport.parse_ncu_raw("==PROF== Disconnected\n" + header), [])

    def test_no_table_is_a_parse_error(self):
        with self.assertRaises(ncureport.ParseError):
            ncureport.parse_ncu_csv("==ERROR== Failed to find metric sm__nonexistent\n")
        with self.assertRaises(ncureport.ParseError):
            ncureport.parse_ncu_csv("")


class NcuDetailsPageTests(unittest.TestCase):
    def test_sections_map_to_metrics(self):
        launches = ncureport.parse_ncu_csv(read("ncu_details.csv"))
        self.assertEqual(len(launches), 2)
        m = launches[0]["metrics"]
        self.assertAlmostEqual(m[ncureport.TIME_METRIC], 1.23e-3)  # msecond
        self.assertEqual(m[ncureport.SM_PCT], 1.21)
        # the Speed of Light's "Memory Throughput" (%), not the memory section's Gbyte/second
        self.assertEqual(m[ncureport.MEM_PCT], 9.85)
        self.assertEqual(m[ncureport.DRAM_PCT], 0.36)
        self.assertEqual(m[ncureport.ACHIEVED_OCC], 3.12)
        self.assertEqual(m[ncureport.THEORETICAL_OCC], 100.0)
        self.assertEqual(m[ncureport.REGISTERS], 24.0)
        self.assertEqual(launches[0]["launch"]["grid"], "(1, 1, 1)")


class NsysSummaryTests(unittest.TestCase):
    def test_kernel_summary(self):
        kernels = ncureport.parse_nsys_kernel_summary(read("nsys_stats.txt"))
        self.assertEqual([k["count"] for k in kernels], [3, 3])
        self.assertAlmostEqual(kernels[0]["total_us"], 8.544)
        self.assertEqual(kernels[0]["name"], "gelu_tanh_kernel(const float *, float *, long)")
        self.assertIn("FillFunctor<float>, at::detail::Array<char *, 1>>(int", kernels[1]["name"])

    def test_older_column_names(self):
        text = ('"Time(%)","Total Time (ns)","Instances","Average","Minimum","Maximum","Name"\n'
                '"100.0","1,500","2","750.0","700","800","k(float*)"\n')
        self.assertEqual(ncureport.parse_nsys_kernel_summary(text),
                         [{"name": "k(float*)", "count": 2, "total_us": 1.5}])

    def test_no_table(self):
        with self.assertRaises(ncureport.ParseError):
            ncureport.parse_nsys_kernel_summary("SKIPPED: trace.sqlite does not contain CUDA kernel data.\n")


class SummaryTests(unittest.TestCase):
    def test_memory_bound_kernel_with_nsys_times(self):
        doc = summary_of(read("ncu_raw.csv"), read("nsys_stats.txt"))
        self.assertEqual(doc["time_source"], "nsys")
        top, second = doc["kernels"]
        self.assertEqual((top["name"], top["count"], top["total_us"], top["mean_us"], top["share_pct"]),
                         ("gelu_tanh_kernel", 3, 8.544, 2.848, 78.3))
        self.assertEqual(second["name"], "vectorized_elementwise_kernel<…>")
        self.assertTrue(second["library"])
        d = top["ncu"]
        self.assertEqual(d["bound"], "memory")
        self.assertEqual(d["dram_throughput_pct"], 78.6)
        self.assertEqual(d["achieved_occupancy_pct"], 83.5)
        # (524288 + 1310720 + 2 * 1572864) FLOP / 2.1e6 byte
        self.assertAlmostEqual(d["arithmetic_intensity"], 4980736 / 2.1e6, places=3)
        # 2 * 16896 FFMA/cycle * 1.59 GHz / (1832 byte/cycle * 2.62 GHz)
        self.assertAlmostEqual(d["ridge_point"], 2 * 16896 * 1.59 / (1832 * 2.62), places=2)
        self.assertEqual(d["roofline_side"], "memory")
        self.assertIn("79% of DRAM bandwidth", doc["hint"])
        text = ncureport.format_summary(doc)
        self.assertIn("nsys, real clocks", text)
        self.assertIn("gelu_tanh_kernel", text)
        self.assertIn("occupancy 83.5% achieved / 100% theoretical", text)
        self.assertIn("below the FP32 ridge at 11.2, memory-bound", text)
        self.assertTrue(text.rstrip().splitlines()[-1].startswith("Hint: "))

    def test_ncu_times_without_nsys(self):
        doc = summary_of(read("ncu_raw.csv"))
        self.assertEqual(doc["time_source"], "ncu")
        self.assertEqual(doc["kernels"][0]["total_us"], 12.66)  # 4.22 + 4.19 + 4.25
        self.assertEqual(doc["kernels"][0]["share_pct"], 68.9)
        self.assertEqual(doc["kernel_launches_profiled"], 6)
        self.assertFalse(doc["limit_reached"])
        self.assertIn("under replay at base clocks", ncureport.format_summary(doc))

    def test_latency_bound_kernel_with_low_occupancy(self):
        doc = summary_of(read("ncu_raw_latency.csv"), kernel_limit=3)
        d = doc["kernels"][0]["ncu"]
        self.assertEqual(d["bound"], "latency")
        self.assertEqual(d["arithmetic_intensity"], 0.0)
        self.assertTrue(doc["limit_reached"])
        self.assertIn("achieved occupancy is 3%", doc["hint"])
        text = ncureport.format_summary(doc)
        self.assertIn("the first 3 only", text)
        self.assertIn("grid (1, 1, 1) x block (128, 1, 1)", text)

    def test_details_page_has_no_roofline_figures(self):
        doc = summary_of(read("ncu_details.csv"))
        d = doc["kernels"][0]["ncu"]
        self.assertIsNone(d["arithmetic_intensity"])
        self.assertIsNone(d["ridge_point"])
        self.assertEqual(d["bound"], "latency")
        text = ncureport.format_summary(doc)
        self.assertIn("roofline: latency-bound", text)
        self.assertNotIn("FLOP/byte", text)

    def test_bound_from_speed_of_light(self):
        self.assertEqual(ncureport.bound_of(85.0, 20.0), "compute")
        self.assertEqual(ncureport.bound_of(20.0, 85.0), "memory")
        self.assertEqual(ncureport.bound_of(30.0, 40.0), "latency")
        self.assertEqual(ncureport.bound_of(None, 70.0), "memory")
        self.assertIsNone(ncureport.bound_of(None, None))

    def test_roofline_alone_decides_without_throughputs(self):
        peaks = {ncureport.PEAK_FFMA: 16896.0, ncureport.SM_HZ: 1.59e9, ncureport.PEAK_DRAM: 1832.0,
                 ncureport.DRAM_HZ: 2.62e9, ncureport.TIME_METRIC: 1e-3}
        k = launch("gemm_tile(float*)", **dict(peaks, **{ncureport.DRAM_BYTES: 1e6,
                                                        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum": 5e7}))
        d = ncureport.summarize([k])["kernels"][0]["ncu"]
        self.assertEqual(d["arithmetic_intensity"], 100.0)
        self.assertEqual((d["roofline_side"], d["bound"]), ("compute", "compute"))

    def test_hints(self):
        lib = ncureport.summarize([launch("void at::native::reduce_kernel<512, 1>(R)", **{ncureport.TIME_METRIC: 9e-6}),
                                 launch("mine(float*)", **{ncureport.TIME_METRIC: 1e-6})])
        self.assertIn("90% of the GPU time is in PyTorch or library kernels", lib["hint"])
        spread = ncureport.summarize([launch("k%d(float*)" % i, **{ncureport.TIME_METRIC: 1e-6}) for i in range(4)])
        self.assertIn("spread over 4 kernels", spread["hint"])
        compute = ncureport.summarize([launch("k(float*)", **{ncureport.TIME_METRIC: 1e-6, ncureport.SM_PCT: 91.0,
                                                            ncureport.MEM_PCT: 12.0})])
        self.assertIn("compute-bound at 91% of SM peak", compute["hint"])
        self.assertIn("No kernel ran", ncureport.summarize([])["hint"])

    def test_failure_summary(self):
        doc = profile.failure_doc("unavailable", "Nsight Compute (ncu) is not installed on the GPU host")
        self.assertEqual(doc["schema"], profile.PROFILE_SCHEMA)
        self.assertEqual(doc["summary"], "Profile failed (unavailable): Nsight Compute (ncu) is not installed on "
                                         "the GPU host")
        json.dumps(doc, allow_nan=False)


class NameAndNumberTests(unittest.TestCase):
    def test_shortened_names(self):
        cases = [
            ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
             "at::detail::Array<char *, 1>>(int, at::native::FillFunctor<float>, at::detail::Array<char *, 1>)",
             "vectorized_elementwise_kernel<…>"),
            ("relu_rows_kernel(const float *, float *, long, long)", "relu_rows_kernel"),
            ("void gemm<float, 128>(const float *, float *)", "gemm<…>"),
            ("ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn"),
            ("", "?"),
        ]
        for full, short in cases:
            self.assertEqual(ncureport.shorten_kernel_name(full), short)
        self.assertEqual(len(ncureport.shorten_kernel_name("k" * 200)), ncureport.NAME_WIDTH)

    def test_numbers_and_units(self):
        self.assertEqual(ncureport.parse_number('"1,234.5"'), 1234.5)
        self.assertEqual(ncureport.parse_number("(!) 7"), 7.0)
        for empty in ("n/a", "", None, "N/A", "-"):
            self.assertIsNone(ncureport.parse_number(empty))
        self.assertEqual(ncureport.unit_factor("Kbyte"), 1e3)
        self.assertEqual(ncureport.unit_factor("KiB"), 1024.0)
        self.assertEqual(ncureport.unit_factor("warp/cycle"), 1.0)
        self.assertEqual(ncureport.unit_factor("furlong"), 1.0)  # unknown: left as it is
        self.assertEqual(ncureport.unit_factor("Gbyte/second"), 1e9)
        self.assertEqual(ncureport.unit_factor("byte/usecond"), 1e6)
        self.assertEqual(ncureport.unit_factor("nsecond"), 1e-9)
        self.assertEqual(ncureport.unit_factor("%"), 1.0)
        self.assertEqual(ncureport.unit_factor("Mhz"), 1e6)


class TargetTests(unittest.TestCase):
    """The profiled process's build, construction and forward calls (the evaluator's worker
    code, run in-process), on the CPU: what the GPU run does before its profiled calls.

    The profiled process builds in a folder of its own, as profile.profile() gives it (never
    the judge's shared build cache, whose entries only the judge's build service writes: an
    entry written there without its record is discarded by the next evaluation, even while
    this build is still writing it)."""

    @classmethod
    def setUpClass(cls):
        cls._builds = tempfile.TemporaryDirectory(prefix="kbharness-profile-build-")

    @classmethod
    def tearDownClass(cls):
        cls._builds.cleanup()

    def run_target(self, candidate):
        with tempfile.TemporaryDirectory(prefix="kbharness-test-") as tmp:
            spec = {"task_path": RELU_TASK, "candidate_path": candidate, "device": "cpu", "init_seed": 1,
                    "input_seed": 2, "num_threads": 1, "allow_tf32": False, "build_dir": self._builds.name,
                    "build_for": "cpu", "warmup": 2, "profiled_calls": 0,
                    "status_path": os.path.join(tmp, "status.json")}
            path = os.path.join(tmp, "spec.json")
            with open(path, "w") as f:
                json.dump(spec, f)
            rc = profile.run_target(path)
            with open(spec["status_path"]) as f:
                return rc, json.load(f)

    def test_built_and_run(self):
        rc, status = self.run_target(fixture("fx_correct.py"))
        self.assertEqual((rc, status["ok"], status["stage"]), (0, True, "done"), status)

    def test_failures_name_their_stage(self):
        rc, status = self.run_target(fixture("fx_no_modelnew.py"))
        self.assertEqual((rc, status["ok"], status["stage"]), (3, False, "invalid"))
        self.assertIn("ModelNew", status["error"])
        rc, status = self.run_target(fixture("fx_construct_error.py"))
        self.assertEqual((status["ok"], status["stage"]), (False, "construct"))


class FakeGpuHost:
    """profile.profile() on this machine as on a GPU host: torch reports a GPU, the profiled
    runs are answered from the stored outputs instead of being run (what the target writes to
    its status file and ncu to its --log-file), and nsys, where wanted, is a script that prints
    the stored kernel summary. What it is asked to run is kept in ``runs``."""

    def __init__(self, tmp, ncu_outputs, prepare=None, nsys=False, ncu_rc=0):
        self.tmp, self.ncu_outputs, self.ncu_rc = tmp, list(ncu_outputs), ncu_rc
        self.prepare = prepare or {"ok": True, "stage": "done", "device_name": "NVIDIA H200"}
        self.runs = []
        self.nsys = None
        if nsys:
            self.nsys = os.path.join(tmp, "nsys")
            with open(self.nsys, "w") as f:
                f.write("#!/bin/sh\n[ \"$1\" = stats ] && cat %s\n" % os.path.join(NCU, "nsys_stats.txt"))
            os.chmod(self.nsys, 0o755)

    def run(self, runner, tool_args, spec_path, timeout, log_name):
        with open(spec_path) as f:
            spec = json.load(f)
        self.runs.append((list(tool_args), spec))
        status = self.prepare if not tool_args else {"ok": True, "stage": "done"}
        with open(spec["status_path"], "w") as f:
            json.dump(status, f)
        if tool_args and tool_args[0] == "/fake/ncu":
            out = self.ncu_outputs.pop(0)
            if out is None:
                return None, ""  # the time limit
            with open(tool_args[tool_args.index("--log-file") + 1], "w") as f:
                f.write(out)
            return self.ncu_rc, ""
        if tool_args and tool_args[0] == self.nsys:
            open(tool_args[tool_args.index("-o") + 1] + ".nsys-rep", "w").close()
        return 0, ""

    def profile(self, **kw):
        import torch

        fake = self
        tools = {"ncu": "/fake/ncu", "nsys": self.nsys}
        req = request.parse(make_request(fixture("fx_cuda_relu.py"), RELU_TASK, device="cuda", sandbox="none"))
        with mock.patch.object(torch.cuda, "is_available", return_value=True), \
                mock.patch.object(torch.cuda, "get_device_capability", return_value=(9, 0)), \
                mock.patch.object(profile, "find_tool", side_effect=lambda name: tools[name]), \
                mock.patch.object(profile, "tool_version", return_value="2024.3.2"), \
                mock.patch.object(profile._Runner, "run",
                                  lambda runner, *a: fake.run(runner, *a)):
            return profile.profile(req, **kw)


class ProfileRunTests(unittest.TestCase):
    """The profile run's steps and answers, with the GPU host's programs stood in for."""

    def test_prepare_then_ncu_then_nsys(self):
        with tempfile.TemporaryDirectory(prefix="kbharness-test-") as tmp:
            host = FakeGpuHost(tmp, [read("ncu_raw.csv")], nsys=True)
            doc = host.profile(calls=4, kernel_limit=25)
        self.assertEqual(doc["status"], "ok", doc["message"])
        (prepare, spec0), (ncu, spec1), (nsys, _) = host.runs
        self.assertEqual(prepare, [])
        self.assertEqual((spec0["profiled_calls"], spec1["profiled_calls"], spec1["warmup"]), (0, 4, 2))
        self.assertEqual(spec1["device"], "cuda:0")
        self.assertEqual(spec1["build_for"], "cuda-sm90")
        # the candidate is built in the profile's own folder, never in the shared cache
        self.assertEqual(os.path.dirname(spec1["build_dir"]), os.path.dirname(spec1["status_path"]))
        for arg in (["--target-processes", "all"], ["--profile-from-start", "off"], ["--launch-count", "25"],
                    ["--csv"], ["--page", "raw"]):
            self.assertIn(arg, [ncu[i:i + len(arg)] for i in range(len(ncu))])
        metrics = ncu[ncu.index("--metrics") + 1].split(",")
        self.assertEqual(metrics, ncureport.ALL_METRICS)
        self.assertIn("--capture-range=cudaProfilerApi", nsys)
        self.assertEqual((doc["time_source"], doc["device_name"], doc["ncu_version"]), ("nsys", "NVIDIA H200",
                                                                                          "2024.3.2"))
        self.assertEqual(doc["calls"], 4)
        self.assertIn("Nsight Compute 2024.3.2 + Nsight Systems, NVIDIA H200; 4 forward call(s)", doc["summary"])
        self.assertFalse(os.path.exists(os.path.dirname(spec1["status_path"])))  # cleaned up

    def test_unknown_metrics_cost_the_roofline_only(self):
        with tempfile.TemporaryDirectory(prefix="kbharness-test-") as tmp:
            host = FakeGpuHost(tmp, ["==ERROR== Failed to find metric dram__bytes.sum.peak_sustained\n",
                                     read("ncu_raw_latency.csv")])
            doc = host.profile()
        self.assertEqual(doc["status"], "ok", doc["message"])
        second = host.runs[2][0]
        self.assertEqual(second[second.index("--metrics") + 1].split(","), ncureport.CORE_METRICS)
        self.assertIn("lacks the roofline metrics", doc["summary"])
        self.assertEqual(doc["time_source"], "ncu")

    def test_failures_are_messages(self):
        cases = [
            ({"ncu": ["==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
                      "Performance Counters\n"]}, "failed", "no permission to read the GPU's performance counters"),
            ({"ncu": [None]}, "timeout", "ncu did not finish within"),
            ({"ncu": ["==ERROR== The application returned an error code (1).\n"] * 2}, "failed",
             "The application returned an error code"),
            ({"ncu": [], "prepare": {"ok": False, "stage": "build", "error": "extension build failed",
                                     "build_errors": [{"file": "main.cu", "line": 7, "message": "expected ';'"}]}},
             "build_error", "main.cu:7: expected ';'"),
            ({"ncu": [], "prepare": {"ok": False, "stage": "forward", "error": "RuntimeError: CUDA error"}},
             "runtime_error", "failed before profiling (forward): RuntimeError: CUDA error"),
        ]
        for setup, status, text in cases:
            with self.subTest(status=status, text=text), tempfile.TemporaryDirectory(prefix="kbharness-test-") as tmp:
                doc = FakeGpuHost(tmp, setup["ncu"], prepare=setup.get("prepare")).profile()
                self.assertEqual(doc["status"], status, doc["message"])
                self.assertIn(text, doc["summary"])
                json.dumps(doc, allow_nan=False)


class ProfileCommandTests(unittest.TestCase):
    """The subcommand's answers where no profile can be made: never a crash, always a
    document with a readable message (exit status 0, as for a verdict)."""

    def run_profile(self, candidate, **overrides):
        with tempfile.TemporaryDirectory(prefix="kbharness-test-") as tmp:
            req_path, out = os.path.join(tmp, "req.json"), os.path.join(tmp, "out.json")
            with open(req_path, "w") as f:
                json.dump(make_request(candidate, RELU_TASK, **overrides), f)
            proc = run_cli(["profile", "--request", req_path, "--result", out], timeout=120)
            doc = None
            if os.path.exists(out):
                with open(out) as f:
                    doc = json.load(f)
            return proc, doc

    def test_cpu_run_cannot_be_profiled(self):
        proc, doc = self.run_profile(fixture("fx_correct.py"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual((doc["schema"], doc["status"]), (profile.PROFILE_SCHEMA, "unavailable"))
        self.assertIn("needs a CUDA GPU", doc["summary"])

    def test_rejected_candidate_is_not_profiled(self):
        proc, doc = self.run_profile(fixture("fx_cheat.py"), device="cuda")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(doc["status"], "rejected")
        self.assertIn("static check", doc["message"])

    def test_missing_ncu_is_a_message(self):
        req = request.parse(make_request(fixture("fx_cuda_relu.py"), RELU_TASK, device="cuda"))
        with mock.patch.object(profile, "find_tool", return_value=None):
            doc = profile.profile(req)
        self.assertEqual(doc["status"], "unavailable")
        self.assertIn("Nsight Compute (ncu) is not installed", doc["summary"])

    def test_bad_request(self):
        with tempfile.TemporaryDirectory(prefix="kbharness-test-") as tmp:
            out = os.path.join(tmp, "out.json")
            proc = run_cli(["profile", "--request", "-", "--result", out], stdin="{}", timeout=60)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("bad request", proc.stderr)


if __name__ == "__main__":
    unittest.main()
