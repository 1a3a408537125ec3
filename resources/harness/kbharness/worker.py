"""The candidate worker: a separate process that imports and runs ModelNew.

Started by the trusted process as ``python -m kbharness.worker --cmd-fd N
--reply-fd M``.  It receives commands and inputs over a private pipe and
returns only tensors (plus timing samples that the trusted side
cross-checks with its own wall clock).  Everything reported from here is
treated as untrusted by the judge.

Commands (JSON headers, tensors in the payload, see codec.py):
  prepare {device, num_threads, allow_tf32}
        sets torch up and starts its thread pools before any candidate code
        runs, so that the trusted side can take a baseline of the threads
  load  {candidate_path, device, init_seed, num_threads, build_dir, allow_tf32}
        payload: init inputs
  run   payload: inputs              -> reply payload: output
  time  {warmup, trials, max_seconds} payload: list of input sets
        -> {"event": "start"} then reply with samples, payload: last outputs
  exit
"""

import argparse
import faulthandler
import importlib.util
import os
import sys
import time
import threading
import traceback

from . import buildcache, codec, precision, timing


def _limit_memory(megabytes):
    """Cap the address space (RLIMIT_AS, soft and hard) so that a memory bomb
    fails fast with an allocation error instead of exhausting the host."""
    if not megabytes:
        return
    import resource

    limit = int(megabytes) << 20
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):
        pass


def _summary(exc):
    text = "%s: %s" % (type(exc).__name__, exc)
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return first[:500]


# A workspace candidate's model_new.py imports its kernels as this module.
WORKSPACE_EXTENSION = "kb_kernels"


def _build_workspace(directory, device):
    """Builds kernels/*.cu and kernels/*.cpp of a workspace into one extension (cached by
    content through buildcache's wrapper of torch's load)."""
    import hashlib

    import torch.utils.cpp_extension as cpp_extension

    kernels = os.path.join(directory, "kernels")
    names = sorted(os.listdir(kernels)) if os.path.isdir(kernels) else []
    sources = [os.path.join(kernels, n) for n in names if n.endswith((".cu", ".cpp", ".cc"))]
    if not sources:
        raise RuntimeError("the workspace has no kernels/*.cu or kernels/*.cpp to build")
    cuda = [s for s in sources if s.endswith(".cu")]
    if cuda and not device.startswith("cuda"):
        raise RuntimeError("kernels/%s is CUDA, but this evaluation runs on the CPU" % os.path.basename(cuda[0]))
    digest = hashlib.sha256()
    for src in sources:
        with open(src, "rb") as f:
            digest.update(os.path.basename(src).encode() + b"\0" + f.read() + b"\0")
    # The module name must match the binding's PYBIND11_MODULE(TORCH_EXTENSION_NAME, ...).
    name = "%s_%s" % (WORKSPACE_EXTENSION, digest.hexdigest()[:12])
    return cpp_extension.load(name=name, sources=sources, extra_include_paths=[kernels],
                              with_cuda=bool(cuda), verbose=False)


