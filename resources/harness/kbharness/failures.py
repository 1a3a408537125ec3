"""Failures of an evaluation that are not the candidate's: no verdict is given (cli.py turns
them into an error document and an exit status)."""


class TaskFailure(Exception):
    """The reference task could not be run (a bad request, not a verdict)."""


class InfrastructureFailure(Exception):
    """The machinery failed, not the candidate (a build-cache entry changed after the judge
    recorded it): no verdict; the engine evaluates again."""
