"""Judge integrity: candidates that attack how they are timed and verified (CPU mode).

One test per attack class of the judge-integrity threat model (the harness README), each
with its own attacking candidate under candidates/judge/ and the honest control of the
same kernel, plus attacks on the judge-owned timing design itself (interleave.py,
evidence.py, procset.py). Every candidate loads the same C++ source
(candidates/judge/judge_kernels.cpp), so a run builds once; nothing in them trips the
static rules (at most a "suspicious" finding), so what each test proves is the runtime
defence.

Attacks the harness does not catch yet are in OpenAttackTests (run by hand): each states
what it does and what a fix must make true; remove the marker once it is caught.
"""

import os
import shutil
import tempfile
import unittest

import adversarial_lib as lib

SMALL = "tests/adversarial/tasks/small_matmul.py"
WIDE = "tests/adversarial/candidates/judge/task_matmul_wide.py"
RAND = "tests/adversarial/candidates/judge/task_matmul_rand.py"
POLICY = {"allow_torch_ops": True}
# Every candidate here loads one library (judge_kernels.cpp) that also holds the attacks' clone,
# signal and thread code, which the library check rejects on sight (LibraryCheckTests in
# test_adversarial); it is off so that the runtime defences are what these tests exercise.
REQUEST = {"library_check": False}
# flags about the measurement's quality, not about the candidate (noisy timing is an info
# finding, never a flag: none is allowed)
MEASUREMENT_FLAGS = set()

_RESULTS = {}


def entry(file, task=SMALL):
    """The manifest-style entry of candidates/judge/<file> on <task>."""
    return {"file": os.path.join("judge", file), "task": task, "request": dict(REQUEST, policy=dict(POLICY))}


def evaluate(file, task=SMALL, **overrides):
    """(exit code, result, process) of candidates/judge/<file> on <task>, once per run."""
    key = (file, task, tuple(sorted(overrides.items())))
    if key not in _RESULTS:
        _RESULTS[key] = lib.evaluate(entry(file, task), **overrides)
    return _RESULTS[key]


def _bad_findings(doc):
    return [f for f in doc.get("static_findings") or [] if f["severity"] in ("suspicious", "reject")]


