"""Errors raised when a model cannot be found or loaded offline."""

from __future__ import annotations


class ModelUnavailable(RuntimeError):
    """A model's weights or runtime are missing; the message says what to install."""

    def __init__(self, model: str, requirement: str, detail: str = "") -> None:
        self.model = model
        self.requirement = requirement
        extra = f" ({detail})" if detail else ""
        super().__init__(
            f"{model} is not available{extra}: run `pip install {requirement}` "
            f"(Monologue never downloads weights at run time)"
        )
