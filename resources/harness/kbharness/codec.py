"""Private parent <-> worker channel.

Frames are ``[u32 header length][u64 payload length][JSON header][payload]``
sent over dedicated pipes (never the worker's stdout/stderr, which the
candidate can print to).  Tensors travel as raw little-endian bytes described
by the header; the trusted side never unpickles anything the candidate
process produced, so a tensor subclass or any other object can't smuggle
behaviour into the judge: it simply can't be encoded.
"""

import json
import os
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


def _read_exact(fd, n, deadline):
    chunks = []
    remaining = n
    while remaining > 0:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChannelTimeout()
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if not ready:
                continue
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


def encode(value):
    """Encode a (nested) value of tensors/scalars into (description, bytes).

    Objects that aren't exactly ``torch.Tensor``, a tuple/list of those, or a
    plain scalar are encoded as ``{"t": "invalid"}`` with their type name so
    the judge can say what it got.
    """
    torch = _torch()
    parts = []
    offset = [0]

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


def decode(desc, payload, device=None):
    """Inverse of :func:`encode`.  Tensors come back as fresh, owned tensors.

    ``invalid`` entries raise :class:`DecodeError`.
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
