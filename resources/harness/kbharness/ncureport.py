"""What the agent's profiler reports: ncu's and nsys's CSV outputs parsed, and their summary.

Pure functions over text, tested on stored outputs without a GPU (tests/harness/test_profile.py):
``ncu --csv --page raw --metrics ...`` (a header of columns, a units row, one row per kernel
launch), ``ncu --csv --page details`` (one row per launch, section and metric) and
``nsys stats --report cuda_gpu_kern_sum --format csv``; then the kernel table, the top kernels'
Speed of Light, occupancy and roofline figures, a one-line hint, and the text the model reads.
profile.py runs the profilers.
"""


import csv
import io
import re

# ncu metrics, by what they feed: the kernel table, Speed of Light, occupancy, the roofline.
TIME_METRIC = "gpu__time_duration.sum"
SM_PCT = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
MEM_PCT = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
DRAM_PCT = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
ACHIEVED_OCC = "sm__warps_active.avg.pct_of_peak_sustained_active"
THEORETICAL_OCC = "sm__maximum_warps_per_active_cycle_pct"
DRAM_BYTES = "dram__bytes.sum"
REGISTERS = "launch__registers_per_thread"
# FLOPs as ncu's roofline counts them: add and mul one each, fma two.
FLOP_METRICS = {
    "sm__sass_thread_inst_executed_op_%s%s_pred_on.sum" % (p, op): (2 if op == "fma" else 1)
    for p in ("f", "d", "h") for op in ("add", "mul", "fma")
}
# The FP32 roofline's peaks: FFMA per cycle and DRAM bytes per cycle, with their clocks.
PEAK_FFMA = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"
SM_HZ = "sm__cycles_elapsed.avg.per_second"
PEAK_DRAM = "dram__bytes.sum.peak_sustained"
DRAM_HZ = "dram__cycles_elapsed.avg.per_second"

CORE_METRICS = [TIME_METRIC, SM_PCT, MEM_PCT, DRAM_PCT, ACHIEVED_OCC, THEORETICAL_OCC, REGISTERS]
ROOFLINE_METRICS = [DRAM_BYTES] + sorted(FLOP_METRICS) + [PEAK_FFMA, SM_HZ, PEAK_DRAM, DRAM_HZ]
ALL_METRICS = CORE_METRICS + ROOFLINE_METRICS

# --page details names (Speed of Light, Occupancy and Launch Statistics sections) of the same
# quantities; several ncu versions' spellings. "%" rows only, where a name is also a rate.
DETAILS_NAMES = {
    "duration": TIME_METRIC,
    "compute (sm) throughput": SM_PCT,
    "compute (sm) [%]": SM_PCT,
    "sm [%]": SM_PCT,
    "memory throughput": MEM_PCT,
    "memory [%]": MEM_PCT,
    "dram throughput": DRAM_PCT,
    "achieved occupancy": ACHIEVED_OCC,
    "theoretical occupancy": THEORETICAL_OCC,
    "registers per thread": REGISTERS,
}
PERCENT_ONLY = {MEM_PCT, DRAM_PCT, SM_PCT}

# Above this share of peak a unit counts as busy (ncu's own Speed of Light guidance uses 60%).
BUSY_PCT = 60.0
TOP_KERNELS = 3
TABLE_ROWS = 8
NAME_WIDTH = 48
LIBRARY_MARKERS = ("at::native", "at::cuda", "cublas", "cutlass", "cudnn", "sgemm", "gemm_", "gemv", "cub::",
                   "triton_", "nvjet", "magma")


# ----------------------------------------------------------------------------- parsing

class ParseError(Exception):
    """The profiler's output has no table this parser can read."""


_TIME_SECONDS = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3,
                 "second": 1.0, "s": 1.0}
_HERTZ = {"hz": 1.0, "khz": 1e3, "mhz": 1e6, "ghz": 1e9, "thz": 1e12}
_PREFIX = {"K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "Ki": 1024.0, "Mi": 1024.0 ** 2,
           "Gi": 1024.0 ** 3, "Ti": 1024.0 ** 4}
_BASE_UNITS = ("byte", "inst", "cycle", "warp", "thread", "block", "register", "sector", "request", "flop",
               "B")


