"""What a sweep's records say side by side: noisy timings and the time ratios of two implementations."""

from __future__ import annotations

NOISY_IQR_SHARE = 0.25  # IQR above this share of the median: the timing is noisy (quiet runs stay under 10 %)


def is_noisy(record: dict) -> bool:
    """True for a finished run whose IQR is more than NOISY_IQR_SHARE of its median time."""
    median, iqr = record.get("median_ms"), record.get("iqr_ms")
    if record.get("status") != "ok" or median is None or iqr is None or median <= 0:
        return False
    return iqr > NOISY_IQR_SHARE * median


def speed_ratios(records: list[dict], slower: str = "naive", faster: str = "fused",
                 field: str = "median_ms") -> list[dict]:
    """Time ratio ``slower / faster`` for each (device, dtype, batch, d_model, heads, seq_len) where both ran ok.

    Args:
        field: the time compared, ``median_ms`` or ``min_ms`` (the best round, steadier on a busy machine;
            records written before it have none).

    Returns:
        dicts with heads, seq_len, ratio (> 1 means ``faster`` really is faster) and both times.
    """
    key = lambda r: (r["device"], r["dtype"], r["batch"], r["d_model"], r["heads"], r["seq_len"])
    ok = {(key(r), r["impl"]): r[field] for r in records if r["status"] == "ok" and r.get(field)}
    out = []
    for r in records:
        if r["impl"] == slower and (key(r), slower) in ok and (key(r), faster) in ok:
            a, b = ok[(key(r), slower)], ok[(key(r), faster)]
            out.append({"heads": r["heads"], "seq_len": r["seq_len"], "ratio": a / b,
                        f"{slower}_ms": a, f"{faster}_ms": b})
    return out
