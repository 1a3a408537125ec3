#!/usr/bin/env python3
"""An nvcc front door that runs the host front end and the device compiler in parallel.

For ``nvcc ... -c file.cu -o file.o`` nvcc runs, one after the other: two preprocessors,
cudafe++ (the host front end), cicc + ptxas + fatbinary (the device side) and finally the
host compiler.  cudafe++ and cicc are the two slow steps and are independent except for
one small file, the translation unit's *module id*, which cudafe++ normally writes and cicc
reads.  We write that file ourselves (a stable id derived from the source), which lets the
two run side by side.  The commands themselves are nvcc's own (``--dryrun``), unchanged,
so the object file is what nvcc would produce.

Anything this script does not recognise (several architectures, -rdc, preprocessing only,
an unexpected step) is handed to the real nvcc untouched.  Standalone on purpose: it runs
as torch's ``PYTORCH_NVCC`` inside the build, without the harness package on the path.
"""

import hashlib
import os
import re
import shlex
import subprocess
import sys
import threading

_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def real_nvcc():
    explicit = os.environ.get("KBHARNESS_REAL_NVCC")
    if explicit:
        return explicit
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    return os.path.join(home, "bin", "nvcc")


def _exec_real(args, reason=None):
    nvcc = real_nvcc()
    if reason:
        sys.stderr.write("nvccsplit: running nvcc as is (%s)\n" % reason)
        sys.stderr.flush()
    os.execv(nvcc, [nvcc] + args)


def _kind(cmd):
    head = cmd.split(None, 1)[0].strip('"')
    tool = os.path.basename(head)
    if "cudafe++" in tool:
        return "cudafe"
    if tool.endswith("cicc"):
        return "cicc"
    if tool == "ptxas":
        return "ptxas"
    if tool == "fatbinary":
        return "fatbinary"
    if tool == "rm":
        return "rm"
    if tool in ("gcc", "g++", "cc", "c++") or tool.endswith(("gcc", "g++", "clang", "clang++")):
        words = cmd.split()
        if "-E" in words:
            return "pp-device" if "-D__CUDA_ARCH__" in cmd else "pp-host"
        if "-c" in words:
            return "host-compile"
    return "unknown"


def plan(dryrun_lines):
    """Split nvcc's --dryrun output into (environment assignments, stages) or None."""
    assigns, cmds = [], []
    for line in dryrun_lines:
        if not line.startswith("#$ "):
            continue
        body = line[3:]
        (assigns if _ASSIGN.match(body) else cmds).append(body)
    kinds = [_kind(c) for c in cmds]
    expected = ["pp-host", "cudafe", "pp-device", "cicc", "ptxas", "fatbinary", "rm", "host-compile"]
    if kinds != expected:
        return None
    by = dict(zip(kinds, cmds))
    m = re.search(r'--module_id_file_name\s+"([^"]+)"', by["cudafe"])
    if not m or "--gen_module_id_file" not in by["cudafe"]:
        return None
    by["cudafe"] = by["cudafe"].replace("--gen_module_id_file", "", 1)
    by["rm"] = "rm -f" + by["rm"][2:]  # clean-up only; nvcc ignores its failure too
    return assigns, by, m.group(1)


def module_id(source_path):
    """A module id shaped like cudafe++'s own: _<hash>_<len>_<name>_<hash>."""
    try:
        with open(source_path, "rb") as f:
            content = f.read()
    except OSError:
        content = b""
    digest = hashlib.sha256(os.path.abspath(source_path).encode() + b"\0" + content).hexdigest()
    name = re.sub(r"[^A-Za-z0-9]", "_", os.path.basename(source_path))
    return "_%s_%d_%s_%s" % (digest[:8], len(name), name, digest[8:16])


class _Stage(threading.Thread):
    def __init__(self, prelude, commands, env):
        super().__init__(daemon=True)
        self.env = env
        self.script = prelude + "\n".join(c + " || exit $?" for c in commands)
        self.rc = None
        self.err = b""
        self.out = b""

    def run(self):
        p = subprocess.run(["bash", "-c", self.script], capture_output=True, env=self.env)
        self.rc, self.out, self.err = p.returncode, p.stdout, p.stderr


def _source_of(args):
    for a in args:
        if a.endswith(".cu") and not a.startswith("-"):
            return a
    return None


def _take_dependency_options(args):
    """Removes nvcc's dependency-file options; returns (args, depfile or None).

    With them nvcc adds a step of its own ("Filter Dependencies") that is not a command we
    can run, so we let the host preprocessor write the file instead."""
    out, depfile, i = [], None, 0
    while i < len(args):
        a = args[i]
        if a in ("-MF", "--dependency-output", "-dependency-output") and i + 1 < len(args):
            depfile = args[i + 1]
            i += 2
            continue
        if a in ("-MD", "--generate-dependencies-with-compile", "-generate-dependencies-with-compile"):
            i += 1
            continue
        out.append(a)
        i += 1
    return out, depfile


def _output_of(args):
    for i, a in enumerate(args):
        if a == "-o" and i + 1 < len(args):
            return args[i + 1]
    return None


def main(args):
    if "--dryrun" in args or "-dryrun" in args or "-c" not in args or "-rdc=true" in args or "-dc" in args:
        _exec_real(args)
    src = _source_of(args)
    if src is None:
        _exec_real(args)
    original = list(args)
    args, depfile = _take_dependency_options(args)
    obj = _output_of(args)
    if depfile is not None and obj is None:
        _exec_real(original, "a dependency file without -o")
    nvcc = real_nvcc()
    probe = subprocess.run([nvcc] + args + ["--dryrun"], capture_output=True, text=True)
    if probe.returncode != 0:
        _exec_real(original, "nvcc --dryrun failed")
    parsed = plan(probe.stderr.splitlines())
    if parsed is None:
        _exec_real(original, "unrecognised steps")
    assigns, by, id_path = parsed
    if depfile is not None:
        by["pp-host"] += " -MD -MF %s -MT %s" % (shlex.quote(depfile), shlex.quote(obj))
    env = dict(os.environ)
    for a in assigns:
        name, value = a.split("=", 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"' and '"' not in value[1:-1]:
            value = value[1:-1]
        env[name] = value
    prelude = "set -o pipefail\n"

    def run_parallel(groups):
        stages = [_Stage(prelude, g, env) for g in groups]
        for s in stages:
            s.start()
        for s in stages:
            s.join()
        for s in stages:
            sys.stdout.buffer.write(s.out)
            sys.stderr.buffer.write(s.err)
        sys.stdout.flush()
        sys.stderr.flush()
        return next((s.rc for s in stages if s.rc != 0), 0)

    try:
        rc = run_parallel([[by["pp-host"]], [by["pp-device"]]])
        if rc:
            return rc
        with open(id_path, "w") as f:
            f.write(module_id(src))
        rc = run_parallel([[by["cudafe"]], [by["cicc"], by["ptxas"], by["fatbinary"], by["rm"]]])
        if rc:
            return rc
        return run_parallel([[by["host-compile"]]])
    finally:
        _remove_temporaries(by.values())


def _remove_temporaries(commands):
    """nvcc deletes its intermediate files; so do we (they are large)."""
    prefixes = set()
    for c in commands:
        prefixes.update(re.findall(r"(/[^\s\"']*/tmpxft_[0-9a-f]+_[0-9a-f]+)", c))
    for prefix in prefixes:
        folder, stem = os.path.split(prefix)
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for n in names:
            if n.startswith(stem):
                try:
                    os.remove(os.path.join(folder, n))
                except OSError:
                    pass


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
