"""pytest settings that must hold before any notebook kernel starts.

nbval starts each notebook's kernel with pytest's own environment. Fixing the hash seed makes set
and dict orders in the kernels the same as when `python -m lib.notebooks regenerate` stored the
outputs (it runs kernels with PYTHONHASHSEED=0 too).
"""

import os

os.environ["PYTHONHASHSEED"] = "0"
