"""What a sandboxed process of the harness sees: bubblewrap arguments built from an allow-list.

Nothing of the host's file system is visible unless it is named here: the system and the
toolchain (/usr and the /bin, /lib*, /sbin links or folders as the host has them, a few files
of /etc), the Python environment the harness runs in, the harness itself, and the folders the
caller names (read-only or writable). No home folder, no database, no key store, no other
candidate's folder, no /opt, /srv, /var or /mnt. A private /tmp, a minimal /dev (CUDA: the
NVIDIA device nodes), its own /proc, no network, its own PID, IPC and UTS namespaces.

The same list is used by the agent's run_command sandbox (engine/generation/sandboxpolicy.cpp).
"""

import glob
import os
import shutil
import subprocess
import sys
from typing import Dict, List, Optional, Sequence, Set, Tuple

# What the dynamic loader, compilers, Python and the C library read under /etc. Never
# shadow, gshadow, ssh, ssl keys or anything a user configured.
ETC_FILES = (
    "/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
    "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime", "/etc/timezone",
    "/etc/os-release", "/etc/debian_version", "/etc/host.conf", "/etc/hosts",
    "/etc/python3", "/etc/python3.11", "/etc/python3.12", "/etc/python3.13", "/etc/mime.types",
)

# The top-level folders of the system, bound as the host has them (a link stays a link).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def bwrap_path() -> Optional[str]:
    return shutil.which("bwrap")


_PROBE: Dict[str, Tuple[bool, str]] = {}


def probe() -> Tuple[bool, str]:
    """(ok, message): can bubblewrap start a sandbox with no network here? Asked once per
    harness run."""
    if "probe" in _PROBE:
        return _PROBE["probe"]
    path = bwrap_path()
    if not path:
        result = (False, "bwrap is not installed")
    else:
        try:
            proc = subprocess.run([path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                   "--unshare-net", "--unshare-pid", "--tmpfs", "/tmp", "--die-with-parent",
                                   "--", shutil.which("true") or "/bin/true"], stdin=subprocess.DEVNULL,
                                  capture_output=True,
                                  timeout=30)
            if proc.returncode == 0:
                result = (True, "bwrap %s" % path)
            else:
                err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
                result = (False, "bwrap failed to start a sandbox: %s" % (err[-1] if err else
                                                                          "exit status %d" % proc.returncode))
        except (OSError, subprocess.TimeoutExpired) as e:
            result = (False, "bwrap failed to start a sandbox: %s" % e)
    _PROBE["probe"] = result
    return result


def _under(path, root):
    root = root.rstrip(os.sep) or os.sep
    return path == root or path.startswith(root if root == os.sep else root + os.sep)


def _covered(path, roots):
    """Is ``path`` (absolute) already visible through one of ``roots``?"""
    real = os.path.realpath(path)
    return any(_under(path, r) and _under(real, os.path.realpath(r)) for r in roots)


def python_roots() -> Set[str]:
    """Where this Python and torch live (a virtual environment or a user site may be in the
    home folder): bound read-only. Never "/" or a folder that holds the home folder."""
    roots = {sys.prefix, sys.exec_prefix, os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))}
    try:
        import torch

        roots.add(os.path.dirname(os.path.dirname(os.path.realpath(torch.__file__))))
    except ImportError:
        pass
    import site

    try:
        roots.add(site.getusersitepackages())
    except AttributeError:
        pass
    homes = [os.path.realpath(h) for h in home_folders()]
    out = []
    for r in sorted(x for x in roots if x and os.path.isabs(x)):
        real = os.path.realpath(r)
        if real == os.sep or any(_under(h, real) for h in homes):
            continue
        out.append(r)
    return out


def home_folders() -> List[str]:
    """The user's home folders ($HOME and the account's home)."""
    homes = set()
    for h in (os.environ.get("HOME"), os.path.expanduser("~")):
        if h and os.path.isabs(h) and os.path.realpath(h) not in ("/", "/tmp"):
            homes.add(os.path.abspath(h))
    return sorted(homes)


