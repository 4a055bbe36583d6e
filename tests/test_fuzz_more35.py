"""The other half of `test_fuzz`'s generated programs (other draws of the same generator,
under the same protocol): a test in a file of its own, so that ``--dist loadfile`` runs the
two halves on two workers."""

from __future__ import annotations

from fuzz.programs import cases
from hypothesis import HealthCheck, given, settings
from test_fuzz import MAX_EXAMPLES, _check, writer  # noqa: F401 -- `writer` is the fixture


@settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.large_base_example, HealthCheck.filter_too_much])
@given(case=cases())
def test_more_generated_programs_match_the_loop_or_are_rejected(case, writer):  # noqa: F811
    _check(case, writer)
