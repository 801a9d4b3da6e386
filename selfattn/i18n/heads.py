"""UI strings: heads."""

STRINGS: dict[str, dict[str, str]] = {
}