def _unit_factor(token):
    """Factor from one unit word (``Mbyte``, ``usecond``, ``Ghz``) to its base unit, or None."""
    t = token.strip()
    if not t:
        return 1.0
    if t in _TIME_SECONDS:
        return _TIME_SECONDS[t]
    if t.lower() in _HERTZ:
        return _HERTZ[t.lower()]
    if t in _BASE_UNITS or t == "%":
        return 1.0
    for prefix in sorted(_PREFIX, key=len, reverse=True):
        if t.startswith(prefix):
            rest = t[len(prefix):]
            if rest in _BASE_UNITS or rest.startswith("byte"):
                return _PREFIX[prefix]
    return None


def unit_factor(unit):
    """Factor from ncu's unit (``Kbyte``, ``usecond``, ``byte/second``, ``cycle/nsecond``,
    ``Ghz``, ``%``) to base units (bytes, seconds, Hz, per second); 1 for unknown units."""
    unit = (unit or "").strip()
    if not unit:
        return 1.0
    num, _, den = unit.partition("/")
    f = _unit_factor(num)
    if f is None:
        f = 1.0
    if den:
        d = _unit_factor(den)
        if d:
            f /= d
    return f


def parse_number(text):
    """A number as ncu prints it ("1,234.5", "12.3", "n/a", "(!) 7"); None when there is none."""
    if text is None:
        return None
    t = str(text).strip().strip('"').strip()
    if t.startswith("(!)"):
        t = t[3:].strip()
    t = t.replace(",", "").replace("\u202f", "").replace(" ", "")
    if not t or t.lower() in ("n/a", "na", "nan", "-", "--"):
        return None
    try:
        return float(t)
    except ValueError:
        return None


def _csv_rows(text, first_column):
    """The CSV table of ncu's output that starts with a header whose first field is
    ``first_column``, without ncu's own message lines (==PROF==, ==WARNING==, ...)."""
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("==")]
    for i, line in enumerate(lines):
        fields = next(csv.reader([line]), [])
        if fields and fields[0].strip() == first_column:
            return list(csv.reader(io.StringIO("\n".join(lines[i:]))))
    raise ParseError("no table with a %r column in the profiler's output" % first_column)


def _is_metric(column):
    return "__" in column


def _launch_shape(header, row):
    """Grid and block sizes from ncu's "Grid Size" / "Block Size" columns, as ncu prints them."""
    shape = {}
    for column, key in (("Grid Size", "grid"), ("Block Size", "block")):
        if column in header and header.index(column) < len(row) and row[header.index(column)].strip():
            shape[key] = row[header.index(column)].strip()
    return shape


def parse_ncu_raw(text):
    """ncu ``--csv --page raw``: a header of columns (metric names among them), a row of
    units, then one row per profiled kernel launch. Returns a list of
    ``{"id", "name", "metrics": {metric: value in base units}}``."""
    rows = _csv_rows(text, "ID")
    header = [h.strip() for h in rows[0]]
    body = rows[1:]
    units = [""] * len(header)
    # The units row: empty ID and kernel name.
    if body and (not body[0] or not body[0][0].strip()):
        units = [u.strip() for u in body[0]] + [""] * max(0, len(header) - len(body[0]))
        body = body[1:]
    try:
        name_col = header.index("Kernel Name")
    except ValueError:
        name_col = next((i for i, h in enumerate(header) if h.lower() in ("function name", "name")), None)
        if name_col is None:
            raise ParseError("the raw page has no 'Kernel Name' column")
    kernels = []
    for row in body:
        if not row or not row[0].strip():
            continue
        metrics = {}
        for i, column in enumerate(header):
            if i >= len(row) or not _is_metric(column):
                continue
            value = parse_number(row[i])
            if value is not None:
                metrics[column] = value * unit_factor(units[i])
        kernels.append({"id": row[0].strip(), "name": row[name_col].strip() if name_col < len(row) else "",
                        "metrics": metrics, "launch": _launch_shape(header, row)})
    return kernels