def cuda_toolkit_roots() -> List[str]:
    """Where the CUDA toolkit lives when it is outside /usr: CUDA_HOME / CUDA_PATH, the folder
    of the nvcc on PATH, and the one torch found."""
    roots = set()
    for var in ("CUDA_HOME", "CUDA_PATH"):
        v = os.environ.get(var)
        if v and os.path.isabs(v):
            roots.add(v)
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.add(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
        roots.add(os.path.dirname(os.path.dirname(os.path.abspath(nvcc))))
    try:
        import torch.utils.cpp_extension as ce

        if getattr(ce, "CUDA_HOME", None):
            roots.add(ce.CUDA_HOME)
    except Exception:  # noqa: BLE001 - no torch, no CUDA: nothing to add
        pass
    for default in ("/usr/local/cuda",):
        if os.path.exists(default):
            roots.add(default)
    homes = [os.path.realpath(h) for h in home_folders()]
    return sorted(r for r in roots if os.path.exists(r) and os.path.realpath(r) != os.sep and
                  not any(_under(h, os.path.realpath(r)) for h in homes))


def cuda_binds() -> List[str]:
    """bwrap arguments for what the CUDA driver, NVML and the toolkit need on a GPU, beyond the
    CPU sandbox: the NVIDIA device nodes (/dev/nvidia*, /dev/nvidia-caps, /dev/dri), /sys
    read-only (the driver and NVML read the PCI topology there), the persistence daemon's
    socket folder, the driver's configuration folders under /etc, and the toolkit where it lies
    outside /usr (cuda_toolkit_binds). /proc/driver/nvidia needs nothing: /proc/driver is the
    same in the sandbox's own /proc."""
    args = []
    if os.environ.get("KBHARNESS_SANDBOX_HOST_DEV") == "1":
        # a fallback for a driver that needs more of /dev than its nodes (the host's /dev/shm
        # included): the whole of the host's /dev, as before the allow-list
        args += ["--dev-bind", "/dev", "/dev"]
    for node in sorted(glob.glob("/dev/nvidia*")):
        args += ["--dev-bind", node, node]
    if os.path.isdir("/dev/dri"):
        args += ["--dev-bind", "/dev/dri", "/dev/dri"]
    if os.path.isdir("/sys"):
        args += ["--ro-bind", "/sys", "/sys"]
    for path in ("/run/nvidia-persistenced", "/etc/nvidia", "/etc/OpenCL", "/etc/vulkan", "/etc/cuda"):
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args + cuda_toolkit_binds()


def cuda_toolkit_binds() -> List[str]:
    """Only the toolkit (a build on the CPU of CUDA code needs nvcc, not the GPU)."""
    args = []
    for root in cuda_toolkit_roots():
        if not _covered(root, ["/usr"]):
            args += ["--ro-bind", os.path.realpath(root), os.path.abspath(root)]
    return args


def system_binds() -> List[str]:
    args = []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    for f in ETC_FILES:
        if os.path.lexists(f):
            args += ["--ro-bind", f, f]
    return args


def command(workdir: str, writable: Sequence[str] = (), readable: Sequence[str] = (),
            read_only_over: Sequence[str] = (), hidden: Sequence[str] = (), gpu: bool = False,
            cuda_toolkit: bool = False, chdir: Optional[str] = None) -> List[str]:
    """bwrap arguments up to and including "--".

    ``readable``: folders or files bound read-only (where they are not already visible).
    ``writable``: folders bound read-write (``workdir`` first, the working directory).
    ``read_only_over``: folders inside a writable one bound read-only over it (finished
    build-cache entries). ``hidden``: folders that stay out of sight even where a readable
    folder holds them (the user's home, other models' builds): an empty folder over them, with
    what is needed from inside bound back. ``gpu``: the GPU's device nodes and what the driver
    needs (cuda_binds); ``cuda_toolkit``: only the CUDA toolkit (building CUDA code)."""
    cmd = [bwrap_path()] + system_binds()
    cmd += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    if gpu:
        cmd += cuda_binds()
    elif cuda_toolkit:
        cmd += cuda_toolkit_binds()
    visible = list(SYSTEM_DIRS)
    wanted = [p for p in list(python_roots()) + list(readable) if p and os.path.exists(p)]
    for path in wanted:
        if _covered(path, visible):
            continue
        # bound at the path the worker is told, read from its target (a link under /tmp would
        # otherwise vanish behind the private /tmp)
        cmd += ["--ro-bind", os.path.realpath(path), os.path.abspath(path)]
        visible.append(path)
    blank = [h for h in list(hidden) + home_folders()
             if os.path.isdir(h) and _covered(h, visible) and not _covered(h, [workdir] + list(writable))]
    for h in blank:
        cmd += ["--tmpfs", os.path.abspath(h)]
    for path in wanted:
        if any(_covered(path, [h]) for h in blank):
            cmd += ["--ro-bind", os.path.realpath(path), os.path.abspath(path)]
    for path in [workdir] + [w for w in writable if w]:
        cmd += ["--bind", os.path.realpath(path), os.path.abspath(path)]
    for path in read_only_over:
        if os.path.isdir(path) and not os.path.islink(path):
            cmd += ["--ro-bind", path, path]
    # the sandbox's own root (where bwrap made the folders that hold the binds) is read-only too
    cmd += ["--remount-ro", "/", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--die-with-parent", "--chdir", chdir or workdir, "--setenv", "TMPDIR", workdir]
    return cmd + ["--"]
