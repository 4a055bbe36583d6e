import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from hypothesis import settings  # noqa: E402

# In CI the hypothesis draws are derandomized (a fixed seed per test): a landing is decided by
# the code, not by the draws of one run; locally and in benchmarks/fuzz_long.py they explore.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
