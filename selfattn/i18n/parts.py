"""UI strings: a long page's parts (ui/parts.py): where a part sits in the whole, and the way to the next."""

STRINGS: dict[str, dict[str, str]] = {
    "parts.where": {"en": "Part {i} of {n}. The tabs at the top of the page open any part.",
                    "zh": "第 {i} 部分，共 {n} 部分。页面顶部的标签可打开任意部分。"},
    "parts.next": {"en": "Next part: {name}", "zh": "下一部分：{name}"},
    "parts.last": {"en": "The last of {n} parts. The tabs at the top of the page open any part.",
                   "zh": "这是 {n} 部分中的最后一部分。页面顶部的标签可打开任意部分。"},
    "parts.map": {"en": "Where you are: {parts}", "zh": "当前位置：{parts}"},
    "parts.first": {"en": "Back to the first part: {name}", "zh": "回到第一部分：{name}"},
}
