"""Settings shared by every test directory."""

from hypothesis import settings

# The machine (CI's too) is shared and noisy: a property is checked for what it asserts,
# never for how fast an example runs, so Hypothesis's per-example deadline (200 ms by
# default) is off. Performance is measured by benchmarks (docs/performance.md).
settings.register_profile("gunzi", deadline=None)
settings.load_profile("gunzi")
