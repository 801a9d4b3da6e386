"""The Playground's one-step Undo: what a preset, a resize or an upload replaced, kept to bring back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from selfattn.playground.text import TOGGLES

PRESET_KEYS = ("pg_preset", "pg_seed")  # the preset box and seed: put back by Undo with the tables


@dataclass(frozen=True)
class Undo:
    """What one click of Undo brings back."""

    frames: Mapping  # every table as it was, by matrix name
    settings: Mapping  # the switches, the preset box and its seed as they were, by session-state key
    what: str  # what replaced them: "preset", "resize" or "upload" (the note beside the button says it)


def undo_point(frames: Mapping, settings: Mapping, what: str, before: Mapping | None = None) -> Undo:
    """The Undo for a change ``what`` about to replace ``frames``.

    Args:
        settings: the settings now, by session-state key (a switch not there yet counts as off).
        before: settings as they were before the change, where they already changed (the preset box,
            whose callback runs after the box took the new preset).
    """
    kept = {key: settings.get(key, False) for key in TOGGLES}
    kept.update({key: settings[key] for key in PRESET_KEYS if key in settings})
    kept.update(before or {})
    return Undo(dict(frames), kept, what)
