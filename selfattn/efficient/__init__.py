"""The Efficient attention page's pure layer: its settings (view), its numbers (compute) and charts."""
