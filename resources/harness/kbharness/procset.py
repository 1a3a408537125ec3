"""Every process a worker started, whatever flags ``clone`` got, seen from outside.

A candidate can hide work in a helper that is not one of its threads: ``clone(CLONE_VM)``
without ``CLONE_THREAD`` makes a process that shares the worker's memory but never appears
in ``/proc/<worker>/task``; ``fork`` + ``setsid`` leaves the worker's process group. The
judge therefore never asks the worker which processes it has. It reads ``/proc`` itself:

- in the sandbox the worker has a PID namespace of its own, and every process created in
  it, by any route, is a member of that namespace (``/proc/<pid>/ns/pid``); nothing it
  starts can leave it;
- without the sandbox (a weaker set-up, recorded as such): the worker's descendants, plus
  every process of its session and process group.

For that set the judge reads the CPU time (all threads, living and reaped), stops it
(SIGSTOP: it can neither launch work nor touch shared memory while the reference runs) and
lets it go on again.
"""

import os
import signal
import time

_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _stat_fields(pid):
    """Fields of /proc/<pid>/stat after the command name (field 3 onwards), or None."""
    raw = _read("/proc/%d/stat" % pid)
    if raw is None:
        return None
    close = raw.rfind(b")")
    if close < 0:
        return None
    return raw[close + 2:].split()


def _pid_ns(pid):
    try:
        return os.readlink("/proc/%d/ns/pid" % pid)
    except OSError:
        return None


def _all_pids():
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    return [int(n) for n in names if n.isdigit()]


def children(pid):
    out = []
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for tid in tasks:
        raw = _read("/proc/%d/task/%s/children" % (pid, tid))
        if raw:
            out.extend(int(x) for x in raw.split() if x.isdigit())
    return out


