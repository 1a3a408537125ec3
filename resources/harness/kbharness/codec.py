"""Private parent <-> worker channel.

Frames are ``[u32 header length][u64 payload length][JSON header][payload]``
sent over dedicated pipes (never the worker's stdout/stderr, which the
candidate can print to).  Tensors travel as raw little-endian bytes described
by the header; the trusted side never unpickles anything the candidate
process produced, so a tensor subclass or any other object can't smuggle
behaviour into the judge: it simply can't be encoded.

On a GPU, tensors can instead travel as CUDA IPC handles (``transport="cuda_ipc"``):
the sender shares a private copy, the receiver opens it and copies it into memory of its
own at once, so a 6 GB input never goes through host memory or a pipe.  The fields of such
a description are plain integers and bytes, checked before use; nothing is unpickled.
"""

import base64
import json
import os
import re
import select
import struct
import time

_HDR = struct.Struct("<IQ")
MAX_HEADER = 64 << 20


class ChannelClosed(Exception):
    """The other end closed the channel (worker died or exited)."""


class ChannelTimeout(Exception):
    """No complete frame arrived before the deadline."""


# --------------------------------------------------------------------------
# framing


def write_frame(fd, header, payload=b""):
    head = json.dumps(header, separators=(",", ":")).encode("utf-8")
    data = _HDR.pack(len(head), len(payload)) + head
    _write_all(fd, data)
    if payload:
        _write_all(fd, payload)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def wait_readable(fd, deadline):
    """Return once ``fd`` has something to read (or its writer closed it); ChannelTimeout
    at ``deadline`` (a time.monotonic() value)."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise ChannelTimeout()
        ready, _, _ = select.select([fd], [], [], min(left, 1.0))
        if ready:
            return


def _read_exact(fd, n, deadline):
    chunks = []
    remaining = n
    while remaining > 0:
        if deadline is not None:
            wait_readable(fd, deadline)
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise ChannelClosed()
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame(fd, deadline=None, max_payload=None):
    """Read one frame; ``deadline`` is a time.monotonic() value or None."""
    raw = _read_exact(fd, _HDR.size, deadline)
    hlen, plen = _HDR.unpack(raw)
    if hlen > MAX_HEADER or (max_payload is not None and plen > max_payload):
        raise ValueError("frame too large (header %d bytes, payload %d bytes)" % (hlen, plen))
    header = json.loads(_read_exact(fd, hlen, deadline).decode("utf-8"))
    payload = _read_exact(fd, plen, deadline) if plen else b""
    return header, payload


# --------------------------------------------------------------------------
# values


def _torch():
    import torch

    return torch


_DTYPES = None


def _dtype_table():
    global _DTYPES
    if _DTYPES is None:
        torch = _torch()
        names = [
            "float32", "float64", "float16", "bfloat16", "int8", "uint8",
            "int16", "int32", "int64", "bool", "complex64", "complex128",
        ]
        _DTYPES = {n: getattr(torch, n) for n in names if hasattr(torch, n)}
    return _DTYPES


def dtype_name(dtype):
    return str(dtype).replace("torch.", "")


# Tensors shared by the last encode(..., ipc=True): kept alive until the next one, by which
# time the receiver (which answers every message) has copied them.
_SHARED = []


def release_shared():
    """Drop the tensors the last encode shared, once the receiver has answered (it copies
    them before it answers)."""
    del _SHARED[:]


def _share_cuda(v):
    torch = _torch()
    t = v.detach().clone(memory_format=torch.contiguous_format)
    (dev, handle, size_bytes, offset_bytes, ref_handle, ref_offset, event_handle,
     event_sync) = t.untyped_storage()._share_cuda_()
    _SHARED.append(t)

    def b64(b):
        return None if b is None else base64.b64encode(bytes(b)).decode("ascii")

    return {"device": int(dev), "handle": b64(handle), "size_bytes": int(size_bytes),
            "offset_bytes": int(offset_bytes), "ref_handle": b64(ref_handle), "ref_offset": int(ref_offset),
            "event_handle": b64(event_handle), "event_sync": bool(event_sync),
            "storage_offset": int(t.storage_offset()), "stride": list(t.stride())}


_REF_NAME = re.compile(rb"^/?torch_[0-9_]+$")


def _open_cuda(ipc, dtype, shape):
    """Open a shared CUDA tensor described by untrusted fields; returns an owned copy."""
    torch = _torch()

    def unb64(x, optional=False):
        if x is None and optional:
            return None
        if not isinstance(x, str):
            raise DecodeError("malformed IPC description")
        try:
            return base64.b64decode(x.encode("ascii"), validate=True)
        except ValueError:
            raise DecodeError("malformed IPC description")

    ints = ("device", "size_bytes", "offset_bytes", "ref_offset", "storage_offset")
    if not isinstance(ipc, dict) or not all(type(ipc.get(k)) is int and ipc.get(k) >= 0 for k in ints) or \
            type(ipc.get("event_sync")) is not bool or not isinstance(ipc.get("stride"), list):
        raise DecodeError("malformed IPC description")
    stride = ipc["stride"]
    if len(stride) != len(shape) or not all(type(x) is int and x >= 0 for x in stride):
        raise DecodeError("malformed IPC strides")
    if ipc["device"] >= torch.cuda.device_count():
        raise DecodeError("IPC tensor on a device that does not exist")
    handle, ref_handle = unb64(ipc.get("handle")), unb64(ipc.get("ref_handle"))
    event_handle = unb64(ipc.get("event_handle"), optional=True)
    if not _REF_NAME.match(ref_handle):
        raise DecodeError("IPC reference counter has an unexpected name")
    try:
        ref_size = os.stat("/dev/shm/" + ref_handle.decode("ascii").lstrip("/")).st_size
    except OSError:
        raise DecodeError("IPC reference counter is not there")
    if (ipc["ref_offset"] + 1) * 8 > ref_size:
        raise DecodeError("IPC reference counter offset out of bounds")
    itemsize = torch.empty((), dtype=dtype).element_size()
    extent = 0
    if all(s > 0 for s in shape):
        extent = 1 + sum((s - 1) * st for s, st in zip(shape, stride))
    if (ipc["storage_offset"] + extent) * itemsize > ipc["size_bytes"]:
        raise DecodeError("IPC tensor extends past its storage")
    try:
        storage = torch.UntypedStorage._new_shared_cuda(
            ipc["device"], handle, ipc["size_bytes"], ipc["offset_bytes"], ref_handle, ipc["ref_offset"],
            event_handle, ipc["event_sync"])
    except (RuntimeError, TypeError, ValueError) as e:
        raise DecodeError("cannot open the IPC tensor: %s" % e)
    # The sizes above are the sender's word. Reading past the memory the handle really maps
    # would fault in the judge (a forged storage_offset or size_bytes), so the mapped range
    # is asked of the driver before a byte is read.
    if ipc["size_bytes"] > 0:
        with torch.cuda.device(ipc["device"]):
            mapped = _mapped_range(storage.data_ptr())
        if mapped is None:
            raise DecodeError("cannot look up the memory range of the IPC tensor")
        base, size = mapped
        if storage.data_ptr() < base or storage.data_ptr() + ipc["size_bytes"] > base + size:
            raise DecodeError("IPC tensor claims %d bytes but its handle maps %d from that address" %
                              (ipc["size_bytes"], max(0, base + size - storage.data_ptr())))
    try:
        t = torch.empty((0,), dtype=dtype, device="cuda:%d" % ipc["device"])
        t.set_(storage, ipc["storage_offset"], shape, stride)
        return t.clone()
    except (RuntimeError, TypeError, ValueError) as e:
        raise DecodeError("cannot open the IPC tensor: %s" % e)


_LIBCUDA = []


def _mapped_range(ptr):
    """(base, size) of the device allocation holding ptr, from the driver; None if unknown."""
    import ctypes
    if not _LIBCUDA:
        try:
            lib = ctypes.CDLL("libcuda.so.1")
            fn = lib.cuMemGetAddressRange_v2
            fn.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_size_t), ctypes.c_uint64]
            fn.restype = ctypes.c_int
            _LIBCUDA.append(fn)
        except (OSError, AttributeError):
            _LIBCUDA.append(None)
    fn = _LIBCUDA[0]
    if fn is None:
        return None
    base, size = ctypes.c_uint64(0), ctypes.c_size_t(0)
    if fn(ctypes.byref(base), ctypes.byref(size), ctypes.c_uint64(ptr)) != 0:
        return None
    return base.value, size.value


def encode(value, ipc=False):
    """Encode a (nested) value of tensors/scalars into (description, bytes).

    With ``ipc`` CUDA tensors are shared as CUDA IPC handles instead of bytes.

    Objects that aren't exactly ``torch.Tensor``, a tuple/list of those, or a
    plain scalar are encoded as ``{"t": "invalid"}`` with their type name so
    the judge can say what it got.
    """
    torch = _torch()
    parts = []
    offset = [0]
    if ipc:
        del _SHARED[:]

    def enc(v):
        if type(v) is torch.Tensor:
            if v.layout != torch.strided:
                return {"t": "invalid", "type": "torch.Tensor(layout=%s)" % v.layout,
                        "why": "tensor does not have a dense strided layout"}
            if v.is_meta:
                return {"t": "invalid", "type": "torch.Tensor(meta)",
                        "why": "tensor has no real storage (meta tensor)"}
            name = dtype_name(v.dtype)
            if name not in _dtype_table():
                return {"t": "invalid", "type": "torch.Tensor(%s)" % name, "why": "unsupported dtype"}
            device = str(v.device)
            if ipc and v.is_cuda:
                return {"t": "tensor", "dtype": name, "shape": list(v.shape), "device": device,
                        "ipc": _share_cuda(v)}
            t = v.detach().to("cpu").contiguous()
            if t.dtype == torch.bfloat16:
                data = t.view(torch.int16).numpy().tobytes()
            else:
                data = t.numpy().tobytes()
            desc = {"t": "tensor", "dtype": name, "shape": list(t.shape), "device": device,
                    "off": offset[0], "n": len(data)}
            parts.append(data)
            offset[0] += len(data)
            return desc
        if isinstance(v, torch.Tensor):
            return {"t": "invalid", "type": type(v).__module__ + "." + type(v).__qualname__,
                    "why": "tensor subclass (only exact torch.Tensor is accepted)"}
        if type(v) is tuple:
            return {"t": "tuple", "items": [enc(x) for x in v]}
        if type(v) is list:
            return {"t": "list", "items": [enc(x) for x in v]}
        if v is None or type(v) in (bool, int, float, str):
            return {"t": "scalar", "v": v}
        return {"t": "invalid", "type": type(v).__module__ + "." + type(v).__qualname__,
                "why": "not a tensor"}

    desc = enc(value)
    return desc, b"".join(parts)


class DecodeError(Exception):
    pass


def decode(desc, payload, device=None, allow_ipc=False):
    """Inverse of :func:`encode`.  Tensors come back as fresh, owned tensors.

    ``invalid`` entries raise :class:`DecodeError`, and so does an IPC tensor unless the
    receiver asked for that transport (``allow_ipc``).
    """
    torch = _torch()
    table = _dtype_table()
    view = memoryview(payload)

    def dec(d):
        kind = d.get("t") if isinstance(d, dict) else None
        if kind == "tensor":
            dtype = table.get(d.get("dtype"))
            shape = d.get("shape")
            off, n = d.get("off"), d.get("n")
            if dtype is None or not isinstance(shape, list) or not all(
                    isinstance(s, int) and s >= 0 for s in shape):
                raise DecodeError("malformed tensor description")
            if "ipc" in d:
                if not allow_ipc:
                    raise DecodeError("a CUDA IPC tensor arrived on a byte channel")
                t = _open_cuda(d["ipc"], dtype, shape)
                return t.to(device) if device is not None else t
            if not (isinstance(off, int) and isinstance(n, int) and 0 <= off and off + n <= len(view)):
                raise DecodeError("tensor data out of bounds")
            numel = 1
            for s in shape:
                numel *= s
            itemsize = torch.empty((), dtype=dtype).element_size()
            if numel * itemsize != n:
                raise DecodeError("tensor byte count does not match its shape and dtype")
            if numel == 0:
                t = torch.empty(shape, dtype=dtype)
            else:
                buf = bytearray(view[off:off + n])
                if dtype == torch.bfloat16:
                    t = torch.frombuffer(buf, dtype=torch.int16).view(torch.bfloat16)
                else:
                    t = torch.frombuffer(buf, dtype=dtype)
                t = t.reshape(shape).clone()
            if device is not None:
                t = t.to(device)
            return t
        if kind == "tuple":
            return tuple(dec(x) for x in d.get("items", []))
        if kind == "list":
            return [dec(x) for x in d.get("items", [])]
        if kind == "scalar":
            v = d.get("v")
            if v is not None and type(v) not in (bool, int, float, str):
                raise DecodeError("malformed scalar")
            return v
        if kind == "invalid":
            raise DecodeError("%s: %s" % (d.get("type", "?"), d.get("why", "not accepted")))
        raise DecodeError("unknown value kind %r" % (kind,))

    return dec(desc)


def tensor_devices(desc):
    """Devices recorded for the tensors of an encoded value (as reported)."""
    out = []

    def walk(d):
        if not isinstance(d, dict):
            return
        if d.get("t") == "tensor":
            out.append(d.get("device"))
        for x in d.get("items", []) or []:
            walk(x)

    walk(desc)
    return out


# --------------------------------------------------------------------------
# slots: tensors the judge owns and a worker maps, for the timed calls

def share_slot(t):
    """Description of a judge-owned slot tensor for a worker to map (no copy). CUDA: an IPC
    handle of the slot's own storage (the slot must own all of it: made by torch.empty).
    CPU: the slot is a shared file mapping made by :func:`cpu_slot`."""
    if not isinstance(t, FileSlot) and t.is_cuda:
        (dev, handle, size_bytes, offset_bytes, ref_handle, ref_offset, event_handle,
         event_sync) = t.untyped_storage()._share_cuda_()

        def b64(b):
            return None if b is None else base64.b64encode(bytes(b)).decode("ascii")

        return {"kind": "cuda", "dtype": dtype_name(t.dtype), "shape": list(t.shape), "device": int(dev),
                "handle": b64(handle), "size_bytes": int(size_bytes), "offset_bytes": int(offset_bytes),
                "ref_handle": b64(ref_handle), "ref_offset": int(ref_offset), "event_handle": b64(event_handle),
                "event_sync": bool(event_sync)}
    if not isinstance(t, FileSlot):
        raise ValueError("a CPU slot must be made by cpu_slot()")
    return {"kind": "file", "dtype": dtype_name(t.dtype), "shape": list(t.shape), "path": t.path}


class SlotError(Exception):
    """A shared slot file no longer holds what the judge needs (the worker resized it)."""


class FileSlot:
    """A CPU slot as the judge sees it: a file in a folder the worker can reach, which the
    worker maps and the judge reads and writes with pread/pwrite only. The judge never maps
    it, so a worker that truncates the file can at most fail its own call (a mapping of a
    truncated file would kill the reader with SIGBUS)."""

    def __init__(self, directory, name, shape, dtype):
        torch = _torch()
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype
        self.numel = 1
        for s in self.shape:
            self.numel *= s
        self.nbytes = self.numel * torch.empty((), dtype=dtype).element_size()
        self.path = os.path.join(directory, name)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        os.ftruncate(self.fd, max(1, self.nbytes))

    def write(self, t):
        torch = _torch()
        data = t.detach().to("cpu").contiguous()
        if data.dtype == torch.bfloat16:
            data = data.view(torch.int16)
        raw = data.numpy().tobytes()
        if os.pwrite(self.fd, raw, 0) != len(raw):
            raise SlotError("short write to a slot")

    def read(self):
        torch = _torch()
        raw = os.pread(self.fd, self.nbytes, 0) if self.nbytes else b""
        if len(raw) != self.nbytes:
            raise SlotError("the slot file %s was cut to %d of %d bytes" % (os.path.basename(self.path), len(raw),
                                                                            self.nbytes))
        if not self.nbytes:
            return torch.empty(self.shape, dtype=self.dtype)
        buf = bytearray(raw)
        if self.dtype == torch.bfloat16:
            t = torch.frombuffer(buf, dtype=torch.int16).view(torch.bfloat16)
        else:
            t = torch.frombuffer(buf, dtype=self.dtype)
        return t.reshape(self.shape)

    def close(self):
        try:
            os.close(self.fd)
        except OSError:
            pass


def cpu_slot(directory, name, shape, dtype):
    """A CPU slot backed by a file in ``directory`` (see FileSlot)."""
    return FileSlot(directory, name, shape, dtype)


def map_slot(desc):
    """The worker's view of a slot (its writes are the judge's to read)."""
    torch = _torch()
    dtype = _dtype_table().get(desc.get("dtype"))
    shape = [int(s) for s in desc["shape"]]
    numel = 1
    for s in shape:
        numel *= s
    if desc["kind"] == "file":
        if not numel:
            return torch.empty(shape, dtype=dtype)
        return torch.from_file(desc["path"], shared=True, size=numel, dtype=dtype).view(*shape)

    def unb64(x):
        return None if x is None else base64.b64decode(x.encode("ascii"))

    storage = torch.UntypedStorage._new_shared_cuda(
        desc["device"], unb64(desc["handle"]), desc["size_bytes"], desc["offset_bytes"],
        unb64(desc["ref_handle"]), desc["ref_offset"], unb64(desc.get("event_handle")), desc["event_sync"])
    t = torch.empty((0,), dtype=dtype, device="cuda:%d" % desc["device"])
    stride, step = [], 1
    for s in reversed(shape):
        stride.insert(0, step)
        step *= max(1, s)
    t.set_(storage, 0, shape, stride)
    return t
