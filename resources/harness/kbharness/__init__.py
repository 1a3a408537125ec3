"""kbharness - the trusted evaluation program of KernelBench Studio.

The engine runs ``python3 -m kbharness <command>``; see README.md next to this
package for the request/result protocol.  Nothing in this package imports
engine code, and the candidate never runs in the process that judges it.
"""

HARNESS_VERSION = "1"
REQUEST_SCHEMA = "kbstudio.eval-request/1"
RESULT_SCHEMA = "kbstudio.eval-result/1"

VERDICTS = (
    "correct",
    "incorrect",
    "build_error",
    "runtime_error",
    "timeout",
    "rejected",
    "invalid_candidate",
)
