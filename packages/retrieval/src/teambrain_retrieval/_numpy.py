"""Before numpy is first imported: a single-threaded BLAS.

Our only BLAS work is one matrix-vector product per query (microseconds to a millisecond).
OpenBLAS's worker threads would spin beside onnxruntime's on a two-core machine: measured at
10,000 memories, the product took 8 ms with them and 1 ms without, and query embedding slowed
down too. The variable only applies if numpy has not been imported yet, and a value the user
set wins.
"""

from __future__ import annotations

import os
import sys


def prepare_numpy() -> None:
    """Call right before a lazy ``import numpy`` (or anything importing it, like onnxruntime)."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
