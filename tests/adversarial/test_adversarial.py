"""The adversarial suite: cheating candidates and the verdicts they must get.

candidates/manifest.json lists every candidate with the pattern it tries,
whether the static checker alone decides (check=static) or a full
evaluation (check=runtime), and the expected verdict and rule.  Runtime
entries pass the static check on purpose (they hide from it) so that the
runtime defense is what the test proves.  Every C++-based runtime candidate
loads the same source (candidates/adv_kernels.cpp), so a run builds once.
"""

import json
import os
import socket
import threading
import time
import unittest

import adversarial_lib as lib
from kbharness import static_check


def _static(e, policy=None):
    with open(os.path.join(lib.CANDIDATES, e["file"])) as f:
        found = static_check.analyze(f.read(), policy or {})
    return found, static_check.verdict_for(found) or "pass"


class ManifestAndStaticTests(unittest.TestCase):
    def test_manifest_shape(self):
        entries = lib.manifest()
        self.assertGreaterEqual(len(entries), 30)
        files = set()
        for e in entries:
            with self.subTest(file=e["file"]):
                for key in ("file", "task", "pattern", "check", "expect_verdict", "device"):
                    self.assertIn(key, e)
                self.assertIn(e["check"], ("static", "runtime"))
                self.assertIn(e["device"], ("cpu", "cuda"))
                self.assertTrue(os.path.isfile(os.path.join(lib.CANDIDATES, e["file"])))
                self.assertTrue(os.path.isfile(os.path.join(lib.REPO, e["task"])))
                self.assertNotIn(e["file"], files)
                files.add(e["file"])
                if e["check"] == "runtime" and e["device"] == "cpu":
                    self.assertTrue(e.get("test", "").startswith("adversarial."), e)

    def test_static_verdicts(self):
        for e in lib.manifest():
            found, verdict = _static(e)
            with self.subTest(file=e["file"]):
                if e["check"] == "static":
                    self.assertEqual(verdict, e["expect_verdict"], found)
                else:
                    # runtime entries hide from the static rules: the runtime
                    # defense must catch them
                    self.assertEqual(verdict, "pass", found)
                rule = e.get("expect_rule")
                if rule and not rule.startswith("runtime-") and (e["check"] == "static" or
                                                               e.get("expect_severity")):
                    severity = e.get("expect_severity", "reject")
                    self.assertIn(rule, {f.rule for f in found if f.severity == severity}, found)

    def test_cuda_entries_are_all_checked_statically(self):
        cuda = [e for e in lib.manifest() if e["device"] == "cuda"]
        self.assertGreaterEqual(len(cuda), 5)
        patterns = " ".join(e["pattern"] for e in cuda)
        for word in ("side-stream", "L2 persistence", "cuBLAS", "CUDA graph"):
            self.assertIn(word, patterns)

    def test_vendor_policy(self):
        e = lib.entry("adv_cuda_cublas.py")
        for policy, verdict in (({}, "rejected"), ({"allow_vendor_libraries": "none"}, "rejected"),
                                ({"allow_vendor_libraries": "conv"}, "rejected"),
                                ({"allow_vendor_libraries": "gemm"}, "pass"),
                                ({"allow_vendor_libraries": ["gemm", "conv"]}, "pass"),
                                ({"allow_vendor_libraries": True}, "pass")):
            with self.subTest(policy=policy):
                found, got = _static(e, policy)
                self.assertEqual(got, verdict, found)
        src = 'cudnnConvolutionForward(h, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);'
        body = ('import torch.nn as nn\nfrom torch.utils.cpp_extension import load_inline\nsrc = r"""\n'
                '#include <cudnn.h>\nvoid f() { %s }\n"""\next = load_inline(name="c", cpp_sources=[src], '
                'functions=["f"])\nclass ModelNew(nn.Module):\n    def forward(self, x):\n        return ext.f(x)\n'
                % src)
        self.assertEqual(static_check.verdict_for(static_check.analyze(body, {"allow_vendor_libraries": "gemm"})),
                         "rejected")
        self.assertIsNone(static_check.verdict_for(static_check.analyze(body, {"allow_vendor_libraries": "conv"})))

    def test_precision_is_info_on_half_precision_tasks(self):
        found, _ = _static(lib.entry("adv_precision_downgrade.py"), {"precision": "fp16"})
        self.assertEqual({f.severity for f in found if f.rule == "precision-downgrade"}, {"info"})


