"""The CPU budget of a worker (confine.py): the seccomp filter that keeps a process tree from
widening its processors, and the judge's narrowing and checking of every task from outside."""

import os
import shutil
import subprocess
import sys
import time
import unittest

import harness_testlib  # noqa: F401  (puts kbharness on sys.path)
from kbharness import confine, procset

# A child that tries to widen its processors from a thread, a forked process and the main
# thread, and prints what each got.
WIDEN = r"""
import os, threading
def attempt(tag):
    try:
        os.sched_setaffinity(0, set(range(os.cpu_count())))
        print(tag, "widened", sorted(os.sched_getaffinity(0)), flush=True)
    except OSError as e:
        print(tag, "denied", e.errno, flush=True)
t = threading.Thread(target=attempt, args=("thread",)); t.start(); t.join()
pid = os.fork()
if pid == 0:
    attempt("child"); os._exit(0)
os.waitpid(pid, 0)
attempt("main")
"""

SLEEPER = "import threading, time\nthreading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n" \
          "print('ready', flush=True)\ntime.sleep(30)\n"


def _two_cpus():
    cpus = sorted(os.sched_getaffinity(0))
    return cpus if len(cpus) >= 2 else None


class FilterTests(unittest.TestCase):
    def test_program_shape(self):
        prog = confine.filter_program("x86_64")
        self.assertEqual(len(prog) % 8, 0)
        self.assertEqual(len(prog) // 8, 8)  # arch, nr, x32, two calls, allow, deny + load arch
        self.assertIsNotNone(confine.filter_program("aarch64"))
        self.assertIsNone(confine.filter_program("an-unknown-machine"))

    def _run(self, cmd, **kw):
        cpus = _two_cpus()
        if cpus is None:
            self.skipTest("one processor: nothing to widen to")
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                              preexec_fn=kw.pop("preexec", None) or (lambda: os.sched_setaffinity(0, {cpus[-1]})),
                              **kw)

    def test_unfiltered_process_can_widen(self):
        # the control: without the filter the same code widens everywhere
        p = self._run([sys.executable, "-c", WIDEN])
        self.assertEqual(p.stdout.count("widened"), 3, p.stdout + p.stderr)

    def test_filter_installed_before_exec_holds_for_threads_and_children(self):
        cpus = _two_cpus() or [0]

        def pre():
            os.sched_setaffinity(0, {cpus[-1]})
            if not confine.install():
                os._exit(99)

        p = self._run([sys.executable, "-c", WIDEN], preexec=pre)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count("denied 1"), 3, p.stdout + p.stderr)
        self.assertNotIn("widened", p.stdout)

    @unittest.skipUnless(shutil.which("bwrap"), "bwrap is not installed")
    def test_filter_through_bwrap(self):
        f = confine.bwrap_filter_file()
        try:
            p = self._run(["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid",
                           "--seccomp", str(f.fileno()), sys.executable, "-c", WIDEN], pass_fds=(f.fileno(),))
        finally:
            f.close()
        self.assertEqual(p.stdout.count("denied 1"), 3, p.stdout + p.stderr)

    def test_filtered_reports_the_filter(self):
        cpus = _two_cpus() or [0]

        def pre():
            os.sched_setaffinity(0, {cpus[-1]})
            confine.install()

        for preexec, expected in ((pre, True), (None, False)):
            proc = subprocess.Popen([sys.executable, "-c", SLEEPER], stdout=subprocess.PIPE, text=True,
                                    preexec_fn=preexec)
            try:
                self.assertEqual(proc.stdout.readline().strip(), "ready")
                self.assertEqual(confine.filtered(proc.pid), expected)
            finally:
                proc.kill()
                proc.wait()
                proc.stdout.close()
        self.assertFalse(confine.filtered(None))


class BudgetTests(unittest.TestCase):
    def test_parse_cpu_list(self):
        self.assertEqual(confine.parse_cpu_list("0-3,8,10-11\n"), {0, 1, 2, 3, 8, 10, 11})
        self.assertEqual(confine.parse_cpu_list("5"), {5})
        self.assertEqual(confine.parse_cpu_list(""), set())

    def test_timing_cpus(self):
        self.assertIsNone(confine.timing_cpus(None, 1))
        self.assertEqual(confine.timing_cpus({1, 2, 3}, 1, salt=0), {1})
        self.assertEqual(confine.timing_cpus({1, 2, 3}, 2, salt=2), {3, 1})
        self.assertEqual(confine.timing_cpus({1, 2, 3}, 8), {1, 2, 3})  # never more than the pool
        self.assertEqual(len(confine.timing_cpus(set(range(16)), 4, salt=12345)), 4)

    def test_narrow_reaches_every_task_and_outside_sees_a_widened_one(self):
        cpus = _two_cpus()
        if cpus is None:
            self.skipTest("one processor: nothing to narrow")
        proc = subprocess.Popen([sys.executable, "-c", SLEEPER], stdout=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            self.assertEqual(proc.stdout.readline().strip(), "ready")
            procs = procset.ProcessSet(proc.pid, sandboxed=False)
            budget = {cpus[-1]}
            self.assertTrue(confine.outside(procs, budget))  # started with every processor
            procs.stop()
            self.assertGreaterEqual(confine.narrow(procs, budget), 2)  # the main thread and the sleeper
            self.assertEqual(confine.outside(procs, budget), [])
            # one task widened again (the judge can; an unfiltered worker could): found
            tids = sorted(int(t) for t in os.listdir("/proc/%d/task" % proc.pid))
            os.sched_setaffinity(tids[-1], set(cpus))
            loose = confine.outside(procs, budget)
            self.assertEqual([(p, t) for p, t, _ in loose], [(proc.pid, tids[-1])])
            self.assertEqual(loose[0][2], set(cpus))
            procs.cont()
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()

    def test_a_zombie_is_not_outside(self):
        """A process that exited and was never reaped keeps the processors it had but runs
        nothing: not a widened task (honest code that leaves a zombie is not rejected)."""
        cpus = _two_cpus()
        if cpus is None:
            self.skipTest("one processor")
        code = "import os, time\nif os.fork() == 0:\n    os._exit(0)\nprint('ready', flush=True)\ntime.sleep(30)\n"
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            self.assertEqual(proc.stdout.readline().strip(), "ready")
            procs = procset.ProcessSet(proc.pid, sandboxed=False)
            for _ in range(100):  # the child's exit
                if len(procs.members()) == 2:
                    break
                time.sleep(0.02)
            self.assertEqual(len(procs.members()), 2)
            budget = {cpus[-1]}
            confine.narrow(procs, budget)
            zombie = [p for p in procs.members() if p != proc.pid][0]
            os.sched_setaffinity(zombie, set(cpus))  # as it was when it exited
            self.assertEqual(confine.outside(procs, budget), [])
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()


if __name__ == "__main__":
    unittest.main()
