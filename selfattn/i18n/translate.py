"""UI strings: the translator trained here (selfattn.translate), its command line and its errors."""

STRINGS: dict[str, dict[str, str]] = {
    "tr.cli_description": {
        "en": "Translate a short Chinese sentence into English with the small translator trained in this project, "
              "computed on our own `numpy` core.",
        "zh": "用本项目训练的小翻译器把一句简短的中文译成英文，在我们自己的 `numpy` 核心上计算。",
    },
    "tr.cli_text": {"en": "the Chinese sentence, read character by character",
                    "zh": "要翻译的中文句子，逐字读取"},
    "tr.cli_json": {"en": "print JSON: `source`, `output`, `tokens`, `cross_weights` and `torch_check`",
                    "zh": "输出 JSON：`source`（源字符）、`output`（译文）、`tokens`（生成的词元）、"
                          "`cross_weights`（交叉注意力）和 `torch_check`（与 PyTorch 核对）"},
    "tr.cli_temperature": {"en": "draw each word at this temperature (above 0) instead of taking the most likely one",
                           "zh": "按这个温度（大于 0）随机抽取每个词，而不是取最可能的词"},
    "tr.cli_seed": {"en": "the seed of the draws (with `--temperature`)", "zh": "抽样的随机种子（配合 `--temperature`）"},
    "tr.cli_lang": {"en": "the language of messages: `en` or `zh`", "zh": "提示信息的语言：`en` 或 `zh`"},
    "err.tr_empty": {"en": "Type a Chinese sentence to translate, for example 早上好 or 狗咬人.",
                     "zh": "请输入要翻译的中文句子，例如“早上好”或“狗咬人”。"},
    "err.tr_too_long": {"en": "The translator reads up to {limit} characters; this text has {got}.",
                        "zh": "翻译器最多读取 {limit} 个字符，这段文字有 {got} 个。"},
    "err.tr_unseen": {"en": "The translator never saw these characters in training, so it cannot read them: {chars}. "
                            "It knows only these: {known}",
                      "zh": "翻译器在训练中从未见过这些字符，因此无法读取：{chars}。它只认识这些字符：{known}"},
    "err.tr_temperature": {"en": "The temperature must be a number above 0 and at most {limit}, got {value}.",
                           "zh": "温度必须是大于 0 且不超过 {limit} 的数，现在是 {value}。"},
    "err.tr_no_model": {"en": "The translator's files are missing ({files}): run "
                              "`python -m selfattn.translate.train` first.",
                        "zh": "翻译器的文件缺失（{files}）：请先运行 `python -m selfattn.translate.train`。"},
}
