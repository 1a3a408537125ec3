"""Isolation, tried from the attacker's side (CPU mode, needs bubblewrap).

- A candidate sees an allow-list of the file system: secrets outside the home folder (a folder
  under /var/tmp, a database file, /etc/shadow) cannot be read, neither from Python nor through
  `#include` in its C++ source, and appear nowhere in the result.
- The build cache is written only by the judge: a candidate cannot alter a finished entry
  another candidate of its model loads, cannot plant one, and an entry changed behind the
  judge's back (a candidate run without the sandbox) is found by its digest, discarded and built
  again, so the victim's next evaluation is unaffected.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import uuid

from adversarial_lib import HARNESS_DIR, REPO, _env

RELU_TASK = os.path.join(REPO, "resources", "suites", "sample", "level1", "relu.py")
VICTIM = os.path.join(REPO, "tests", "harness", "fixtures", "fx_correct.py")
FAST = {"correctness_trials": 2, "timing_trials": 5, "warmup": 1, "max_timing_seconds": 0.5,
        "timing_input_sets": 1, "num_threads": 1}

# Reads every path it is given and prints what it got; static rules are evaded on purpose
# (the sandbox is what must hold).
READER = r'''
import torch
import torch.nn as nn

_b = __builtins__
_get = (lambda k: _b[k]) if isinstance(_b, dict) else (lambda k: _b.__dict__[k])
_os = _get("__import__")("o" + "s")
_open = _get("op" + "en")
for p in %r:
    try:
        if _os.path.isdir(p):
            print("LISTED", p, _os.listdir(p))
        else:
            with _open(p, "rb") as f:
                print("READ", p, f.read(4000))
    except OSError as e:
        print("blocked", p, type(e).__name__)


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
'''

INCLUDER = r'''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

kernels = load_inline(name="kbadv_include_secret", cpp_sources=['#include "%s"\nint kb_f() { return 1; }'],
                      functions=["kb_f"])


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
'''

# Tries every way into another candidate's finished build: rewrite its library, replace it by a
# link, plant a marker and library for an entry it did not build, and write the judge's records.
POISONER = r'''
import torch
import torch.nn as nn

_b = __builtins__
_get = (lambda k: _b[k]) if isinstance(_b, dict) else (lambda k: _b.__dict__[k])
_os = _get("__import__")("o" + "s")
_open = _get("op" + "en")
cache = %r
trusted = %r
def attempt(what, fn):
    try:
        fn()
        print("DID", what)
    except OSError as e:
        print("blocked", what, type(e).__name__)
def rewrite():
    for entry in _os.listdir(cache):
        for name in _os.listdir(_os.path.join(cache, entry)):
            if name.endswith(".so"):
                with _open(_os.path.join(cache, entry, name), "r+b") as f:
                    f.write(b"\0" * 64)
def relink():
    for entry in _os.listdir(cache):
        for name in _os.listdir(_os.path.join(cache, entry)):
            if name.endswith(".so"):
                p = _os.path.join(cache, entry, name)
                getattr(_os, "re" + "name")(p, p + ".old")
                getattr(_os, "sym" + "link")("/usr/lib/x86_64-linux-gnu/libm.so.6", p)
def plant():
    d = _os.path.join(cache, "0" * 32)
    _os.makedirs(d, exist_ok=True)
    with _open(_os.path.join(d, "kbharness-build.json"), "w") as f:
        f.write('{"key": "%%s", "name": "x", "library": "x.so"}' %% ("0" * 64))
def records():
    _os.makedirs(trusted, exist_ok=True)
    with _open(_os.path.join(trusted, "0" * 32 + ".json"), "w") as f:
        f.write("{}")
for what, fn in (("rewrite", rewrite), ("relink", relink), ("plant", plant), ("records", records)):
    attempt(what, fn)


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
'''


def run_harness(candidate, build_dir, build_root=None, sandbox="bwrap", extra_env=None, task=RELU_TASK,
                policy=None):
    req = {"schema": "kbstudio.eval-request/1", "task_path": task, "candidate_path": candidate,
           "device": "cpu", "build_dir": build_dir, "seed": 424242, "sandbox": sandbox,
           "policy": policy or {"allow_torch_ops": True}}
    if build_root:
        req["build_root"] = build_root
    req.update(FAST)
    env = _env()
    env.update(extra_env or {})
    proc = subprocess.run([sys.executable, "-m", "kbharness", "evaluate", "--request", "-", "--result", "-"],
                          cwd=HARNESS_DIR, env=env, input=json.dumps(req), capture_output=True, text=True,
                          timeout=900)
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        doc = None
    return proc, doc


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def libraries(build_dir):
    out = {}
    for entry in os.listdir(build_dir):
        d = os.path.join(build_dir, entry)
        if os.path.isdir(d):
            for name in os.listdir(d):
                if name.endswith(".so"):
                    out[os.path.join(entry, name)] = sha(os.path.join(d, name))
    return out


class AllowListTests(unittest.TestCase):
    def setUp(self):
        self.secret = "kbsecret-" + uuid.uuid4().hex
        base = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
        self.outside = tempfile.mkdtemp(prefix="kbadv-outside-", dir=base)
        self.addCleanup(shutil.rmtree, self.outside, True)
        self.key_file = os.path.join(self.outside, "provider-keys")
        self.database = os.path.join(self.outside, "studio.kbdb")
        self.header = os.path.join(self.outside, "secret.h")
        for path in (self.key_file, self.database, self.header):
            with open(path, "w") as f:
                f.write("%s %s\n" % (os.path.basename(path), self.secret))
        self.cands = tempfile.mkdtemp(prefix="kbadv-cands-")
        self.addCleanup(shutil.rmtree, self.cands, True)
        self.build = tempfile.mkdtemp(prefix="kbadv-build-")
        self.addCleanup(shutil.rmtree, self.build, True)

    def _write(self, name, text):
        path = os.path.join(self.cands, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_secrets_outside_home_are_out_of_sight(self):
        shadow = []
        if os.access("/etc/shadow", os.R_OK):  # as root the harness itself could read it
            with open("/etc/shadow") as f:
                shadow = [line.strip() for line in f if line.strip()]
        targets = [self.key_file, self.database, self.outside, "/etc/shadow", "/etc/gshadow", "/etc/ssh", "/srv",
                   "/opt", "/root", "/var/tmp", os.path.expanduser("~"),
                   os.path.join(os.path.dirname(self.build), "." + os.path.basename(self.build) + ".trusted")]
        cand = self._write("reader.py", READER % (targets,))
        proc, doc = run_harness(cand, os.path.join(self.build, "model-1"), build_root=self.build)
        self.assertIsNotNone(doc, proc.stderr[-2000:])
        self.assertEqual(doc["sandbox"], "bwrap", "needs a working bwrap")
        self.assertEqual(doc["verdict"], "correct", doc["message"])
        everything = proc.stdout + proc.stderr
        self.assertNotIn(self.secret, everything)
        for line in shadow:
            self.assertNotIn(line, everything)
        log = doc["worker_log_tail"]
        self.assertNotIn("READ", log)
        self.assertNotIn("LISTED", log.replace("LISTED /tmp", ""))
        for path in (self.key_file, self.database, "/etc/shadow"):
            self.assertIn("blocked %s" % path, log)

    def test_an_include_of_a_secret_file_finds_nothing(self):
        cand = self._write("includer.py", INCLUDER % self.header)
        proc, doc = run_harness(cand, os.path.join(self.build, "model-1"), build_root=self.build)
        self.assertIsNotNone(doc, proc.stderr[-2000:])
        self.assertEqual(doc["verdict"], "build_error", doc["message"])
        self.assertNotIn(self.secret, proc.stdout + proc.stderr)
        self.assertIn("secret.h", doc["build"]["log"])  # the compiler looked and found no such file


class BuildCacheIntegrityTests(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="kbadv-cache-")
        self.addCleanup(shutil.rmtree, self.root, True)
        self.cache = os.path.join(self.root, "model-1")
        self.cands = tempfile.mkdtemp(prefix="kbadv-cands-")
        self.addCleanup(shutil.rmtree, self.cands, True)

    def _victim(self):
        proc, doc = run_harness(VICTIM, self.cache, build_root=self.root, policy={"allow_torch_ops": False})
        self.assertIsNotNone(doc, proc.stderr[-2000:])
        return proc, doc

    def _poisoner(self, sandbox):
        trusted = os.path.join(self.root, ".model-1.trusted")
        cand = os.path.join(self.cands, "poison.py")
        with open(cand, "w") as f:
            f.write(POISONER % (self.cache, trusted))
        proc, doc = run_harness(cand, self.cache, build_root=self.root, sandbox=sandbox)
        self.assertIsNotNone(doc, proc.stderr[-2000:])
        return doc

    def test_a_candidate_cannot_alter_what_another_one_loads(self):
        _, doc = self._victim()
        self.assertEqual(doc["verdict"], "correct", doc["message"])
        before = libraries(self.cache)
        self.assertEqual(len(before), 1, before)
        records = sorted(os.listdir(os.path.join(self.root, ".model-1.trusted")))

        # in the sandbox: every attempt fails, nothing changes
        doc = self._poisoner("bwrap")
        self.assertEqual(doc["sandbox"], "bwrap", "needs a working bwrap")
        log = doc["worker_log_tail"]
        for what in ("rewrite", "relink", "plant"):
            self.assertIn("blocked %s" % what, log)
            self.assertNotIn("DID %s" % what, log)
        # the judge's records are out of sight: what it writes at their path (here under /tmp)
        # lands in its private /tmp
        self.assertEqual(libraries(self.cache), before)
        self.assertEqual(sorted(os.listdir(os.path.join(self.root, ".model-1.trusted"))), records)
        _, doc = self._victim()
        self.assertEqual(doc["verdict"], "correct", doc["message"])
        self.assertEqual(doc["build"]["status"], "cached")

        # without the sandbox the candidate can write the cache: the judge finds the change by
        # the recorded digest, discards the entry and builds it again; the victim is unaffected
        doc = self._poisoner("none")
        self.assertIn("DID rewrite", doc["worker_log_tail"])
        self.assertNotEqual(libraries(self.cache), before)
        _, doc = self._victim()
        self.assertEqual(doc["verdict"], "correct", doc["message"])
        self.assertEqual(doc["build"]["status"], "ok")  # built again
        self.assertIn("build-cache-entry-discarded", {f["rule"] for f in doc["static_findings"]})
        self.assertEqual(libraries(self.cache), before)  # the same build, recorded afresh


class MappedLibraryTests(unittest.TestCase):
    """The judge's check from outside: what a process mapped from the cache must be the
    recorded library (content and inode)."""

    def test_a_swapped_library_is_found(self):
        import ctypes.util

        sys.path.insert(0, HARNESS_DIR)
        from kbharness import buildservice

        lib = ctypes.util.find_library("z") or ctypes.util.find_library("m")
        self.assertIsNotNone(lib)
        real = next((os.path.join(d, lib) for d in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
                                                     "/usr/lib64", "/usr/lib", "/lib")
                     if os.path.exists(os.path.join(d, lib))), None)
        if real is None:
            self.skipTest("no shared library to map")
        root = tempfile.mkdtemp(prefix="kbadv-maps-")
        self.addCleanup(shutil.rmtree, root, True)
        cache = os.path.join(root, "model-1")
        entry = os.path.join(cache, "a" * 32)
        os.makedirs(entry)
        shutil.copy(real, os.path.join(entry, "ext.so"))
        service = buildservice.BuildService(cache, "cpu", {}, False, [], HARNESS_DIR)
        digest = buildservice.file_digest(os.path.join(entry, "ext.so"))[0]
        with open(os.path.join(service.trusted, "a" * 32 + ".json"), "w") as f:
            json.dump({"key": "a" * 64, "library": "ext.so", "sha256": digest}, f)
        child = subprocess.Popen([sys.executable, "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1]); "
                                  "print('up', flush=True); sys.stdin.read()", os.path.join(entry, "ext.so")],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.addCleanup(child.stdout.close)
        try:
            self.assertEqual(child.stdout.readline().strip(), "up")
            self.assertEqual(service.verify_mapped(child.pid), [])
            # same content, another file (swapped in after the check): the inode gives it away
            tmp = os.path.join(entry, "swap.tmp")
            shutil.copy(real, tmp)
            os.replace(tmp, os.path.join(entry, "ext.so"))
            self.assertEqual(len(service.verify_mapped(child.pid)), 1)
        finally:
            child.stdin.close()
            child.wait()


if __name__ == "__main__":
    unittest.main()
