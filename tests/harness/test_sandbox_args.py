"""The allow-list sandbox's arguments (kbharness/sandbox.py), checked without running them."""

import os
import tempfile
import unittest
from unittest import mock

import harness_testlib  # noqa: F401 - puts the harness on sys.path
from kbharness import sandbox


def binds(cmd):
    """[(option, source, destination)] of every bind in a bwrap command line."""
    out = []
    for i, a in enumerate(cmd):
        if a in ("--ro-bind", "--bind", "--dev-bind", "--symlink"):
            out.append((a, cmd[i + 1], cmd[i + 2]))
    return out


class AllowListTests(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="kbsandbox-args-")
        self.addCleanup(os.rmdir, self.work)

    def test_only_named_places_are_bound(self):
        cmd = sandbox.command(self.work, readable=["/usr/share"])
        dests = [d for _, _, d in binds(cmd)]
        self.assertNotIn("/", dests)
        for forbidden in ("/etc", "/etc/shadow", "/etc/gshadow", "/etc/ssh", "/home", "/root", "/var", "/srv", "/opt",
                          "/mnt", "/sys", os.path.expanduser("~")):
            self.assertNotIn(forbidden, dests)
        self.assertIn(("--bind", os.path.realpath(self.work), self.work), binds(cmd))
        self.assertIn("--unshare-net", cmd)
        self.assertEqual(cmd[-1], "--")
        for d in dests:
            self.assertFalse(d.startswith("/etc/") and d not in sandbox.ETC_FILES, d)

    def test_python_roots_never_expose_the_home_folder(self):
        with mock.patch.object(sandbox, "home_folders", return_value=["/home/someone"]):
            with mock.patch("sys.prefix", "/home"), mock.patch("sys.exec_prefix", "/"):
                roots = sandbox.python_roots()
        self.assertNotIn("/", roots)
        self.assertNotIn("/home", roots)

    def test_gpu_binds_only_on_the_gpu(self):
        with mock.patch.object(sandbox, "cuda_binds", return_value=["--dev-bind", "/dev/nvidia0", "/dev/nvidia0"]):
            cpu = sandbox.command(self.work)
            gpu = sandbox.command(self.work, gpu=True)
        self.assertNotIn("/dev/nvidia0", cpu)
        self.assertIn("/dev/nvidia0", gpu)
        self.assertNotIn("/sys", cpu)

    def test_a_hidden_folder_inside_a_readable_one_is_blanked(self):
        outer = tempfile.mkdtemp(prefix="kbsandbox-outer-")
        inner = os.path.join(outer, "model-2")
        os.makedirs(inner)
        try:
            cmd = sandbox.command(self.work, readable=[outer], hidden=[inner])
            self.assertIn(inner, [cmd[i + 1] for i, a in enumerate(cmd) if a == "--tmpfs"])
        finally:
            os.rmdir(inner)
            os.rmdir(outer)


if __name__ == "__main__":
    unittest.main()
