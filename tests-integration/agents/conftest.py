"""The real-agent suite's helpers live beside it (model_standin.py, agent_clis.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