class ProcessSet:
    """The processes of one worker. ``root`` is the worker's pid (host view); ``sandboxed``
    says whether it has a PID namespace of its own (bwrap --unshare-pid)."""

    def __init__(self, root, sandboxed, exclude=()):
        self.root = root
        self.sandboxed = sandboxed
        self.exclude = set(exclude) | {os.getpid()}
        self.namespace = _pid_ns(root) if sandboxed else None
        if sandboxed and (self.namespace is None or self.namespace == _pid_ns(os.getpid())):
            # no namespace of its own after all: fall back to the tree
            self.namespace = None
        # The namespace's init (bwrap's inner process): in a PID namespace every orphan is
        # adopted by it, so its descendants are all the namespace's processes, found
        # without scanning the whole host's /proc.
        self.ns_init = None
        if self.namespace is not None:
            pid = root
            while True:
                fields = _stat_fields(pid)
                parent = int(fields[1]) if fields else 0
                if parent <= 1 or _pid_ns(parent) != self.namespace:
                    break
                pid = parent
            self.ns_init = pid
        fields = _stat_fields(root)
        # session and process group of the worker at the start (field 6 and 5)
        self.session = int(fields[3]) if fields else None
        self.group = int(fields[2]) if fields else None
        self._known = {}  # pid -> pidfd (-1: none) of the members the last freeze() saw

    def members(self):
        """Pids of every process of the set now (zombies included)."""
        if self.ns_init is not None:
            seen, queue = set(), [self.ns_init]
            while queue:
                pid = queue.pop()
                if pid in seen or pid in self.exclude or not os.path.exists("/proc/%d" % pid):
                    continue
                seen.add(pid)
                queue.extend(children(pid))
            return sorted(seen)
        seen, queue = set(), [self.root]
        while queue:
            pid = queue.pop()
            if pid in seen or pid in self.exclude or not os.path.exists("/proc/%d" % pid):
                continue
            seen.add(pid)
            queue.extend(children(pid))
        if self.session is not None:
            for pid in _all_pids():
                if pid in seen or pid in self.exclude:
                    continue
                fields = _stat_fields(pid)
                if fields and (int(fields[3]) == self.session or int(fields[2]) == self.group) and \
                        self.session != os.getsid(0):
                    seen.add(pid)
        return sorted(seen)

    def cpu_seconds(self):
        """CPU time of the set: user + system of every member (its threads, living and
        exited) plus what members collected from children they reaped."""
        total = 0
        for pid in self.members():
            fields = _stat_fields(pid)
            if not fields or len(fields) < 15:
                continue
            # utime, stime, cutime, cstime are fields 14-17 of stat (11-14 here)
            total += sum(int(x) for x in fields[11:15])
        return total / float(_CLK_TCK)

    def thread_count(self):
        n = 0
        for pid in self.members():
            try:
                n += len(os.listdir("/proc/%d/task" % pid))
            except OSError:
                pass
        return n

    def _signal(self, sig):
        for pid in self.members():
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def stop(self):
        """SIGSTOP every member; new members made between the scan and the signal are caught
        by scanning again until the set stops changing."""
        signalled = set()
        for _ in range(8):
            now = set(self.members())
            fresh = now - signalled
            if not fresh:
                break
            for pid in fresh:
                try:
                    os.kill(pid, signal.SIGSTOP)
                except (ProcessLookupError, PermissionError):
                    pass
            signalled |= fresh

    def cont(self):
        self._signal(signal.SIGCONT)

    def freeze(self, timeout=1.0):
        """Stop the set now and wait until every task has stopped; returns the tasks still
        awake after ``timeout`` (none, unless something resumes them). The processes seen at
        the last freeze are signalled before any scan, through pidfds (never a recycled
        pid), so the set stops within microseconds of the judge's decision; the scans then
        catch processes made since. A stopped set makes no new process, so the members seen
        stopped are all ``thaw`` has to resume."""
        signalled = set()
        for pid, fd in list(self._known.items()):
            if fd >= 0 and self._send(pid, signal.SIGSTOP):
                signalled.add(pid)
        awake, pids = self._stop_until_still(time.monotonic() + timeout, signalled, 0.0002)
        for pid in set(self._known) - set(pids):
            self._forget(pid)
        return awake

    def _stop_until_still(self, deadline, signalled, pause):
        """Scan the set, SIGSTOP its members not yet in ``signalled`` (keeping a pidfd for
        each; None: the first scan's members were signalled already) and those found awake
        again, until a scan finds no new member and no task awake, or ``deadline``. Returns
        (tasks still awake, the last scan's members)."""
        while True:
            pids = self.members()
            if signalled is None:
                signalled = set(pids)
            fresh = [p for p in pids if p not in signalled]
            for pid in fresh:
                self._send(pid, signal.SIGSTOP, adopt=True)
                signalled.add(pid)
            awake = self._awake_of(pids)
            if (not awake and not fresh) or time.monotonic() > deadline:
                return awake, pids
            for pid in {p for p, _, _ in awake}:
                self._send(pid, signal.SIGSTOP)
            time.sleep(pause)

    def thaw(self):
        """SIGCONT to the members the last ``freeze`` saw (every member, if none)."""
        if not self._known:
            self.cont()
            return
        for pid in list(self._known):
            self._send(pid, signal.SIGCONT)

    def _send(self, pid, sig, adopt=False):
        """Signal ``pid`` through its pidfd when known (``adopt``: open one for a process
        just found by a scan); False when it is gone."""
        fd = self._known.get(pid)
        if fd is None and adopt and hasattr(os, "pidfd_open"):
            try:
                fd = os.pidfd_open(pid)
                self._known[pid] = fd
            except ProcessLookupError:
                return False
            except OSError:
                fd = None  # no pidfds here (an old kernel): the pid, signalled at once
        try:
            if fd is not None and fd >= 0:
                signal.pidfd_send_signal(fd, sig)
            else:
                if adopt:
                    self._known[pid] = -1
                os.kill(pid, sig)
            return True
        except (ProcessLookupError, PermissionError):
            self._forget(pid)
            return False
        except OSError:
            return False

    def _forget(self, pid):
        fd = self._known.pop(pid, None)
        if fd is not None and fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass

    def close(self):
        for pid in list(getattr(self, "_known", {})):
            self._forget(pid)

    def __del__(self):
        try:
            self.close()
        except Exception:  # at interpreter exit os may be gone already
            pass

    def awake(self):
        """Tasks of the set that are not stopped: [(pid, tid, state)]. A stopped set has
        none; a task found running or sleeping while it should be stopped was resumed by
        someone other than the judge (SIGCONT can come from the candidate itself, e.g. from a
        timer of its own). Uninterruptible sleep (D) is a task still on its way to the stop,
        zombies and dead tasks run nothing."""
        return self._awake_of(self.members())

    @staticmethod
    def _awake_of(pids):
        found = []
        for pid in pids:
            try:
                tids = [int(t) for t in os.listdir("/proc/%d/task" % pid) if t.isdigit()]
            except OSError:
                continue
            for tid in tids:
                raw = _read("/proc/%d/task/%d/stat" % (pid, tid))
                if raw is None:
                    continue
                close = raw.rfind(b")")
                state = raw[close + 2:close + 3].decode("ascii", "replace") if close >= 0 else "?"
                if state not in ("T", "t", "D", "Z", "X", "x"):
                    found.append((pid, tid, state))
        return found

    def settle(self, timeout=1.0):
        """After stop(): wait until every task has reached its stop (a signal is delivered
        when a task next runs), sending SIGSTOP again to members still awake."""
        return self._stop_until_still(time.monotonic() + timeout, None, 0.001)[0]


def system_busy_seconds():
    """CPU time all processors of the machine spent busy so far (user, nice, system, irq,
    softirq, steal; /proc/stat), in seconds. Over a window, busy time that no process of the
    candidate's set shows -- a helper that exited and was reaped by nobody who counts -- is
    still here."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    v = [int(x) for x in fields[1:9]]
    busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
    return busy / float(_CLK_TCK)
