import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from hypothesis import settings  # noqa: E402

# In CI the hypothesis draws are derandomized (a fixed seed per test): a landing is decided by
# the code, not by the draws of one run; locally and in benchmarks/fuzz_long.py they explore.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _torch_default_dtype():
    """A file rewritten for PyTorch sets the default dtype to float64 when it runs
    (`Backend.file_setup`): the tests that load one in process get the default back after."""
    torch = sys.modules.get("torch")
    before = torch.get_default_dtype() if torch is not None else None
    yield
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_default_dtype(before or torch.float32)
