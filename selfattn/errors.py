"""One error type for input a person can fix, carrying a code the UI can translate."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input, described in plain English, with ``code`` and ``params`` for translation.

    The UI looks up ``err.<code>`` in the string catalog and formats it with ``params``;
    ``str(error)`` is the English message for notebooks, logs and the CLI.
    """

    def __init__(self, code: str, message: str, **params):
        super().__init__(message)
        self.code = code
        self.params = params
