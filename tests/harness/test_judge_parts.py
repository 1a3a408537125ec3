"""The parts of the judge-owned timing, one by one: the output sketch (evidence.py), the
statistics that turn the judge's clock into a verdict (interleave.py), the process set
(procset.py), the precision probe (precision.py) and the judge's file slots (codec.py)."""

import os
import signal
import subprocess
import sys
import tempfile
import time
import types
import unittest

import torch

import harness_testlib  # noqa: F401  (puts kbharness on sys.path)
from kbharness import codec, evidence, interleave, precision, procset


class SketchTests(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(7)
        self.sk = evidence.Sketcher("cpu", 1234, length=1 << 12)  # short vectors: outputs span chunks
        self.ref = torch.randn(64, 1000)
        self.rsk = self.sk.sketch([self.ref], "k", bound=True, atol=1e-4, rtol=1e-4)

    def agrees(self, out, key="k"):
        return evidence.agrees(self.sk.sketch([out], key), self.rsk)[0]

    def test_outputs_within_tolerance_always_agree(self):
        # every element at 0.999 of its tolerance, random signs: the worst honest output
        tol = 1e-4 + 1e-4 * self.ref.abs()
        for seed in range(40):
            g = torch.Generator().manual_seed(seed)
            sign = torch.randint(0, 2, self.ref.shape, generator=g).float() * 2 - 1
            self.assertTrue(self.agrees(self.ref + 0.999 * tol * sign), seed)

    def test_wrong_outputs_are_caught(self):
        self.assertFalse(self.agrees(torch.zeros_like(self.ref)))
        self.assertFalse(self.agrees(torch.randn_like(self.ref)))
        stale = self.ref.clone()
        stale[:3] = torch.randn(3, 1000)  # three wrong rows of 64
        self.assertFalse(self.agrees(stale))
        nan = self.ref.clone()
        nan[5, 5] = float("nan")
        self.assertFalse(self.agrees(nan))

    def test_a_few_elements_beyond_tolerance_are_caught_by_the_sample(self):
        bad = self.ref.clone().reshape(-1)
        idx = torch.randperm(bad.numel())[: bad.numel() // 50]  # 2% of the elements, 3x the tolerance
        bad[idx] += 3 * (1e-4 + 1e-4 * bad[idx].abs())
        self.assertFalse(self.agrees(bad.reshape(self.ref.shape)))

    def test_moving_values_between_chunks_is_caught(self):
        # the vectors repeat from chunk to chunk: one chunk holding the sum of all passes only
        # if every chunk has the same weight
        flat = self.ref.reshape(-1)
        n = 1 << 12
        chunks = flat.numel() // n
        forged = torch.zeros_like(flat)
        forged[:n] = flat[: chunks * n].reshape(chunks, n).sum(0)
        forged[chunks * n:] = flat[chunks * n:]
        self.assertFalse(self.agrees(forged.reshape(self.ref.shape)))

    def test_sampled_positions_change_with_the_call(self):
        a = self.sk.sketch([self.ref], "call-1")["sample"][0]
        b = self.sk.sketch([self.ref], "call-2")["sample"][0]
        self.assertNotEqual(a, b)


def _side(samples, trips, overheads):
    """A side with per-round samples and round trips, and per-block judge time per call
    (spread over the block's calls as the gaps between them)."""
    s = interleave.Side("x", None, None, trusted=False)
    s.rounds = [list(r) for r in samples]
    s.samples = [x for r in samples for x in r]
    s.trips = [list(r) for r in trips]
    s.block_overheads = list(overheads)
    s.gaps = [o for o, r in zip(overheads, samples) for _ in r]
    return s


def _timing(cand, ref):
    t = interleave.InterleavedTiming.__new__(interleave.InterleavedTiming)
    t.sides = [cand, ref]
    t.cuda = True  # a GPU's rules: the judge's time after the returns is charged too
    return t


class ClockStatisticsTests(unittest.TestCase):
    def rounds(self, seed, base, blocks=30, n=10, jitter=0.02):
        g = torch.Generator().manual_seed(seed)
        return [[base * (1 + jitter * float(torch.randn(1, generator=g))) for _ in range(n)] for _ in range(blocks)]

    def honest(self, seed, ms):
        samples = self.rounds(seed, ms)
        g = torch.Generator().manual_seed(seed + 100)
        trips = [[x + 0.05 + 0.01 * abs(float(torch.randn(1, generator=g))) for x in r] for r in samples]
        overheads = [0.3 + 0.02 * abs(float(torch.randn(1, generator=g))) for _ in samples]
        return samples, trips, overheads

    def test_identical_sides_add_nothing(self):
        for seed in range(10):
            t = _timing(_side(*self.honest(seed, 1.0)), _side(*self.honest(seed + 50, 1.0)))
            self.assertEqual(t.forged_ms()[0], 0.0)
            self.assertEqual(t.unexplained_ms()[0], 0.0)
            est = t.speedup(t.sides[1])
            self.assertLess(abs(est[0] - 1.0), 0.02)

    def test_scaled_samples_are_restored(self):
        samples, trips, overheads = self.honest(1, 1.0)
        forged = [[x * 0.3 for x in r] for r in samples]  # the real work still fills the round trip
        t = _timing(_side(forged, trips, overheads), _side(*self.honest(2, 1.0)))
        self.assertGreater(t.forged_ms()[0], 0.6)
        eff = interleave.median([x for r in t.effective_rounds(t.sides[0]) for x in r])
        self.assertGreater(eff, 0.9)

    def test_reshaped_samples_with_the_right_sum_are_seen(self):
        # seven calls report 20%, three carry the rest: the sum is right, the median is not
        samples, trips, overheads = self.honest(3, 1.0)
        reshaped = [[x * 0.2 if i < 7 else x * (1 + 0.8 * 7 / 3) for i, x in enumerate(r)] for r in samples]
        t = _timing(_side(reshaped, trips, overheads), _side(*self.honest(4, 1.0)))
        self.assertEqual(t.impossible_samples(), 3 * len(samples))  # samples longer than their calls
        self.assertEqual(_timing(_side(*self.honest(3, 1.0)), _side(*self.honest(4, 1.0))).impossible_samples(), 0)

    def test_reshaped_samples_gain_nothing_on_a_noisy_clock(self):
        # the clock's noise (tens of ms) hides the shift from the robust test, but every call
        # still counts about its round trip: the median stays near the real time
        samples, trips, overheads = self.honest(9, 1.0)
        g = torch.Generator().manual_seed(10)
        noisy = [[t + 20.0 * abs(float(torch.randn(1, generator=g))) for t in tr] for tr in trips]
        reshaped = [[x * 0.2 if i < 7 else x * (1 + 0.8 * 7 / 3) for i, x in enumerate(r)] for r in samples]
        ref_s, ref_t, ref_o = self.honest(11, 1.0)
        ref_noisy = [[t + 20.0 * abs(float(torch.randn(1, generator=g))) for t in tr] for tr in ref_t]
        t = _timing(_side(reshaped, noisy, overheads), _side(ref_s, ref_noisy, ref_o))
        self.assertLess(t.speedup(t.sides[1])[0], 1.25)

    def test_an_outlier_block_does_not_widen_the_allowance(self):
        samples, trips, overheads = self.honest(5, 1.0)
        forged = [[x * 0.25 for x in r] for r in samples]
        trips[0] = [t + 60.0 for t in trips[0]]  # one block with a long hidden delay
        t = _timing(_side(forged, trips, overheads), _side(*self.honest(6, 1.0)))
        self.assertGreater(t.forged_ms()[0], 0.6)

    def test_deferred_work_lands_after_the_calls(self):
        samples, trips, overheads = self.honest(7, 1.0)
        deferred = [o + 0.8 for o in overheads]  # the judge's own work per call slowed by 0.8 ms
        t = _timing(_side(samples, trips, deferred), _side(*self.honest(8, 1.0)))
        self.assertGreater(t.unexplained_ms()[0], 0.6)

    def test_interval(self):
        est, lo, hi, half = interleave.log_ratio_interval([1.0, 1.02, 0.98, 1.01, 0.99])
        self.assertAlmostEqual(est, 1.0, places=2)
        self.assertLess(lo, 1.0)
        self.assertGreater(hi, 1.0)
        self.assertLess(half, 0.03)
        self.assertIsNone(interleave.log_ratio_interval([])[0] if interleave.log_ratio_interval([]) else None)


HELPER = r"""
import os, sys, time
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.setsid()                     # leaves the process group and session of its parent
    if os.fork():
        os._exit(0)                 # the grandchild is re-parented
    os.write(w, str(os.getpid()).encode())
    while True:
        time.sleep(0.01)
os.waitpid(pid, 0)
print(os.read(r, 32).decode(), flush=True)
while True:
    time.sleep(0.01)
"""


class ProcessSetTests(unittest.TestCase):
    def test_cpu_time_and_stop_reach_descendants(self):
        proc = subprocess.Popen([sys.executable, "-c", HELPER], stdout=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            escaped = int(proc.stdout.readline())
            ps = procset.ProcessSet(proc.pid, sandboxed=False)
            members = ps.members()
            self.assertIn(proc.pid, members)
            ps.stop()
            time.sleep(0.2)
            for pid in members:
                with open("/proc/%d/stat" % pid) as f:
                    self.assertIn(f.read().rsplit(")", 1)[1].split()[0], ("T", "t"), pid)
            ps.cont()
            self.assertGreaterEqual(ps.cpu_seconds(), 0.0)
        finally:
            for pid in (proc.pid,):
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                os.kill(escaped, signal.SIGKILL)
            except (ProcessLookupError, NameError, UnboundLocalError):
                pass
            proc.wait(10)


    def test_a_stopped_process_stays_stopped(self):
        """settle() waits until every task has stopped; with no one resuming it, awake()
        finds nothing later either (an honest candidate is never flagged)."""
        proc = subprocess.Popen([sys.executable, "-c", "print('ready', flush=True)\nwhile True:\n    pass\n"],
                                stdout=subprocess.PIPE, text=True, start_new_session=True)
        try:
            self.assertEqual(proc.stdout.readline().strip(), "ready")
            ps = procset.ProcessSet(proc.pid, sandboxed=False)
            ps.stop()
            self.assertEqual(ps.settle(), [])
            time.sleep(0.3)
            self.assertEqual(ps.awake(), [])
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()

    def test_sigcont_from_outside_the_judge_is_seen(self):
        proc = subprocess.Popen([sys.executable, "-c", "print('ready', flush=True)\nwhile True:\n    pass\n"],
                                stdout=subprocess.PIPE, text=True, start_new_session=True)
        try:
            self.assertEqual(proc.stdout.readline().strip(), "ready")
            ps = procset.ProcessSet(proc.pid, sandboxed=False)
            ps.stop()
            self.assertEqual(ps.settle(), [])
            os.kill(proc.pid, signal.SIGCONT)  # what a candidate's own timer can send
            time.sleep(0.05)
            awake = ps.awake()
            self.assertEqual([(p, t) for p, t, _ in awake], [(proc.pid, proc.pid)])
            self.assertIn(awake[0][2], ("R", "S"))
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()

    def test_freeze_stops_every_task_and_thaw_resumes_them(self):
        """freeze() returns with every task stopped, children made since the last freeze
        included; thaw() lets exactly those go again."""
        code = ("import os, sys, time\n"
                "print('ready', flush=True)\n"
                "sys.stdin.readline()\n"
                "if os.fork() == 0:\n"
                "    while True:\n"
                "        pass\n"
                "print('forked', flush=True)\n"
                "while True:\n"
                "    pass\n")
        proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True, start_new_session=True)
        try:
            self.assertEqual(proc.stdout.readline().strip(), "ready")
            ps = procset.ProcessSet(proc.pid, sandboxed=False)
            self.assertEqual(ps.freeze(), [])
            self.assertEqual(ps.awake(), [])
            ps.thaw()
            proc.stdin.write("go\n")
            proc.stdin.flush()
            self.assertEqual(proc.stdout.readline().strip(), "forked")
            self.assertEqual(ps.freeze(), [])
            members = ps.members()
            self.assertEqual(len(members), 2, members)
            self.assertEqual(ps.awake(), [])
            ps.thaw()
            time.sleep(0.05)
            self.assertEqual(sorted(p for p, _, _ in ps.awake()), members)
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            proc.stdin.close()
            proc.stdout.close()

    def test_freeze_never_signals_a_process_that_is_gone(self):
        """The members the last freeze saw are signalled first through pidfds: one that
        exited since is skipped, never a process that took its pid."""
        proc = subprocess.Popen([sys.executable, "-c", "print('ready', flush=True)\nimport sys\nsys.stdin.readline()\n"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True)
        self.assertEqual(proc.stdout.readline().strip(), "ready")
        ps = procset.ProcessSet(proc.pid, sandboxed=False)
        self.assertEqual(ps.freeze(), [])
        ps.thaw()
        proc.stdin.write("bye\n")
        proc.stdin.flush()
        proc.wait(10)
        proc.stdin.close()
        proc.stdout.close()
        sent = []
        real = procset.os.kill
        procset.os.kill = lambda pid, sig: sent.append(pid)
        try:
            self.assertEqual(ps.freeze(), [])
        finally:
            procset.os.kill = real
        self.assertEqual(sent, [])
        self.assertEqual(ps.members(), [])
        ps.close()


class PrecisionProbeTests(unittest.TestCase):
    class MatMul(torch.nn.Module):
        def forward(self, a, b):
            return a @ b

    @staticmethod
    def tf32(t):
        return ((t.contiguous().view(torch.int32) + 0x1000) & ~0x1FFF).view(torch.float32)

    def run_probe(self, kernel):
        torch.manual_seed(3)
        a, b = torch.rand(256, 64) * 0.05, torch.rand(64, 256) * 0.05
        m = self.MatMul()
        exact = precision.exact_output(m, [a, b])
        x16 = precision.short_mantissa([a, b])
        exact16 = precision.exact_output(m, x16)
        return precision.probe(exact, m(a, b), kernel(a, b), exact16, kernel(*x16))

    def test_tf32_inputs_are_flagged(self):
        out = self.run_probe(lambda a, b: self.tf32(a) @ self.tf32(b))
        self.assertTrue(out["downgraded"], out)

    def test_float32_kernels_are_not(self):
        self.assertFalse(self.run_probe(lambda a, b: (a.double() @ b.double()).float())["downgraded"])
        # a different summation order, still float32
        self.assertFalse(self.run_probe(lambda a, b: (a.unsqueeze(2) * b.unsqueeze(0)).sum(1))["downgraded"])


class QuietGpuTests(unittest.TestCase):
    """The judge's wait for an idle GPU after a block (interleave.py), with a GPU that stands
    in for the real one: its probe answers slowly for as long as the GPU stays busy."""

    class BusyGpu:
        def __init__(self, busy_probes):
            self.busy_probes = busy_probes

        def add_(self, value):
            if self.busy_probes > 0:
                self.busy_probes -= 1
                time.sleep(0.002)

    def timing(self, gpu):
        timer = interleave.InterleavedTiming.__new__(interleave.InterleavedTiming)
        timer.cuda = True
        timer.torch = types.SimpleNamespace(cuda=types.SimpleNamespace(synchronize=lambda: None))
        timer.ev = types.SimpleNamespace(gpu_idle_probe_ms=1.0)
        timer.probe = gpu
        return timer

    def test_a_gpu_that_becomes_idle_is_waited_for(self):
        gpu = self.BusyGpu(5)
        self.timing(gpu)._quiet(10.0)
        self.assertEqual(gpu.busy_probes, 0)

    def test_a_gpu_that_stays_busy_is_reported(self):
        with self.assertRaises(interleave.TimingAborted) as caught:
            self.timing(self.BusyGpu(10 ** 9))._quiet(0.05)
        self.assertEqual(caught.exception.rule, "runtime-gpu-busy-after-return")
        self.assertEqual(caught.exception.verdict, "timeout")


class FileSlotTests(unittest.TestCase):
    def test_a_cut_slot_is_an_error_not_a_crash(self):
        with tempfile.TemporaryDirectory() as d:
            slot = codec.cpu_slot(d, "out-0", (16, 16), torch.float32)
            view = codec.map_slot(codec.share_slot(slot))
            view.fill_(2.0)
            self.assertTrue(torch.equal(slot.read(), torch.full((16, 16), 2.0)))
            slot.write(torch.ones(16, 16))
            self.assertTrue(torch.equal(view, torch.ones(16, 16)))
            del view
            os.truncate(os.path.join(d, "out-0"), 8)  # what a hostile worker can do
            with self.assertRaises(codec.SlotError):
                slot.read()
            slot.close()


READ_HOME = """
import os
import torch
import torch.nn as nn
try:
    print("LEAKED:" + open(os.path.expanduser("~/provider-keys")).read())
except OSError as e:
    print("home-blocked:", e)


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
"""


class SandboxHomeTests(unittest.TestCase):
    def test_the_home_folder_is_hidden_from_the_candidate(self):
        """A hostile candidate reads a key file in $HOME at import: in the sandbox it finds an
        empty home, and the secret appears nowhere in the result."""
        import json

        with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cands:
            with open(os.path.join(home, "provider-keys"), "w") as f:
                f.write("sk-test-4f9c2a")
            cand = os.path.join(cands, "read_home.py")
            with open(cand, "w") as f:
                f.write(READ_HOME)
            req = harness_testlib.make_request(cand, policy={"allow_torch_ops": True})
            env = dict(harness_testlib._env(), HOME=home)
            proc = subprocess.run([sys.executable, "-m", "kbharness", "evaluate", "--request", "-", "--result", "-"],
                                  cwd=harness_testlib.HARNESS_DIR, env=env, input=json.dumps(req),
                                  capture_output=True, text=True, timeout=600)
            doc = json.loads(proc.stdout)
            self.assertEqual(doc["sandbox"], "bwrap", "needs a working bwrap")
            self.assertEqual(doc["verdict"], "correct", doc["message"])
            self.assertNotIn("sk-test-4f9c2a", proc.stdout + proc.stderr)
            self.assertIn("home-blocked", doc["worker_log_tail"])


POISON = """
import torch
import torch.nn as nn

_b = __builtins__
_get = (lambda k: _b[k]) if isinstance(_b, dict) else (lambda k: _b.__dict__[k])
_os = _get("__import__")("o" + "s")
_open = _get("op" + "en")
victim = %r
try:
    names = _os.listdir(victim)
    print("listed", names)
    for name in names:
        with _open(_os.path.join(victim, name), "w") as f:
            f.write("")
    print("poisoned", _os.listdir(victim))
except OSError as e:
    print("cache-blocked:", e)


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
"""


class SandboxCacheTests(unittest.TestCase):
    def test_a_candidate_cannot_touch_another_models_builds(self):
        """Model B's candidate knows where model A's builds are and tries to empty them: its
        sandbox binds only B's folder of the cache, and hides the rest."""
        import json

        with tempfile.TemporaryDirectory(dir=os.path.expanduser("~") if os.access(os.path.expanduser("~"), os.W_OK)
                                         else None) as root, tempfile.TemporaryDirectory() as cands:
            victim = os.path.join(root, "model-1", "0123abcd")
            os.makedirs(victim)
            with open(os.path.join(victim, "kernels.so"), "w") as f:
                f.write("a build of model 1")
            cand = os.path.join(cands, "poison.py")
            with open(cand, "w") as f:
                f.write(POISON % victim)
            req = harness_testlib.make_request(cand, policy={"allow_torch_ops": True},
                                               build_dir=os.path.join(root, "model-2"), build_root=root)
            proc = subprocess.run([sys.executable, "-m", "kbharness", "evaluate", "--request", "-", "--result", "-"],
                                  cwd=harness_testlib.HARNESS_DIR, env=harness_testlib._env(), input=json.dumps(req),
                                  capture_output=True, text=True, timeout=600)
            doc = json.loads(proc.stdout)
            self.assertEqual(doc["sandbox"], "bwrap", "needs a working bwrap")
            with open(os.path.join(victim, "kernels.so")) as f:
                self.assertEqual(f.read(), "a build of model 1")
            self.assertIn("cache-blocked", doc["worker_log_tail"])
            self.assertNotIn("listed", doc["worker_log_tail"])  # other models' builds are not even visible


if __name__ == "__main__":
    unittest.main()