def parse_ncu_details(text):
    """ncu ``--csv --page details``: one row per (kernel launch, section, metric) with its
    unit. Returns the same shape as parse_ncu_raw, with the Speed of Light, Occupancy and
    Launch Statistics values under their raw metric names."""
    rows = _csv_rows(text, "ID")
    header = [h.strip() for h in rows[0]]
    col = {h: i for i, h in enumerate(header)}
    for needed in ("Kernel Name", "Metric Name", "Metric Value"):
        if needed not in col:
            raise ParseError("the details page has no %r column" % needed)
    unit_col = col.get("Metric Unit")
    kernels = {}
    order = []
    for row in rows[1:]:
        if len(row) <= col["Metric Value"] or not row[0].strip():
            continue
        kid = row[0].strip()
        if kid not in kernels:
            kernels[kid] = {"id": kid, "name": row[col["Kernel Name"]].strip(), "metrics": {},
                            "launch": _launch_shape(header, row)}
            order.append(kid)
        metric = DETAILS_NAMES.get(row[col["Metric Name"]].strip().lower())
        if metric is None:
            continue
        unit = row[unit_col].strip() if unit_col is not None and unit_col < len(row) else ""
        if metric in PERCENT_ONLY and unit != "%":
            continue  # e.g. "Memory Throughput" in Gbyte/second (memory workload section)
        value = parse_number(row[col["Metric Value"]])
        if value is not None:
            kernels[kid]["metrics"][metric] = value * unit_factor(unit)
    return [kernels[k] for k in order]


def parse_ncu_csv(text):
    """Either page, told apart by its header."""
    rows = _csv_rows(text, "ID")
    header = [h.strip() for h in rows[0]]
    if "Metric Name" in header and "Metric Value" in header:
        return parse_ncu_details(text)
    return parse_ncu_raw(text)