class _RuntimeBase(unittest.TestCase):
    def run_entry(self, name, extra_env=None, **overrides):
        e = lib.entry(name)
        code, doc, proc = lib.evaluate(e, extra_env=extra_env, **overrides)
        self.assertEqual(code, 0, lib.describe(doc, proc))
        self.assertIsNotNone(doc, lib.describe(doc, proc))
        return e, doc

    def assertExpected(self, e, doc):
        self.assertEqual(doc["verdict"], e["expect_verdict"], lib.describe(doc))
        if e.get("expect_rule"):
            self.assertIn(e["expect_rule"], lib.rules(doc, e.get("expect_severity", "reject")), lib.describe(doc))


class RuntimePythonTests(_RuntimeBase):
    """Runtime defenses against candidates that need no C++ build."""

    def test_stale_memory(self):
        e, doc = self.run_entry("adv_stale_memory.py")
        self.assertExpected(e, doc)

    def test_allclose_patch_hidden(self):
        e, doc = self.run_entry("adv_allclose_patch_hidden.py")
        self.assertExpected(e, doc)
        self.assertEqual(len([t for t in doc["correctness"]["trials"] if not t["passed"]]), 5)

    def test_background_thread_hidden(self):
        e, doc = self.run_entry("adv_thread_hidden.py")
        self.assertExpected(e, doc)
        self.assertIn("runtime-background-thread", doc["message"])
        self.assertIsNone(doc["timing"])

    def test_lazy_subclass_hidden(self):
        e, doc = self.run_entry("adv_lazy_subclass_hidden.py")
        self.assertExpected(e, doc)
        self.assertIn("subclass", doc["message"])

    def test_constant_output_on_weak_task(self):
        e, doc = self.run_entry("adv_weak_task_zeros.py")
        self.assertExpected(e, doc)
        self.assertTrue(doc["correctness"]["strict"])
        self.assertIn("below-tolerance", doc["correctness"]["strict_reason"])
        self.assertIn("weak-task-strict-check", lib.rules(doc, "info"))
        # the weakness is real: the plain check passes the same answer
        _, loose = self.run_entry("adv_weak_task_zeros.py", strict_check=False, timing_trials=1)
        self.assertEqual(loose["verdict"], "correct", lib.describe(loose))
        self.assertFalse(loose["correctness"]["strict"])

    def test_seed_probe_hidden(self):
        e, doc = self.run_entry("adv_seed_probe_hidden.py",
                                extra_env={"ADV_PROVIDER_API_KEY": "adv-secret-%d" % lib.SECRET_SEED})
        self.assertExpected(e, doc)
        log = doc["worker_log_tail"]
        self.assertIn("adv-seed-probe", log)
        self.assertIn("adv-env-probe", log)
        self.assertNotIn("ADV_PROVIDER_API_KEY", log)  # the worker gets a scrubbed environment
        self.assertNotIn(str(lib.SECRET_SEED), log)
        self.assertNotIn(str(lib.SECRET_SEED), json.dumps(doc))

    def test_seed_probe_without_sandbox(self):
        # without the sandbox the judge is visible, but not dumpable, and the
        # request came on its stdin: the seed is still out of reach
        e, doc = self.run_entry("adv_seed_probe_hidden.py", sandbox="none", correctness_trials=1)
        self.assertEqual(doc["sandbox"], "none")
        self.assertIn("sandbox-disabled", lib.rules(doc, "info"))
        self.assertIn("adv-seed-probe", doc["worker_log_tail"])
        self.assertNotIn(str(lib.SECRET_SEED), doc["worker_log_tail"])

    def test_fake_result(self):
        e, doc = self.run_entry("adv_fake_result.py")
        self.assertExpected(e, doc)
        self.assertIn('"verdict": "correct"', doc["worker_log_tail"])  # it did try

    def test_infinite_loop(self):
        t0 = time.monotonic()
        e, doc = self.run_entry("adv_infinite_loop.py")
        self.assertExpected(e, doc)
        self.assertLess(time.monotonic() - t0, 40)

    def test_oom_bomb(self):
        t0 = time.monotonic()
        e, doc = self.run_entry("adv_oom_bomb.py")
        self.assertExpected(e, doc)
        self.assertLess(time.monotonic() - t0, 60)

    def test_sandbox_fallback_is_recorded(self):
        # no bwrap on PATH: the evaluation still runs, unsandboxed, and says so
        e = lib.entry("adv_stale_memory.py")
        env_path = os.environ.get("PATH")
        os.environ["PATH"] = "/nonexistent"
        try:
            code, doc, proc = lib.evaluate(e, correctness_trials=1)
        finally:
            os.environ["PATH"] = env_path
        self.assertEqual(code, 0, lib.describe(doc, proc))
        self.assertEqual(doc["sandbox"], "none")
        self.assertIn("sandbox-unavailable", lib.rules(doc, "info"))
        self.assertEqual(doc["verdict"], "incorrect")
        # and a request that insists on the sandbox is refused
        os.environ["PATH"] = "/nonexistent"
        try:
            code, doc, proc = lib.evaluate(e, correctness_trials=1, sandbox="bwrap")
        finally:
            os.environ["PATH"] = env_path
        self.assertEqual(code, 2, proc.stderr)


