"""What the tests and the benchmarks share: a websocket visitor, a server, a browser. No test lives here."""
