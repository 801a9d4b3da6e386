"""The Encoder–decoder page's pure layer: its state (view), link and numbers (compute)."""
