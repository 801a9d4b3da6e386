"""UI strings: embeddings."""

STRINGS: dict[str, dict[str, str]] = {
}
