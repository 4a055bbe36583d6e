"""``torch`` is optional: ``import vectorize`` and NumPy calls never import it."""

import subprocess
import sys


def test_import_does_not_import_torch():
    program = ("import sys\n"
               "import vectorize\n"
               "from vectorize import vmap, vectorize\n"
               "assert 'torch' not in sys.modules, 'imported by import vectorize'\n")
    subprocess.run([sys.executable, "-c", program], check=True)


def test_numpy_calls_do_not_import_torch(tmp_path):
    module = tmp_path / "numpy_only.py"
    module.write_text("def f(x):\n    return x * 2 if x > 0 else -x\n")
    program = (f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
               "import numpy as np\n"
               "from vectorize import vmap, vectorize\n"
               "from numpy_only import f\n"
               "vmap(f)(np.arange(-3.0, 3.0)); vectorize(f)(np.arange(-3.0, 3.0))\n"
               "assert 'torch' not in sys.modules, sorted(m for m in sys.modules "
               "if m.startswith('torch'))\n")
    subprocess.run([sys.executable, "-c", program], check=True)
