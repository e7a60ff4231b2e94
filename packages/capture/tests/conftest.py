"""Makes this folder's helper modules (``digest_spool``) importable under ``--import-mode=importlib``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