class RuntimeKernelTests(_RuntimeBase):
    """Runtime defenses against C++ candidates (one shared build)."""

    def test_input_mutation(self):
        e, doc = self.run_entry("adv_input_mutation.py")
        self.assertExpected(e, doc)

    def test_output_cache_keyed_on_data_ptr(self):
        e, doc = self.run_entry("adv_ptr_cache.py")
        self.assertExpected(e, doc)
        self.assertIn("adv-cache-hit", doc["worker_log_tail"])  # it did hit, and was caught

    def test_output_cache_keyed_on_content_hash(self):
        e, doc = self.run_entry("adv_hash_cache.py", timing_trials=10)
        self.assertExpected(e, doc)
        self.assertNotIn("adv-cache-hit", doc["worker_log_tail"])
        self.assertEqual(doc["timing"]["inputs"], "fresh-per-call")

    def test_native_thread_without_library_check(self):
        """With the library check off, a native thread left running is no evidence by itself
        (torch starts its own): the honest work it leaves behind is measured as it is."""
        e, doc = self.run_entry("adv_native_thread.py", library_check=False)
        self.assertEqual(doc["verdict"], "correct", lib.describe(doc))
        self.assertEqual(doc["build"]["library_check"]["status"], "off (the request turned it off)")

    def test_timer_patch_hidden(self):
        e, doc = self.run_entry("adv_timer_patch_hidden.py")
        if doc["verdict"] == "rejected":
            self.assertExpected(e, doc)
            self.assertIn("judge's clock", doc["message"])
            return
        # rejected as a rule; on a machine loaded enough that the clock's allowance swallows a
        # call's whole time, the speedup still rests on the judge's clock, not on the zeroed
        # samples: no faster than the same kernel timed honestly (the bound is 2x because a
        # loaded machine's measurement of one kernel varies by tens of percent between runs)
        self.assertEqual(doc["verdict"], "correct", lib.describe(doc))
        honest = dict(e, file="control_honest_relu.py")
        code, control, proc = lib.evaluate(honest)
        self.assertEqual(code, 0, lib.describe(control, proc))
        self.assertEqual(control["verdict"], "correct", lib.describe(control))
        self.assertLess(doc["speedup"]["eager"], 2.0 * control["speedup"]["eager"],
                        "%s\n%s" % (lib.describe(doc), lib.describe(control)))

    def test_write_outside_workspace(self):
        target = "/tmp/kbharness-adversarial-escape"
        if os.path.exists(target):
            os.remove(target)
        e, doc = self.run_entry("adv_write_outside_hidden.py")
        self.assertEqual(doc["sandbox"], "bwrap", "needs a working bwrap")
        self.assertExpected(e, doc)
        self.assertFalse(os.path.exists(target), "the candidate wrote outside its workspace")
        self.assertFalse(os.path.exists(os.path.join(lib.HARNESS_DIR, "kbharness-adversarial-local")))
        self.assertIn("adv-write /tmp/kbharness-adversarial-escape", doc["worker_log_tail"])

    def test_network(self):
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind(("127.0.0.1", 47613))
        except OSError:
            self.skipTest("port 47613 is busy")
        listener.listen(4)
        listener.settimeout(0.2)
        accepted = []
        stop = threading.Event()

        def accept():
            while not stop.is_set():
                try:
                    conn, _ = listener.accept()
                    accepted.append(1)
                    conn.close()
                except OSError:
                    pass

        t = threading.Thread(target=accept, daemon=True)
        t.start()
        try:
            e, doc = self.run_entry("adv_network_hidden.py")
        finally:
            stop.set()
            t.join(5)
            listener.close()
        self.assertEqual(doc["sandbox"], "bwrap", "needs a working bwrap")
        self.assertExpected(e, doc)
        self.assertIn("adv-net: blocked", doc["worker_log_tail"])
        self.assertEqual(accepted, [])

    def test_segfault(self):
        e, doc = self.run_entry("adv_segfault.py")
        self.assertExpected(e, doc)
        self.assertIn("SIGSEGV", doc["message"])


