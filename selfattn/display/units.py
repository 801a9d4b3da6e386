"""Quantities written for people: bytes in KiB, MiB and GiB (the table, the charts' tooltips, the sentences)."""

from __future__ import annotations

MiB, GiB = 2**20, 2**30


def memory_text(nbytes: float | None) -> str:
    """Bytes as people read them: "80 MiB", "16.6 GiB", "2.93 KiB", "512 B" (3 significant digits; "" for none)."""
    if nbytes is None:
        return ""
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", 1024)):
        if nbytes >= size:
            value = nbytes / size
            return f"{value:.3g} {unit}" if value < 99.95 else f"{value:.0f} {unit}"  # never "1e+03"
    return f"{nbytes:.0f} B"
