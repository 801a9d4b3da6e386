"""``python -m selfattn.translate 早上好`` prints ``good morning``; ``--json`` prints the whole trace's summary, with
``in_training``: whether the sentence was one it was trained on (without ``--json``, a sentence it was not trained on
gets a warning on stderr).

Messages (help, errors) are in English or Chinese (``--lang en|zh``). A bad input prints its message on stderr and
exits with status 2; nothing is dropped silently.
"""

from __future__ import annotations

import argparse
import json
import sys

from selfattn.errors import InputError
from selfattn.i18n import LANGS, cli_arguments, t_plain


def parser(lang: str) -> argparse.ArgumentParser:
    def say(key: str) -> str:
        return t_plain(key, lang).replace("`", "")

    found = argparse.ArgumentParser(prog="python -m selfattn.translate", description=say("tr.cli_description"))
    found.add_argument("text", nargs="*", help=say("tr.cli_text"))
    found.add_argument("--json", action="store_true", help=say("tr.cli_json"))
    found.add_argument("--temperature", type=float, default=None, help=say("tr.cli_temperature"))
    found.add_argument("--seed", type=int, default=0, help=say("tr.cli_seed"))
    found.add_argument("--lang", choices=list(LANGS), default="en", help=say("tr.cli_lang"))
    return found


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = cli_arguments(parser, argv)

    from selfattn.translate import as_json, load, torch_check, translate

    try:
        translator = load()
        translation = translate(translator, "".join(args.text), temperature=args.temperature, seed=args.seed)
    except InputError as error:
        print(t_plain(f"err.{error.code}", args.lang, **error.params), file=sys.stderr)
        return 2
    if args.json:
        found = as_json(translation, torch_check(translator, translation))
        print(json.dumps(found, ensure_ascii=False))
    else:
        print(translation.output)
        if not translation.in_training:  # on stderr: stdout stays the translation alone
            from selfattn.translate.corpus import training_size

            print(t_plain("tr.cli_new_sentence", args.lang, count=training_size()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
