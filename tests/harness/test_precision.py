"""fp16 / bf16 requests (CPU): the task's floating inputs and both models' floating weights are
cast to the precision, on the judge's side and the candidate's alike, and judged with the
precision's tolerances; the precision probe (a float32 check) stays out of it."""

import os
import unittest

import harness_testlib
from harness_testlib import describe, evaluate, fixture

TASK = fixture("task_scale_shift.py")
HONEST = fixture("fx_scale_shift_honest.py")
WRONG = fixture("fx_scale_shift_wrong.py")
POLICY = {"allow_torch_ops": True}


class ReducedPrecisionTests(unittest.TestCase):
    def _evaluate(self, candidate, precision):
        rc, doc, proc = evaluate(candidate, task=TASK, precision=precision, atol=None, rtol=None, policy=POLICY)
        self.assertEqual(rc, 0, describe(doc, proc))
        return doc

    def _check_honest(self, precision, dtype):
        doc = self._evaluate(HONEST, precision)
        # the honest candidate refuses to run unless inputs and weights arrive in the precision,
        # and its output (in the inputs' type) must match the reference's dtype: a correct
        # verdict means the reference's output is in the precision too
        self.assertEqual(doc["verdict"], "correct", describe(doc))
        self.assertEqual(doc["precision"], {"requested": precision, "dtype": dtype, "inputs_cast": True,
                                            "weights_cast": True, "atol": 1e-2, "rtol": 1e-2})
        self.assertEqual(doc["correctness"]["atol"], 1e-2)
        self.assertNotIn("precision_probe", doc["correctness"])
        self.assertIsNotNone(doc["timing"])  # the timed calls ran on cast inputs as well

    def _check_wrong(self, precision):
        doc = self._evaluate(WRONG, precision)
        self.assertEqual(doc["verdict"], "incorrect", describe(doc))

    def test_fp16_honest_is_correct(self):
        self._check_honest("fp16", "float16")

    def test_fp16_wrong_is_incorrect(self):
        self._check_wrong("fp16")

    def test_bf16_honest_is_correct(self):
        self._check_honest("bf16", "bfloat16")

    def test_bf16_wrong_is_incorrect(self):
        self._check_wrong("bf16")

    def test_fp32_casts_nothing(self):
        doc = self._evaluate(HONEST, "fp32")
        self.assertEqual(doc["verdict"], "correct", describe(doc))
        self.assertEqual(doc["precision"]["dtype"], "float32")
        self.assertFalse(doc["precision"]["inputs_cast"])


class CastTests(unittest.TestCase):
    def test_only_floating_tensors_and_weights_are_cast(self):
        import torch

        from kbharness import precision

        values = [torch.randn(3), torch.arange(3), 7, torch.ones(2, dtype=torch.bool)]
        out = precision.cast_inputs(values, precision.dtype_of("bf16"))
        self.assertEqual([getattr(v, "dtype", None) for v in out],
                         [torch.bfloat16, torch.int64, None, torch.bool])
        self.assertIs(precision.cast_inputs(values, precision.dtype_of("fp32")), values)
        m = torch.nn.Linear(2, 2)
        m.register_buffer("steps", torch.zeros(1, dtype=torch.long))
        m = precision.cast_model(m, precision.dtype_of("fp16"))
        self.assertEqual(m.weight.dtype, torch.float16)
        self.assertEqual(m.steps.dtype, torch.long)


if __name__ == "__main__":
    unittest.main()
