"""``python -m selfattn.poet --acrostic 春夏秋冬`` prints a poem, one line each; ``--json`` prints
``{"poems": [{"text", "lines"}], "model": {...}, "torch_check": ...}``.

Messages (help, errors) are in English or Chinese (``--lang en|zh``). A bad input prints its message on stderr and
exits with status 2; nothing is dropped silently.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace

from selfattn.errors import InputError
from selfattn.i18n import LANGS, cli_arguments, t_plain


def parser(lang: str) -> argparse.ArgumentParser:
    from selfattn.poet.generate import MAX_SAMPLES, MAX_TEMPERATURE

    def say(key: str, **params) -> str:
        return t_plain(key, lang, **params).replace("`", "")

    found = argparse.ArgumentParser(prog="python -m selfattn.poet", description=say("poet.cli_description"))
    found.add_argument("--acrostic", default=None, help=say("poet.cli_acrostic"))
    found.add_argument("--first", default=None, help=say("poet.cli_first"))
    found.add_argument("--lines", type=int, default=None, help=say("poet.cli_lines"))
    found.add_argument("--samples", default="1", help=say("poet.cli_samples", limit=MAX_SAMPLES))
    found.add_argument("--temperature", default="1.0", help=say("poet.cli_temperature", limit=f"{MAX_TEMPERATURE:g}"))
    found.add_argument("--top-k", default=None, help=say("poet.cli_top_k"))
    found.add_argument("--top-p", default=None, help=say("poet.cli_top_p"))
    found.add_argument("--greedy", action="store_true", help=say("poet.cli_greedy"))
    found.add_argument("--seed", default="0", help=say("poet.cli_seed"))
    found.add_argument("--json", action="store_true", help=say("poet.cli_json"))
    found.add_argument("--lang", choices=list(LANGS), default="en", help=say("poet.cli_lang"))
    return found


def _parsed(text: str | None, kind: type):
    """A number typed on the command line, or the text itself (the checks then name it in their message)."""
    if text is None:
        return None
    try:
        return kind(text)
    except ValueError:
        return text


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = cli_arguments(parser, argv)

    from selfattn.poet import as_json, check_samples, check_settings, load_poet, torch_check
    from selfattn.poet.corpus import lines_of
    from selfattn.poet.generate import message, write

    try:
        poet = load_poet()
        count = check_samples(_parsed(args.samples, int))
        settings = check_settings(poet, acrostic=args.acrostic, first=args.first, lines=args.lines,
                                  temperature=_parsed(args.temperature, float), top_k=_parsed(args.top_k, int),
                                  top_p=_parsed(args.top_p, float), greedy=args.greedy, seed=_parsed(args.seed, int))
        if settings.seed + count - 1 > 2 ** 32 - 1:
            check_settings(poet, seed=settings.seed + count - 1)  # names the last seed as out of range
    except InputError as error:
        print(message(error, args.lang), file=sys.stderr)
        return 2
    poems = [write(poet, replace(settings, seed=settings.seed + i)) for i in range(count)]
    if args.json:
        print(json.dumps(as_json(poet, poems, torch_check(poet, poems)), ensure_ascii=False))
    else:
        print("\n\n".join("\n".join(lines_of(p.text)) for p in poems))
    return 0


if __name__ == "__main__":
    sys.exit(main())
