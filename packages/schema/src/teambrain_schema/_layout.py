"""The contract's on-disk names: the brain's folder and its memory classes' folders.

Their public home is ``teambrain_schema``'s top level; they are defined with the layout that
uses them, in ``teambrain_kit.paths``. Stdlib only.
"""

from __future__ import annotations

from teambrain_kit.paths import BRAIN_DIRNAME, CLASS_FOLDERS, FOLDER_CLASSES, MEMORY_CLASSES

__all__ = ["BRAIN_DIRNAME", "CLASS_FOLDERS", "FOLDER_CLASSES", "MEMORY_CLASSES"]
