"""Every stored demo candidate gets the verdict its manifest promises.

Builds run first, two at a time (the build command), then each candidate
that built is evaluated on its own so timings are not disturbed.
"""

import json
import os
import sys
import unittest
from concurrent.futures import ThreadPoolExecutor

import harness_testlib as lib

DEMO_TIMING = {"timing_trials": 20, "warmup": 3, "max_timing_seconds": 2.0, "timing_input_sets": 3}
BUILD_PARALLELISM = int(os.environ.get("KBHARNESS_TEST_BUILD_JOBS", "2"))


def _load(path):
    with open(path) as f:
        return json.load(f)


class DemoManifestTests(unittest.TestCase):
    def test_manifest_shape(self):
        manifest = _load(os.path.join(lib.DEMO_DIR, "manifest.json"))
        suite = _load(os.path.join(lib.SUITE_DIR, "suite.json"))
        task_ids = {t["id"] for t in suite["tasks"]}
        models = {m["id"] for m in manifest["models"]}
        self.assertEqual(models, {"demo-a", "demo-b"})
        for m in manifest["models"]:
            self.assertIn("not a model", m["label"])
        pairs = {(c["model"], c["task"]) for c in manifest["candidates"]}
        self.assertEqual(pairs, {(m, t) for m in models for t in task_ids})
        expects = {c["expect"] for c in manifest["candidates"]}
        self.assertTrue({"correct_faster", "correct_slower", "incorrect", "build_error", "rejected"} <= expects)
        for c in manifest["candidates"]:
            self.assertTrue(os.path.isfile(os.path.join(lib.DEMO_DIR, c["file"])), c["file"])

    def test_every_candidate_meets_its_expectation(self):
        manifest = _load(os.path.join(lib.DEMO_DIR, "manifest.json"))
        suite = _load(os.path.join(lib.SUITE_DIR, "suite.json"))
        task_file = {t["id"]: os.path.join(lib.SUITE_DIR, t["file"]) for t in suite["tasks"]}
        cands = manifest["candidates"]

        def build(c):
            return lib.evaluate(os.path.join(lib.DEMO_DIR, c["file"]), task=task_file[c["task"]],
                                command="build", timeout=900, **DEMO_TIMING)

        with ThreadPoolExecutor(max_workers=max(1, BUILD_PARALLELISM)) as pool:
            built = list(pool.map(build, cands))

        problems = []
        rows = []
        for c, (code, doc, proc) in zip(cands, built):
            label = "%s/%s" % (c["model"], c["task"])
            if code != 0 or doc is None:
                problems.append("%s: build command failed: %s" % (label, lib.describe(doc, proc)))
                continue
            build_info = doc["build"]
            if doc["verdict"] == "built":
                code, doc, proc = lib.evaluate(os.path.join(lib.DEMO_DIR, c["file"]), task=task_file[c["task"]],
                                               timeout=900, **DEMO_TIMING)
                if code != 0 or doc is None:
                    problems.append("%s: evaluate failed: %s" % (label, lib.describe(doc, proc)))
                    continue
            got = doc["verdict"]
            speed = (doc.get("speedup") or {}).get("eager")
            if got == "correct" and c["expect"] in ("correct_faster", "correct_slower"):
                want_faster = c["expect"] == "correct_faster"
                if (speed > 1.0) != want_faster:
                    # one retry with more samples before calling it
                    more = dict(DEMO_TIMING, timing_trials=60, max_timing_seconds=4.0)
                    code, doc, proc = lib.evaluate(os.path.join(lib.DEMO_DIR, c["file"]),
                                                   task=task_file[c["task"]], timeout=900, **more)
                    speed = (doc.get("speedup") or {}).get("eager") if doc else None
                got = "correct_faster" if speed and speed > 1.0 else "correct_slower"
            rows.append("%-34s expect %-15s got %-15s speedup %-8s build %s %.1fs" % (
                label, c["expect"], got, "%.2fx" % speed if speed else "-", build_info["status"],
                build_info["seconds"]))
            if got != c["expect"]:
                problems.append("%s: expected %s, got %s: %s" % (label, c["expect"], got, doc["message"]))
        sys.stderr.write("\n" + "\n".join(rows) + "\n")
        self.assertEqual(problems, [], "\n".join(problems))


if __name__ == "__main__":
    unittest.main()