def parse_nsys_kernel_summary(text):
    """``nsys stats --report cuda_gpu_kern_sum --format csv`` (``gpukernsum`` in older
    releases): one row per kernel name with its total time and instances. Returns a list of
    ``{"name", "count", "total_us"}``; times are in ns unless a column says otherwise."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    start = None
    for i, line in enumerate(lines):
        fields = [f.strip() for f in next(csv.reader([line]), [])]
        if any(f.startswith("Time") and "%" in f for f in fields) and "Name" in fields:
            start = i
            break
    if start is None:
        raise ParseError("no kernel summary table in the nsys output")
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    header = [h.strip() for h in rows[0]]

    def find(*names):
        for n in names:
            for i, h in enumerate(header):
                if h.lower().startswith(n.lower()):
                    return i
        return None

    total, count, name = find("Total Time"), find("Instances", "Calls"), header.index("Name")
    if total is None or count is None:
        raise ParseError("the nsys kernel summary has no total time or instances column")
    scale = 1e-3  # ns -> us
    m = re.search(r"\((\w+)\)", header[total])
    if m and m.group(1) in _TIME_SECONDS:
        scale = _TIME_SECONDS[m.group(1)] * 1e6
    kernels = []
    for row in rows[1:]:
        if len(row) <= max(total, count, name):
            continue
        t, c = parse_number(row[total]), parse_number(row[count])
        if t is None or c is None:
            continue
        kernels.append({"name": row[name].strip(), "count": int(c), "total_us": t * scale})
    return kernels


# ----------------------------------------------------------------------------- summary

def _strip_balanced(text, open_ch, close_ch, keep):
    """Removes the contents of every outermost open_ch...close_ch pair, leaving ``keep``."""
    out, depth = [], 0
    for ch in text:
        if ch == open_ch:
            if depth == 0:
                out.append(keep)
            depth += 1
        elif ch == close_ch and depth > 0:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def shorten_kernel_name(name, width=NAME_WIDTH):
    """``void at::native::vectorized_elementwise_kernel<4, Op, Array>(int, Op, Array)`` ->
    ``vectorized_elementwise_kernel<…>``: no return type, parameters, namespaces or template
    arguments, at most ``width`` characters."""
    n = (name or "").strip()
    if not n:
        return "?"
    n = _strip_balanced(n, "(", ")", "")
    n = _strip_balanced(n, "<", ">", "<…>")
    n = n.replace("<…><…>", "<…>").strip()
    # the return type and qualifiers go; the last scope's name stays
    n = n.split()[-1] if n.split() else n
    if "::" in n:
        n = n.rsplit("::", 1)[1] or n
    if len(n) > width:
        n = n[: width - 1] + "…"
    return n


def _is_library(name):
    low = (name or "").lower()
    return any(m.lower() in low for m in LIBRARY_MARKERS)


def _weighted(launches, metric):
    """Mean of a per-launch metric over launches, weighted by their durations."""
    num = den = 0.0
    for k in launches:
        v = k["metrics"].get(metric)
        if v is None:
            continue
        w = k["metrics"].get(TIME_METRIC) or 1.0
        num += v * w
        den += w
    return num / den if den else None


def _round(x, digits=2):
    return None if x is None else round(float(x), digits)


def bound_of(sm_pct, mem_pct):
    """'memory', 'compute' or 'latency' from the Speed of Light percentages (None if unknown):
    a unit at or above BUSY_PCT of its peak bounds the kernel; with neither, latency does."""
    if sm_pct is None and mem_pct is None:
        return None
    sm, mem = sm_pct or 0.0, mem_pct or 0.0
    if max(sm, mem) < BUSY_PCT:
        return "latency"
    return "memory" if mem >= sm else "compute"


def _kernel_detail(launches):
    m = lambda metric: _weighted(launches, metric)  # noqa: E731
    detail = {
        "achieved_occupancy_pct": _round(m(ACHIEVED_OCC), 1),
        "theoretical_occupancy_pct": _round(m(THEORETICAL_OCC), 1),
        "sm_throughput_pct": _round(m(SM_PCT), 1),
        "memory_throughput_pct": _round(m(MEM_PCT), 1),
        "dram_throughput_pct": _round(m(DRAM_PCT), 1),
        "registers_per_thread": _round(m(REGISTERS), 0),
    }
    flops = dram = None
    for k in launches:
        f = [k["metrics"][name] * w for name, w in FLOP_METRICS.items() if name in k["metrics"]]
        if f:
            flops = (flops or 0.0) + sum(f)
        if DRAM_BYTES in k["metrics"]:
            dram = (dram or 0.0) + k["metrics"][DRAM_BYTES]
    n = len(launches)
    detail["grid"] = launches[-1].get("launch", {}).get("grid")
    detail["block"] = launches[-1].get("launch", {}).get("block")
    detail["flops_per_launch"] = _round(flops / n, 0) if flops is not None else None
    detail["dram_bytes_per_launch"] = _round(dram / n, 0) if dram is not None else None
    intensity = flops / dram if flops is not None and dram else None
    detail["arithmetic_intensity"] = _round(intensity, 3)
    ridge = None
    peak_ffma, sm_hz, peak_dram, dram_hz = m(PEAK_FFMA), m(SM_HZ), m(PEAK_DRAM), m(DRAM_HZ)
    if peak_ffma and sm_hz and peak_dram and dram_hz:
        ridge = (2.0 * peak_ffma * sm_hz) / (peak_dram * dram_hz)
    detail["ridge_point"] = _round(ridge, 2)
    mem = max([v for v in (detail["memory_throughput_pct"], detail["dram_throughput_pct"]) if v is not None],
              default=None)
    bound = bound_of(detail["sm_throughput_pct"], mem)
    if bound is None and intensity is not None and ridge:
        bound = "memory" if intensity < ridge else "compute"
    detail["bound"] = bound
    if intensity is not None and ridge:
        detail["roofline_side"] = "memory" if intensity < ridge else "compute"
    else:
        detail["roofline_side"] = None
    return detail


def _group(launches):
    """Launches grouped by full kernel name, in order of first appearance."""
    groups = {}
    for k in launches:
        groups.setdefault(k["name"], []).append(k)
    return groups


def summarize(ncu_kernels, nsys_kernels=None, calls=None, kernel_limit=None, top=TOP_KERNELS):
    """The profile document's body from parsed ncu launches and, where nsys ran, its kernel
    summary (GPU times without ncu's replay and clock locking). Pure."""
    groups = _group(ncu_kernels or [])
    table = []
    if nsys_kernels:
        time_source = "nsys"
        for k in nsys_kernels:
            table.append({"full_name": k["name"], "count": k["count"], "total_us": k["total_us"]})
    else:
        time_source = "ncu"
        for name, launches in groups.items():
            total = sum(x["metrics"].get(TIME_METRIC, 0.0) for x in launches) * 1e6
            table.append({"full_name": name, "count": len(launches), "total_us": total})
    table.sort(key=lambda r: -r["total_us"])
    grand = sum(r["total_us"] for r in table)
    kernels = []
    for r in table:
        row = {"name": shorten_kernel_name(r["full_name"]), "full_name": r["full_name"][:500],
               "count": r["count"], "total_us": _round(r["total_us"], 3),
               "mean_us": _round(r["total_us"] / r["count"], 3) if r["count"] else None,
               "share_pct": _round(100.0 * r["total_us"] / grand, 1) if grand else None,
               "library": _is_library(r["full_name"])}
        kernels.append(row)
    # ncu's details for the top kernels by time (matched by full name, else by short name)
    by_short = {}
    for name, launches in groups.items():
        by_short.setdefault(shorten_kernel_name(name), []).extend(launches)
    for row in kernels[:top]:
        launches = groups.get(row["full_name"]) or by_short.get(row["name"])
        row["ncu"] = _kernel_detail(launches) if launches else None
    doc = {
        "time_source": time_source,
        "calls": calls,
        "kernel_launches_profiled": len(ncu_kernels or []),
        "kernel_limit": kernel_limit,
        "limit_reached": bool(kernel_limit and len(ncu_kernels or []) >= kernel_limit),
        "total_gpu_us": _round(grand, 3),
        "kernels": kernels,
    }
    doc["hint"] = hint(doc)
    return doc


def hint(doc):
    """One line of advice from the top kernel's numbers."""
    kernels = doc.get("kernels") or []
    if not kernels:
        return "No kernel ran in the profiled calls: is the forward pass doing its work on the GPU?"
    top = kernels[0]
    lib = sum(k["share_pct"] or 0.0 for k in kernels if k["library"])
    if lib >= 50.0:
        return ("%.0f%% of the GPU time is in PyTorch or library kernels, not yours: replace those operations "
                "with your own kernels or fuse them into one." % lib)
    if len(kernels) >= 3 and (top["share_pct"] or 0.0) < 50.0:
        return ("The time is spread over %d kernels: fuse them into fewer launches so intermediates stay in "
                "registers or shared memory." % len(kernels))
    d = top.get("ncu") or {}
    name = top["name"]
    occ, sm, dram = d.get("achieved_occupancy_pct"), d.get("sm_throughput_pct"), d.get("dram_throughput_pct")
    mem = d.get("memory_throughput_pct")
    if d.get("bound") == "memory":
        if dram is not None and dram >= 75.0:
            return ("%s runs at %.0f%% of DRAM bandwidth: only moving fewer bytes (fusion, reuse in shared memory or "
                    "registers) makes it faster." % (name, dram))
        return ("%s is memory-bound at %.0f%% of peak: coalesce and vectorise accesses (e.g. float4) and reuse "
                "data through shared memory or the caches." % (name, max(mem or 0.0, dram or 0.0)))
    if d.get("bound") == "compute":
        return ("%s is compute-bound at %.0f%% of SM peak: cut instructions per element (fused math, fewer index "
                "computations) or use tensor cores for matrix products." % (name, sm or 0.0))
    if d.get("bound") == "latency":
        if occ is not None and occ < 40.0:
            return ("%s keeps neither memory nor compute busy and its achieved occupancy is %.0f%%: launch more "
                    "threads and blocks, or use fewer registers / less shared memory per block." % (name, occ))
        return ("%s keeps neither memory nor compute busy: expose more parallelism (a larger grid, more "
                "independent work per thread) or cut launch overhead and synchronisation." % name)
    return "%s takes %.0f%% of the GPU time; ncu gave no throughput figures for it." % (name, top["share_pct"] or 0)


def _fmt(v, spec="%.1f", unit=""):
    return "?" if v is None else (spec % v) + unit


def _fmt_us(v):
    if v is None:
        return "?"
    if v >= 1e4:
        return "%.1f ms" % (v / 1e3)
    return "%.2f us" % v


def format_summary(doc):
    """The text the agent reads: the kernel table, the top kernels' ncu figures, the hint."""
    if doc.get("status") != "ok":
        return "Profile failed (%s): %s" % (doc.get("status"), doc.get("message", ""))
    lines = []
    tools = "Nsight Compute" + (" %s" % doc["ncu_version"] if doc.get("ncu_version") else "")
    if doc.get("time_source") == "nsys":
        tools += " + Nsight Systems"
    head = "Profile of model_new.py (%s" % tools
    if doc.get("device_name"):
        head += ", %s" % doc["device_name"]
    head += "; %s forward call(s), %d kernel launch(es) profiled" % (doc.get("calls") or "?",
                                                                     doc.get("kernel_launches_profiled") or 0)
    if doc.get("limit_reached"):
        head += ", the first %d only" % doc["kernel_limit"]
    lines.append(head + ")")
    kernels = doc.get("kernels") or []
    src = "nsys, real clocks" if doc.get("time_source") == "nsys" else "ncu, under replay at base clocks"
    lines.append("GPU time by kernel (%s), total %s:" % (src, _fmt_us(doc.get("total_gpu_us"))))
    width = max([len(k["name"]) for k in kernels[:TABLE_ROWS]] + [6])
    lines.append("  #  %-*s %6s %12s %12s %7s" % (width, "kernel", "calls", "total", "mean", "share"))
    for i, k in enumerate(kernels[:TABLE_ROWS], 1):
        lines.append("  %d  %-*s %6d %12s %12s %7s" % (i, width, k["name"], k["count"], _fmt_us(k["total_us"]),
                                                       _fmt_us(k["mean_us"]), _fmt(k["share_pct"], "%.1f", "%")))
    if len(kernels) > TABLE_ROWS:
        rest = sum(k["share_pct"] or 0.0 for k in kernels[TABLE_ROWS:])
        lines.append("     ... %d more kernel(s), %.1f%% of the time" % (len(kernels) - TABLE_ROWS, rest))
    detailed = [k for k in kernels[:TOP_KERNELS] if k.get("ncu")]
    if detailed:
        lines.append("Top kernels (ncu):")
    for i, k in enumerate(kernels[:TOP_KERNELS], 1):
        d = k.get("ncu")
        if not d:
            continue
        parts = ["occupancy %s achieved / %s theoretical" % (_fmt(d["achieved_occupancy_pct"], "%.1f", "%"),
                                                             _fmt(d["theoretical_occupancy_pct"], "%.0f", "%"))]
        parts.append("SM throughput %s of peak" % _fmt(d["sm_throughput_pct"], "%.1f", "%"))
        parts.append("memory %s (DRAM %s) of peak" % (_fmt(d["memory_throughput_pct"], "%.1f", "%"),
                                                      _fmt(d["dram_throughput_pct"], "%.1f", "%")))
        if d.get("grid") and d.get("block"):
            parts.append("grid %s x block %s" % (d["grid"], d["block"]))
        if d.get("registers_per_thread") is not None:
            parts.append("%d registers/thread" % d["registers_per_thread"])
        roof = []
        if d.get("arithmetic_intensity") is not None:
            roof.append("%.3g FLOP/byte" % d["arithmetic_intensity"])
            if d.get("ridge_point"):
                roof.append("%s the FP32 ridge at %.3g" % ("below" if d["roofline_side"] == "memory" else "above",
                                                           d["ridge_point"]))
        bound = {"memory": "memory-bound", "compute": "compute-bound",
                 "latency": "latency-bound (no unit near peak)"}.get(d.get("bound"), "boundness unknown")
        roof.append(bound)
        lines.append("  %d  %s: %s" % (i, k["name"], "; ".join(parts)))
        lines.append("     roofline: %s" % ", ".join(roof))
    for note in doc.get("notes") or []:
        lines.append("Note: %s" % note)
    lines.append("Hint: %s" % doc.get("hint", ""))
    return "\n".join(lines) + "\n"
