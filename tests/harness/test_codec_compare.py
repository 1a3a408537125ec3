"""The private value encoding and the output comparison."""

import math
import unittest

import torch

import harness_testlib  # noqa: F401  (puts kbharness on sys.path)
from kbharness import codec, compare, evaluate, seeds, timing


class CodecTests(unittest.TestCase):
    def roundtrip(self, value):
        desc, data = codec.encode(value)
        return codec.decode(desc, data)

    def test_roundtrip(self):
        x = torch.randn(3, 4)
        y = torch.arange(6, dtype=torch.int64).reshape(2, 3)
        b = torch.randn(5).to(torch.bfloat16)
        out = self.roundtrip((x, [y, b], 3, 2.5, None))
        self.assertIsInstance(out, tuple)
        self.assertTrue(torch.equal(out[0], x))
        self.assertTrue(torch.equal(out[1][0], y))
        self.assertTrue(torch.equal(out[1][1], b))
        self.assertEqual(out[2:], (3, 2.5, None))
        self.assertIs(type(out[0]), torch.Tensor)

    def test_noncontiguous_and_empty(self):
        x = torch.randn(4, 6).t()
        self.assertTrue(torch.equal(self.roundtrip(x), x))
        e = torch.empty(0, 3)
        self.assertEqual(self.roundtrip(e).shape, (0, 3))

    def test_decoded_tensor_owns_memory(self):
        x = torch.ones(4)
        desc, data = codec.encode(x)
        y = codec.decode(desc, data)
        y.add_(1)
        self.assertTrue(torch.equal(x, torch.ones(4)))

    def test_subclass_is_not_encodable(self):
        class Sub(torch.Tensor):
            pass

        desc, data = codec.encode(torch.ones(2).as_subclass(Sub))
        self.assertEqual(desc["t"], "invalid")
        with self.assertRaises(codec.DecodeError) as ctx:
            codec.decode(desc, data)
        self.assertIn("subclass", str(ctx.exception))

    def test_foreign_objects_and_bad_descriptions(self):
        desc, data = codec.encode({"a": 1})
        with self.assertRaises(codec.DecodeError):
            codec.decode(desc, data)
        good, data = codec.encode(torch.ones(4))
        for bad in ({"t": "tensor", "dtype": "float32", "shape": [5], "off": 0, "n": 16},
                    {"t": "tensor", "dtype": "float32", "shape": [4], "off": 8, "n": 16},
                    {"t": "tensor", "dtype": "object", "shape": [4], "off": 0, "n": 16},
                    {"t": "pickle"}):
            with self.subTest(bad=bad), self.assertRaises(codec.DecodeError):
                codec.decode(bad, data)


class CompareTests(unittest.TestCase):
    def test_equal(self):
        x = torch.randn(100)
        r = compare.compare(x, x.clone(), 1e-4, 1e-4)
        self.assertTrue(r["passed"])
        self.assertEqual(r["max_abs_error"], 0.0)
        self.assertEqual(r["mismatch_fraction"], 0.0)

    def test_error_statistics(self):
        x = torch.zeros(100)
        y = x.clone()
        y[:10] = 0.5
        r = compare.compare(x, y, 1e-4, 1e-4)
        self.assertFalse(r["passed"])
        self.assertAlmostEqual(r["max_abs_error"], 0.5)
        self.assertAlmostEqual(r["mismatch_fraction"], 0.1)
        self.assertIn("10 of 100", r["message"])

    def test_within_tolerance(self):
        x = torch.full((10,), 100.0)
        r = compare.compare(x, x + 0.005, 1e-4, 1e-4)  # 0.005 < 1e-4 + 1e-4 * 100
        self.assertTrue(r["passed"])
        self.assertGreater(r["max_rel_error"], 0)

    def test_nan_and_inf(self):
        x = torch.randn(8)
        y = x.clone()
        y[3] = float("nan")
        r = compare.compare(x, y, 1e-4, 1e-4)
        self.assertFalse(r["passed"])
        self.assertIn("NaN", r["message"])
        y[3] = float("inf")
        self.assertFalse(compare.compare(x, y, 1e-4, 1e-4)["passed"])

    def test_structure_shape_dtype(self):
        x = torch.randn(4, 4)
        self.assertIn("shape", compare.compare(x, x.reshape(16), 1, 1)["message"])
        self.assertIn("dtype", compare.compare(x, x.double(), 1, 1)["message"])
        self.assertIn("structure", compare.compare((x, x), [x, x], 1, 1)["message"])
        self.assertIn("structure", compare.compare(x, (x,), 1, 1)["message"])
        self.assertTrue(compare.compare((x, [x]), (x.clone(), [x.clone()]), 1e-4, 1e-4)["passed"])


class ChunkedCompareTests(unittest.TestCase):
    """Large outputs are compared chunk by chunk; the verdict and every number must be those
    of one pass over the whole tensor."""

    def _both(self, ref, cand, **kw):
        saved = compare.CHUNK
        try:
            compare.CHUNK = 1 << 30
            whole = compare.compare(ref, cand, 1e-4, 1e-4, **kw)
            compare.CHUNK = 7
            chunked = compare.compare(ref, cand, 1e-4, 1e-4, **kw)
        finally:
            compare.CHUNK = saved
        self.assertEqual(whole, chunked)
        return chunked

    def test_first_mismatch_in_a_later_chunk(self):
        torch.manual_seed(3)
        ref = torch.randn(5, 11)
        cand = ref.clone()
        cand[3, 4] += 0.5
        cand[4, 9] -= 0.25
        r = self._both(ref, cand)
        self.assertFalse(r["passed"])
        self.assertIn("2 of 55 elements", r["message"])
        self.assertIn("flat index 37", r["message"])
        self.assertAlmostEqual(r["max_abs_error"], 0.5, places=5)

    def test_nonfinite_anywhere(self):
        ref = torch.ones(40)
        cand = ref.clone()
        cand[33] = float("nan")
        cand[38] = float("inf")
        r = self._both(ref, cand)
        self.assertFalse(r["passed"])
        self.assertIn("2 non-finite value(s) (1 NaN, 1 Inf)", r["message"])

    def test_strict_spread_over_chunks(self):
        torch.manual_seed(4)
        ref = 100.0 + 1e-3 * torch.randn(64, dtype=torch.float64)
        flat = torch.full_like(ref, float(ref.mean()))
        r = self._both(ref, flat, strict=True)
        self.assertFalse(r["passed"])
        self.assertIn("strict check", r["message"])
        self.assertTrue(self._both(ref, ref.clone(), strict=True)["passed"])


class SeedTests(unittest.TestCase):
    def test_derived_seeds_hide_the_request_seed(self):
        s = 12345
        derived = [seeds.init_seed(s)] + [seeds.trial_seed(s, i) for i in range(5)] + \
                  [seeds.timing_seed(s, i) for i in range(3)]
        self.assertNotIn(s, derived)
        self.assertEqual(len(set(derived)), len(derived))
        self.assertEqual(seeds.trial_seed(s, 0), seeds.trial_seed(s, 0))
        self.assertNotEqual(seeds.trial_seed(s, 0), seeds.trial_seed(s + 1, 0))
        self.assertTrue(all(0 <= d < 2 ** 63 for d in derived))


if __name__ == "__main__":
    unittest.main()