class PlausibilityTests(unittest.TestCase):
    """Roofline floor and wall-clock cross-check (the trusted side's logic)."""

    def _evaluation(self):
        from kbharness import evaluate, request

        req = request.parse(lib.make_request(lib.entry("adv_stale_memory.py")))
        ev = evaluate.Evaluation(req)
        ev.device = "cpu"
        return ev

    def test_below_roofline_is_suspicious(self):
        import torch

        ev = self._evaluation()
        sets = [[torch.ones(1 << 20)]]
        outs = [torch.ones(1 << 20)]
        roof = ev._roofline(sets, outs, {"median_ms": 1e-6})
        self.assertGreater(roof["floor_ms"], 1e-6)
        self.assertIn("runtime-below-roofline", {f["rule"] for f in ev.result["static_findings"]})
        self.assertEqual(ev.result["static_findings"][0]["severity"], "suspicious")
        ev2 = self._evaluation()
        ev2._roofline(sets, outs, {"median_ms": 10.0 * roof["floor_ms"]})
        self.assertEqual(ev2.result["static_findings"], [])

    def test_strict_comparison(self):
        import torch
        from kbharness import compare

        ref = torch.softmax(torch.rand(2, 131072, dtype=torch.float64), dim=1).float()
        zeros = torch.zeros_like(ref)
        self.assertTrue(compare.compare(ref, zeros, 1e-4, 1e-4)["passed"])
        self.assertFalse(compare.compare(ref, zeros, 1e-4, 1e-4, strict=True)["passed"])
        honest = torch.softmax(ref.double().log() + 0.0, dim=1).float()  # recomputed, rounding differs
        self.assertTrue(compare.compare(ref, honest, 1e-4, 1e-4, strict=True)["passed"])
        const = torch.full((1000,), 5.0) + torch.linspace(0, 1e-4, 1000)
        self.assertTrue(compare.compare(const, torch.full_like(const, float(const.mean())), 1e-4, 1e-4)["passed"])
        self.assertFalse(compare.compare(const, torch.full_like(const, float(const.mean())), 1e-4, 1e-4,
                                         strict=True)["passed"])

    def test_per_call_inputs_are_fresh(self):
        """Timed calls get inputs of their own from get_inputs under a secret per-call seed:
        no two calls' inputs are related (no scaled copies a kernel could recognise)."""
        import torch
        from kbharness import seeds

        firsts = []
        for call in range(64):
            torch.manual_seed(seeds.derive(987654321, "timed-call-r0-%d" % call))
            x = torch.randn(256)
            firsts.append(x)
        for i in range(1, len(firsts)):
            ratio = firsts[i] / firsts[0]
            self.assertGreater(float(ratio.std()), 0.1)  # not a multiple of the first


class LibraryCheckTests(_RuntimeBase):
    """The check of the built library (kbharness/symcheck.py): what it imports and the system
    calls in its machine code, whatever the source's spelling. Each attack passes the C++
    scan of its source (test_static_verdicts) and is rejected by the library check; the
    honest control, with the calls a hand-written kernel makes, gets no finding."""

    def assertCaught(self, name):
        e, doc = self.run_entry(name)
        self.assertExpected(e, doc)
        self.assertTrue(doc["message"].startswith("library check: "), lib.describe(doc))
        self.assertIn("the built library", doc["message"])
        return doc

    def test_honest_control(self):
        e, doc = self.run_entry("library/lib_honest.py")
        self.assertExpected(e, doc)
        self.assertEqual(doc["build"]["library_check"], {"libraries": 1, "status": "ok", "findings": 0})
        self.assertEqual([f for f in doc["static_findings"] if f["severity"] != "info"], [], lib.describe(doc))
        self.assertEqual(doc["flags"], [], lib.describe(doc))

    def test_aten_op_without_a_namespace(self):
        doc = self.assertCaught("library/lib_aten_unqualified.py")
        self.assertIn("at::_ops::relu::call", doc["message"])

    def test_aten_op_allowed_by_policy(self):
        e, doc = self.run_entry("library/lib_aten_unqualified.py", policy={"allow_torch_ops": True})
        self.assertEqual(doc["verdict"], "correct", lib.describe(doc))
        self.assertEqual(doc["build"]["library_check"]["findings"], 0)

    def test_thread_under_an_alias(self):
        doc = self.assertCaught("library/lib_thread_alias.py")
        self.assertIn("std::thread", doc["message"])

    def test_raw_system_call(self):
        doc = self.assertCaught("library/lib_raw_syscall.py")
        self.assertIn("syscall instruction", doc["message"])

    def test_native_thread_spelled_to_pass_the_scan(self):
        self.assertCaught("adv_native_thread.py")


if __name__ == "__main__":
    unittest.main()