class _JudgeBase(unittest.TestCase):
    maxDiff = None

    def result(self, file, task=SMALL, **overrides):
        code, doc, proc = evaluate(file, task, **overrides)
        self.assertIsNotNone(doc, lib.describe(doc, proc))
        self.assertEqual(code, 0, lib.describe(doc, proc))
        return doc

    def speedup(self, doc):
        return (doc.get("speedup") or {}).get("eager")

    def assertHonest(self, file="judge_honest.py", task=SMALL):
        """The honest control: correct, no flag, no suspicious or reject finding, a
        plausible speed, and the judge's evidence clean."""
        doc = self.result(file, task)
        self.assertEqual(doc["verdict"], "correct", lib.describe(doc))
        self.assertEqual([f for f in doc["flags"] if f["flag"] not in MEASUREMENT_FLAGS], [], lib.describe(doc))
        self.assertEqual(_bad_findings(doc), [], lib.describe(doc))
        s = self.speedup(doc)
        self.assertIsNotNone(s, lib.describe(doc))
        self.assertTrue(0.02 < s < 50.0, s)
        ev = doc["timing"]["evidence"]
        self.assertEqual(doc["timing"]["inputs"], "fresh-per-call")
        # never enough to reject (CPU mode: half the worker's median)
        worker = sorted(doc["timing"]["candidate"]["worker_samples_ms"])
        self.assertLessEqual(ev["added_to_each_sample_ms"], 0.5 * worker[len(worker) // 2] + 0.002, ev)
        return doc

    def assertCaught(self, doc, verdict, rule=None, message=None):
        self.assertEqual(doc["verdict"], verdict, lib.describe(doc))
        if rule:
            self.assertIn(rule, lib.rules(doc, "reject"), lib.describe(doc))
            self.assertIn(rule, doc["message"])
        if message:
            self.assertIn(message, doc["message"], lib.describe(doc))
        self.assertIsNone(doc["speedup"], lib.describe(doc))

    def assertNoGain(self, doc, honest="judge_honest.py"):
        """Caught, or at least no faster than the honest kernel it forges (every call counts
        about its round trip on the judge's clock)."""
        if doc["verdict"] == "rejected":
            self.assertCaught(doc, "rejected", rule="runtime-unmeasured-work")
            return
        self.assertEqual(doc["verdict"], "correct", lib.describe(doc))
        # the forgeries here claim 4-5x the honest speed; a loaded machine's measurement of the
        # same kernel varies by tens of percent between evaluations, so the bound is 2x
        base = self.speedup(self.assertHonest(honest))
        self.assertLess(self.speedup(doc), 2.0 * base, lib.describe(doc))

    def assertNotRejectedStatically(self, doc):
        self.assertFalse([f for f in doc["static_findings"] if f["severity"] == "reject" and f["line"] > 0],
                         "the attack must pass the static check: %s" % lib.describe(doc))


class IssueClassTests(_JudgeBase):
    """The seven attack classes that used to be accepted as correct (CPU versions)."""

    def test_7_precision_downgrade(self):
        """TF32-like inputs (10-bit mantissas) on a float32 task with TF32 off: inside
        atol = rtol = 1e-4 on this task (worst element 0.29 of the tolerance), and its
        relative 2-norm error against float64 (7.7e-6) is below the probe's floor (1e-4),
        so it is neither incorrect nor flagged (measured: correct, no flag).
        A fix: a probe whose inputs make 10-bit rounding exceed the tolerance (e.g. inputs
        with a wide spread of magnitudes, or signed inputs: errors then do not average out),
        or a floor relative to the float32 reference's own error only."""
        doc = self.result("judge_tf32.py", RAND)
        self.assertNotRejectedStatically(doc)
        self.assertIn("precision-downgrade", {f["flag"] for f in doc["flags"]}, lib.describe(doc))


    def test_1_reaching_the_worker_harness(self):
        self.assertHonest()
        self.assertHonest("judge_honest_slow.py")
        # a: every timing sample reported at a fifth of its value (Worker.reply replaced
        # through sys.modules, reached from native code; the slow kernel, so that the hidden
        # time is far above the judge's own noise -- see test_forgery_inside_the_judges_noise)
        doc = self.result("judge_reach_forge.py")
        self.assertNotRejectedStatically(doc)
        # rejected as a rule; on a machine loaded enough that the clock cannot tell, it still
        # counts no faster than the honest slow kernel
        self.assertNoGain(doc, honest="judge_honest_slow.py")
        # b: the call handler replaced: nothing run, no output stored, a tiny sample
        doc = self.result("judge_reach_skip.py")
        self.assertNotRejectedStatically(doc)
        self.assertCaught(doc, "incorrect", message="the output of timed call r0-0 differs from the reference")

    def test_2_recognising_timing_inputs(self):
        self.assertHonest()
        doc = self.result("judge_relation_cache.py")
        self.assertNotRejectedStatically(doc)
        # no timed input is an exact scaled copy of an earlier one ...
        self.assertIn("adv-relation exact-hits=0 trusted-from-now", doc["worker_log_tail"])
        # ... and trusting the relation gives wrong outputs, caught at the first timed call
        self.assertCaught(doc, "incorrect", message="the output of timed call w0 differs from the reference")

    def test_3_garbage_for_most_timed_calls(self):
        self.assertHonest()
        doc = self.result("judge_garbage.py")
        self.assertNotRejectedStatically(doc)
        self.assertTrue(doc["correctness"]["passed"])
        self.assertCaught(doc, "incorrect", message="the output of timed call r0-0 differs from the reference")

    # Class 4 (hidden CPU parallelism): CpuBudgetTests.

    def test_5_deferred_work_into_the_output_copy(self):
        self.assertHonest()
        doc = self.result("judge_deferred_copy.py")
        self.assertNotRejectedStatically(doc)
        # rejected as a rule (the whole product lies between the sample's end and the reply);
        # on a machine loaded enough that the clock's allowance swallows the shift, every call
        # still counts its round trip less the harness's own time, i.e. the product: no gain
        # (measured on a loaded 2-core machine: accepted at the honest kernel's speed)
        self.assertNoGain(doc)

    def test_5_deferred_work_in_a_background_thread(self):
        self.assertHonest()
        doc = self.result("judge_deferred_thread.py")
        self.assertNotRejectedStatically(doc)
        # the first timed call as a rule; a judge descheduled for longer than the product
        # takes could read a later one first
        # either defence may fire first: the thread is alive during the timed calls
        # (rejected), or its late output is read before it lands (incorrect)
        if doc["verdict"] == "rejected":
            self.assertCaught(doc, "rejected", rule="runtime-background-thread")
        else:
            self.assertCaught(doc, "incorrect", message="the output of timed call ")

    def test_6_patching_the_worker_clock(self):
        # the slow kernel: see test_forgery_inside_the_judges_noise for the fast one
        self.assertHonest("judge_honest_slow.py")
        doc = self.result("judge_clock_slow.py")
        self.assertNotRejectedStatically(doc)
        self.assertNoGain(doc, honest="judge_honest_slow.py")

    def test_7_precision_honest_control(self):
        # the same naive kernel in float32 on the all-positive task
        self.assertHonest(task=RAND)

    def test_4_honest_control(self):
        self.assertHonest()


class JudgeDesignTests(_JudgeBase):
    """Attacks on the judge-owned timing design itself."""

    def test_slot_file_truncated_kills_the_judge(self):
        """The judge's CPU slots are files in the worker's own (writable) folder. After its
        first timed call the candidate truncates its input slot's file: the judge's next
        write of fresh inputs into its mapping raises SIGBUS and the judge dies (exit -7) with
        no result at all, and leaves its temporary folders behind (so it was, before the judge
        stopped mapping slot files: it now uses pread/pwrite only)."""
        tmp = tempfile.mkdtemp(prefix="kbjudge-")
        try:
            code, doc, proc = lib.evaluate(entry("judge_slot_truncate.py"), extra_env={"TMPDIR": tmp})
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        self.assertIsNotNone(doc, "the judge died with exit code %s and no result" % code)
        self.assertEqual(code, 0, lib.describe(doc, proc))
        # the judge reads and writes slot files with pread/pwrite: a cut file is written whole
        # again with the next call's inputs, or its short read fails the candidate; either way
        # the candidate gains nothing over the honest kernel
        if doc["verdict"] == "correct":
            self.assertLess(self.speedup(doc), 2.0 * self.speedup(self.assertHonest()), lib.describe(doc))
        else:
            self.assertIn(doc["verdict"], ("runtime_error", "incorrect"), lib.describe(doc))


    def test_forged_samples_with_the_right_sum(self):
        """The judge's clock bounds the sum of a block's samples, but the speedup is taken
        from their median: samples redistributed within a block (seven calls at 20% of
        their time, three carrying the rest) keep the sum and cut the median. Measured:
        correct, no flag, median 1.11 ms against the honest 2.59 ms, 18.2x against 7.0x. The worker's
        clock is the candidate's to replace (time.perf_counter, from native code); a
        SIGCONT from the judge marks the start of each block. A fix: time each call with
        the judge's own clock (its wall time around the call, less its own measured
        overhead) and never let a sample be below that; or take the speedup from block
        sums (means) rather than medians of worker samples. (Done: every call counts at
        least its round trip less the harness's own time, at most the round trip, and a
        sample longer than its round trip is rejected.)"""
        doc = self.result("judge_clock_median.py")
        self.assertNotRejectedStatically(doc)
        self.assertNoGain(doc)


    def test_forgery_inside_the_judges_noise(self):
        """Samples forged to a quarter of the real time on the fast kernel (~2 ms hidden
        per call). The judge forgives unexplained time up to three standard errors of the
        per-block overheads; one block with a 60 ms per call delay outside its samples
        raises the standard error far more than the mean, so the forgery passes as noise.
        Measured: correct, 27.5x (honest ~7-8x), the candidate's overhead 34.4 ms per call
        against the reference's 8.9 ms, unexplained 0. (Without the outlier block, on a
        loaded machine the same forgery passed at 29.4x in one run and was caught in
        another.) A fix: time each call with the judge's clock around the call alone (send
        to reply), not around the judge's own input generation and sketching, bound every
        sample by it, and test the sum of the hidden time rather than a mean with a
        standard-error allowance the candidate can widen. (Done: every call is bounded by its
        own round trip; the tests compare lower quartiles with a deviation-based allowance.)"""
        doc = self.result("judge_clock_noise.py")
        self.assertNotRejectedStatically(doc)
        self.assertNoGain(doc)


    def test_wide_honest_control(self):
        self.assertHonest(task=WIDE)

    def test_sketch_sees_only_the_sum_of_chunks(self):
        """evidence.Sketcher reuses its 2^20-long secret vectors for every chunk of an
        output, so the sketch of an output is the sketch of the sum of its chunks: any
        output with the right chunk sum passes. For a matrix product that sum costs 1/k of
        the work (k chunks); here 2 chunks, half the work, every timed call 'verified'.
        Measured: correct, no flag, 5.6x against the honest control's 2.9x on the same task.
        A fix: a different secret vector for every chunk (or per-chunk secret weights
        drawn per call), so no rearrangement of the output keeps its sketch."""
        doc = self.result("judge_fold.py", WIDE)
        self.assertNotRejectedStatically(doc)
        self.assertEqual(doc["verdict"], "incorrect", lib.describe(doc))


    def test_precision_downgrade_in_timed_calls_only(self):
        """Exact in the correctness trials (so the precision probe, which looks at trial 0,
        sees float32), bf16-like inputs (7-bit mantissas) in every timed call. Those outputs
        are up to ~2.6x outside the element-wise tolerance, but the sketch test bounds only
        the error's 2-norm, at Z = 8 times the tolerance's 2-norm (here the error is ~0.08 of
        that bound), so every timed call passes (measured: correct, no flag). The timed-output test is much looser than
        the correctness test: on small_matmul a 10-bit mantissa (155x outside the tolerance
        element-wise) still passes each call with probability ~0.99. A fix: a per-call
        test as strict as the correctness test (e.g. Z near 1 on many more vectors, or the
        element-wise comparison on a secret random subset of the output's elements, drawn
        per call), and the precision probe on timed outputs too."""
        doc = self.result("judge_timing_bf16.py", RAND)
        self.assertNotRejectedStatically(doc)
        self.assertEqual(doc["verdict"], "incorrect", lib.describe(doc))


    def test_unsandboxed_honest_control(self):
        doc = self.result("judge_honest.py", SMALL, sandbox="none")
        self.assertEqual(doc["sandbox"], "none")
        self.assertEqual(doc["verdict"], "correct", lib.describe(doc))
        self.assertEqual(_bad_findings(doc), [], lib.describe(doc))


class CpuBudgetTests(_JudgeBase):
    """Class 4, hidden CPU parallelism. Measuring it (CPU time over wall time, busy
    processors) depends on the machine's load: on a loaded 2-core machine the three helpers
    below showed cpu/wall of 0.34-0.46 against the honest control's 0.35. So the budget is
    enforced (confine.py): every task of the worker is held to as many processors as it has
    threads, and a seccomp filter keeps anything in its tree from widening them. All four
    candidates try to leave with sched_setaffinity; they must gain nothing, whatever the load."""

    def assertConfined(self, doc):
        """Rejected, failed (the candidate's own code gives up when it cannot leave), or
        correct under an enforced budget and no faster than the honest kernel."""
        self.assertNotRejectedStatically(doc)
        if doc["verdict"] == "rejected":
            self.assertCaught(doc, "rejected", rule="runtime-hidden-parallelism")
            return
        if doc["verdict"] != "correct":
            self.assertIn(doc["verdict"], ("incorrect", "runtime_error"), lib.describe(doc))
            self.assertIn("Operation not permitted", doc["message"] + (doc.get("worker_log_tail") or ""),
                          lib.describe(doc))
            self.assertIsNone(doc["speedup"])
            return
        budget = doc["timing"]["evidence"]["cpu_budget"]
        self.assertTrue(budget["filter_in_force"], budget)
        self.assertEqual(budget["processors"], 1, budget)
        self.assertNoGain(doc)

    def test_4_honest_control_runs_under_the_budget(self):
        doc = self.assertHonest()
        budget = doc["timing"]["evidence"]["cpu_budget"]
        self.assertEqual(budget["processors"], 1, budget)
        self.assertTrue(budget["filter_in_force"], budget)
        self.assertGreater(budget["tasks_narrowed"], 0, budget)

    def test_4_hidden_parallelism_clone_vm_helper(self):
        self.assertConfined(self.result("judge_clone_persistent.py"))

    def test_4_hidden_parallelism_thread(self):
        self.assertConfined(self.result("judge_thread_split.py"))

    def test_4_hidden_parallelism_process(self):
        self.assertConfined(self.result("judge_fork_split.py"))

    def test_helper_that_exits_before_the_block_ends(self):
        """A fresh clone(CLONE_VM) helper per call, reaped by nobody who counts: its CPU time
        is added to no process, so only the enforced budget holds it."""
        self.assertConfined(self.result("judge_clone_transient.py"))


class StopTests(_JudgeBase):
    """The candidate stays stopped for the whole of the reference's block. SIGSTOP holds a
    process only until it gets SIGCONT, and a process can have SIGCONT sent to itself by a
    timer of its own: two such helpers burned the budget processor while the reference ran,
    which doubled the reference's median (8.8 -> 17 ms on an idle machine) and the speedup
    with it, every run "correct", with the evidence saying the candidate was stopped. The
    judge now looks at every task of the candidate after each of the reference's calls."""

    def test_helpers_that_resume_themselves_are_rejected(self):
        self.assertHonest()
        doc = self.result("judge_timer_resume.py")
        self.assertNotRejectedStatically(doc)
        self.assertIn("adv-timer helpers 2", doc["worker_log_tail"], lib.describe(doc))
        if doc["verdict"] == "rejected":
            self.assertCaught(doc, "rejected", rule="runtime-escaped-stop")
            return
        # rejected as a rule. On a machine so loaded that a stop always lands while the timer's
        # SIGCONT is pending (which flushes it), the helpers never run beside the reference:
        # then the attack gains nothing. A successful one doubles the reference's median, so
        # the bound is tighter than assertNoGain's.
        self.assertEqual(doc["verdict"], "correct", lib.describe(doc))
        base = self.speedup(self.assertHonest())
        self.assertLess(self.speedup(doc), 1.5 * base, lib.describe(doc))


class HoldTests(_JudgeBase):
    """CPU mode: a side is stopped from the moment its reply arrives until its next call is
    sent, so the judge reads the output and writes the next inputs while nothing of the
    candidate runs. Before, a native helper could go on writing the output after the reply,
    racing the judge's read, and run while the judge wrote the next call's inputs (where it
    could start on them before the call's sample begins)."""

    def test_output_finished_after_the_reply(self):
        self.assertHonest()
        doc = self.result("judge_late_output.py")
        self.assertNotRejectedStatically(doc)
        self.assertTrue(doc["correctness"]["passed"], lib.describe(doc))
        if doc["verdict"] == "incorrect":
            self.assertCaught(doc, "incorrect", message="non-finite value")
            return
        # half the product after the reply cannot be done within the judge's reaction to the
        # reply (measured: 0.1-0.3 ms against the helper's 1 ms); whatever the helper finishes
        # before the reply lengthens the call's round trip, which the sample is held to
        self.assertNoGain(doc)

    def test_candidate_never_runs_while_the_judge_prepares(self):
        doc = self.assertHonest("judge_early_start.py")
        seen = [line for line in (doc.get("worker_log_tail") or "").splitlines() if line.startswith("adv-early ")]
        self.assertTrue(seen, lib.describe(doc))
        polls, torn = (int(field.split("=")[1]) for field in seen[-1].split()[1:3])
        # the watcher ran between calls (it polls while the call runs), and never once found
        # the next call's inputs half-written (measured without the hold: 59 of 60 calls)
        self.assertGreater(polls, 100, seen[-1])
        self.assertEqual(torn, 0, seen[-1])


class OpenAttackTests(_JudgeBase):
    """Attacks not caught yet, kept runnable by hand and left out of CTest: a test here fails
    while its attack succeeds. See the harness README's threat model, "Limits"."""

    def test_unsandboxed_helper_escapes_the_stop(self):
        """Without the sandbox (sandbox "none", or "auto" where bwrap is missing) a helper
        made with fork, setsid and a second fork is in neither the worker's tree, nor its
        session, nor its process group, so ProcessSet never finds it: it is not stopped
        while the reference runs (and not counted), yet the result still says
        candidate_stopped_during_reference: true. This one finds the reference's worker (the
        judge's other kbharness.worker child, same user, so it may signal it) and stops it
        three quarters of the time while the reference runs. Measured: correct at 28.5x,
        the reference's median 78.5 ms, against the honest control's 8.1x and 23.0 ms; the
        same candidate in the sandbox finds no reference and gains nothing. A fix: without a PID namespace, put each
        worker in a cgroup of its own (no descendant can leave it) and stop it with the
        cgroup freezer; run the reference's worker as a user the candidate cannot signal;
        or refuse timing without the sandbox."""
        doc = self.result("judge_escape_reference.py", SMALL, sandbox="none")
        self.assertNotRejectedStatically(doc)
        self.assertNotIn("adv-escape: stopping the reference", doc["worker_log_tail"], lib.describe(doc))
        self.assertNotEqual(doc["verdict"], "correct", lib.describe(doc))


if __name__ == "__main__":
    unittest.main()