class Worker:
    def __init__(self, cmd_fd, reply_fd):
        self.cmd_fd = cmd_fd
        self.reply_fd = reply_fd
        self.model = None
        self.device = "cpu"
        self.ipc = False

    def reply(self, header, payload=b""):
        # reported for the trusted side's thread check (which also counts the
        # process's OS threads itself, from outside)
        header.setdefault("py_threads", threading.active_count())
        codec.write_frame(self.reply_fd, header, payload)

    def _spin(self, seconds):
        """Timed calls come every millisecond or two: poll for the next command for a while
        instead of sleeping in read(), so that a call starts on a warm core in both workers
        alike (CUDA only; a CPU worker leaves its core to the judge)."""
        import select

        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            if select.select([self.cmd_fd], [], [], 0)[0]:
                return

    def serve(self):
        while True:
            if getattr(self, "cuda_events", None) is not None:
                self._spin(0.05)
            try:
                header, payload = codec.read_frame(self.cmd_fd)
            except codec.ChannelClosed:
                return 0
            cmd = header.get("cmd")
            if cmd == "exit":
                self.reply({"ok": True})
                return 0
            handler = getattr(self, "cmd_" + str(cmd), None)
            if handler is None:
                self.reply({"ok": False, "stage": "protocol", "error": "unknown command %r" % cmd})
                continue
            handler(header, payload)

    # ------------------------------------------------------------------
    def cmd_prepare(self, header, payload):
        try:
            self._setup(header)
            import torch

            timing.capture()
            # start the intra-op pool (and on CUDA the context and its helper
            # threads) now, so that later threads are the candidate's
            x = torch.ones(1 << 16, device=self.device)
            float((x + 1).sum())
            if self.device.startswith("cuda"):
                torch.cuda.synchronize()
        except BaseException as e:  # noqa: B902
            self.reply({"ok": False, "stage": "prepare", "error": _summary(e)})
            return
        self.reply({"ok": True})

    def _setup(self, header):
        import torch

        self.device = header.get("device", "cpu")
        if "cuda_ipc" in header:  # set by "prepare"; "load" leaves it as it is
            self.ipc = bool(header["cuda_ipc"]) and self.device.startswith("cuda")
        threads = int(header.get("num_threads") or 1)
        torch.set_num_threads(threads)
        if self.device.startswith("cuda"):
            torch.cuda.set_device(torch.device(self.device))
            allow = bool(header.get("allow_tf32"))
            torch.backends.cuda.matmul.allow_tf32 = allow
            torch.backends.cudnn.allow_tf32 = allow
        if hasattr(torch, "set_float32_matmul_precision"):
            torch.set_float32_matmul_precision("high" if header.get("allow_tf32") else "highest")

    def cmd_load(self, header, payload):
        import torch

        self._setup(header)
        # What the code is built for ("cpu" or "cuda-smXY"), named by the judge: the build
        # pool's worker of a GPU run sees no GPU and builds for the one the evaluation uses.
        build_for = header["build_for"]
        build_only = header.get("build_only") is True
        # an import or construction that needs the GPU this build step can't see is left to
        # the evaluation (only a failed build or an invalid file is final here)
        defer_gpu_errors = build_only and build_for.startswith("cuda")
        # the judge builds (buildservice.py): this process asks and imports what it is given
        remote = self._ask_judge if header.get("build_service") is True else None
        buildcache.install(header["build_dir"], build_for, remote=remote)
        path = header["candidate_path"]
        stage = "import"
        try:
            init_inputs = codec.decode(header["init"], payload)
            if os.path.isdir(path):
                stage = "build"
                sys.modules[WORKSPACE_EXTENSION] = _build_workspace(path, build_for)
                stage = "import"
                path = os.path.join(path, "model_new.py")
            spec = importlib.util.spec_from_file_location("kbstudio_candidate", path)
            module = importlib.util.module_from_spec(spec)
            sys.modules["kbstudio_candidate"] = module
            spec.loader.exec_module(module)
            class_name = header.get("class_name") or "ModelNew"
            cls = getattr(module, class_name, None)
            if cls is None or not isinstance(cls, type):
                self.reply({"ok": False, "stage": "invalid", "error": "candidate defines no class %s" % class_name,
                            "build": buildcache.summary()})
                return
            stage = "construct"
            torch.manual_seed(int(header["init_seed"]))
            model = cls(*init_inputs)
            if build_only:
                del model  # built and constructed; the evaluation makes its own
            else:
                if hasattr(model, "to"):
                    model = model.to(self.device)
                # fp16 / bf16: floating weights cast as the reference's are (precision.py)
                model = precision.cast_model(model, precision.dtype_of(header.get("precision") or "fp32"))
                if hasattr(model, "eval"):
                    model.eval()
                self.model = model
                mode = header.get("compile_mode")
                # the torch.compile baseline (a reference worker only): compiled at its first call
                self.compiled = torch.compile(model, mode=mode) if mode else None
        except SyntaxError as e:
            self.reply({"ok": False, "stage": "invalid", "error": _summary(e),
                        "traceback": traceback.format_exc()[-8000:], "build": buildcache.summary()})
            return
        except BaseException as e:  # noqa: B902 - report everything, including SystemExit
            build = buildcache.summary()
            if build["status"] == "failed":
                stage = "build"
            elif defer_gpu_errors and stage != "build" and isinstance(e, Exception):
                self.reply({"ok": True, "stage": stage, "deferred": _summary(e), "build": build})
                return
            self.reply({"ok": False, "stage": stage, "error": _summary(e),
                        "traceback": traceback.format_exc()[-8000:], "build": build})
            return
        self.reply({"ok": True, "build": buildcache.summary()})

    def _ask_judge(self, request):
        """One build by the judge's build service, while the judge waits for "load"'s reply."""
        codec.write_frame(self.reply_fd, request)
        answer, _ = codec.read_frame(self.cmd_fd)
        return answer

    def _forward(self, inputs):
        import torch

        with torch.no_grad():
            out = self.model(*inputs)
        if self.device.startswith("cuda"):
            timing._sync()
        return out

    def _release_memory(self, header):
        """Large tasks (the judge says so): cached GPU memory goes back to the driver, so the
        judge can allocate it."""
        if header.get("release_memory") is True and self.device.startswith("cuda"):
            import torch

            torch.cuda.ipc_collect()
            torch.cuda.empty_cache()

    def _peak(self):
        if not self.device.startswith("cuda"):
            return None
        import torch

        return int(torch.cuda.max_memory_reserved())

    def cmd_run(self, header, payload):
        try:
            self._release_memory(header)
            inputs = codec.decode(header["inputs"], payload, device=self.device, allow_ipc=self.ipc)
            t0 = time.perf_counter()
            out = self._forward(inputs)
            seconds = time.perf_counter() - t0
            del inputs
            self._release_memory(header)
            desc, data = codec.encode(out, ipc=self.ipc)
            del out
        except BaseException as e:  # noqa: B902
            self.reply({"ok": False, "stage": "forward", "error": _summary(e),
                        "traceback": traceback.format_exc()[-8000:]})
            return
        self.reply({"ok": True, "output": desc, "seconds": seconds, "gpu_peak_bytes": self._peak()}, data)

    def cmd_time(self, header, payload):
        try:
            self._release_memory(header)
            sets = codec.decode(header["sets"], payload, device=self.device, allow_ipc=self.ipc)
            l2_reset = None
            if self.device.startswith("cuda"):
                l2_reset = timing.reset_persisting_l2()
            samples, last, calls = timing.time_callable(
                self.model, sets, self.device, int(header.get("warmup", 3)), int(header.get("trials", 20)),
                float(header.get("max_seconds", 10.0)),
                on_start=lambda: self.reply({"event": "start"}), reset_l2=bool(l2_reset))
            del sets
            self._release_memory(header)
            desc, data = codec.encode(list(last), ipc=self.ipc)
            del last
        except BaseException as e:  # noqa: B902
            self.reply({"ok": False, "stage": "timing", "error": _summary(e),
                        "traceback": traceback.format_exc()[-8000:]})
            return
        self.reply({"ok": True, "samples_ms": samples, "outputs": desc, "calls": calls, "l2_reset": l2_reset,
                    "gpu_peak_bytes": self._peak()}, data)

    # ------------------------------------------------------------------
    # judge-driven timed calls (see interleave.py): the judge owns the inputs, the output
    # slots and the clock; this side runs one call when told and reports what it measured
    def cmd_bind(self, header, payload):
        import torch

        try:
            self.call_inputs = []
            for item in header["inputs"]:
                self.call_inputs.append(codec.map_slot(item["slot"]) if "slot" in item else item.get("scalar"))
            self.out_slots = [codec.map_slot(d) for d in header["outputs"]]
            self.cuda_events = None
            if self.device.startswith("cuda"):
                self.cuda_events = (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
        except BaseException as e:  # noqa: B902
            self.reply({"ok": False, "stage": "bind", "error": _summary(e)})
            return
        self.reply({"ok": True})

    def _store_output(self, out):
        import torch

        leaves, scalars = [], []

        def walk(v):
            if isinstance(v, torch.Tensor):
                leaves.append(v)
            elif isinstance(v, (list, tuple)):
                for x in v:
                    walk(x)
            elif v is None or type(v) in (bool, int, float, str):
                scalars.append(v)
            else:
                raise TypeError("output contains a %s" % type(v).__name__)

        walk(out)
        if len(leaves) != len(self.out_slots):
            raise ValueError("the output has %d tensor(s), the reference %d" % (len(leaves), len(self.out_slots)))
        for i, (leaf, slot) in enumerate(zip(leaves, self.out_slots)):
            if tuple(leaf.shape) != tuple(slot.shape) or leaf.dtype != slot.dtype:
                raise ValueError("output tensor %d is %s %s, the reference's %s %s" % (
                    i, list(leaf.shape), str(leaf.dtype).replace("torch.", ""), list(slot.shape),
                    str(slot.dtype).replace("torch.", "")))
            slot.copy_(leaf)
        return scalars

    def cmd_call(self, header, payload):
        import torch

        try:
            inputs = list(self.call_inputs)
            for k, v in (header.get("scalars") or {}).items():
                inputs[int(k)] = v
            cuda = self.cuda_events is not None
            fn = self.model
            if header.get("variant") == "compile":
                if getattr(self, "compiled", None) is None:
                    raise RuntimeError("no compiled model was loaded")
                fn = self.compiled
            with torch.no_grad():
                if cuda:
                    torch.cuda.synchronize()
                    start, end = self.cuda_events
                    start.record()
                    h0 = time.perf_counter()
                    out = fn(*inputs)
                    host = time.perf_counter() - h0
                    torch.cuda.synchronize()
                    end.record()
                    end.synchronize()
                    ms = start.elapsed_time(end)
                else:
                    h0 = time.perf_counter()
                    out = fn(*inputs)
                    host = time.perf_counter() - h0
                    ms = host * 1000.0
                scalars = self._store_output(out)
                del out
                if cuda:
                    torch.cuda.synchronize()
        except BaseException as e:  # noqa: B902
            self.reply({"ok": False, "stage": "timed call", "error": _summary(e),
                        "traceback": traceback.format_exc()[-8000:]})
            return
        self.reply({"ok": True, "ms": ms, "host_ms": host * 1000.0, "scalars": scalars})

    def cmd_unbind(self, header, payload):
        self.call_inputs = []
        self.out_slots = []
        self.cuda_events = None
        self._release_memory({"release_memory": True})
        self.reply({"ok": True, "gpu_peak_bytes": self._peak()})


def main(argv=None):
    parser = argparse.ArgumentParser(prog="kbharness.worker")
    parser.add_argument("--cmd-fd", type=int, required=True)
    parser.add_argument("--reply-fd", type=int, required=True)
    parser.add_argument("--memory-limit-mb", type=int, default=0)
    args = parser.parse_args(argv)
    _limit_memory(args.memory_limit_mb)
    faulthandler.enable()
    return Worker(args.cmd_fd, args.reply_fd).serve()


if __name__ == "__main__":
    sys.exit(main())
