"""UI strings: the Sentence embeddings page, and the errors of the embedding sources."""

STRINGS: dict[str, dict[str, str]] = {
    "emb.title": {"en": "Sentence embeddings: from vectors to attention", "zh": "句子嵌入：从向量到注意力"},
    "emb.intro": {
        "en": "Type a sentence. First see it as a matrix $X$ with one row per token and the raw form "
              "$\\mathrm{Softmax}(XX^\\top/\\sqrt d)X$, where every token mixes in the tokens it is similar to. Then "
              "see what the attention heads of a real pretrained model do with the same sentence.",
        "zh": "输入一句话。先把它看成矩阵 $X$（每个词元一行），看最朴素的形式 $\\mathrm{Softmax}(XX^\\top/\\sqrt d)X$："
              "每个词元都按相似度把其他词元的向量混合进来。再看真实预训练模型的注意力头如何处理同一句话。",
    },
    "emb.mode": {"en": "Mode", "zh": "模式"},
    "emb.mode_single": {"en": "One sentence", "zh": "一句话"},
    "emb.mode_pair": {"en": "Sentence and translation", "zh": "原句与译文对照"},
    "emb.presets": {"en": "Try one of these, or type your own:", "zh": "试试下面的句子，或者自己输入："},
    "emb.pairs": {"en": "Pick a pair, or type both sentences:", "zh": "选一组句子，或者自己输入两句："},
    "emb.text": {"en": "Sentence", "zh": "句子"},
    "emb.text_help": {"en": "Chinese, English or both; up to {chars} characters (the first {tokens} tokens are shown).",
                      "zh": "中文、英文或混合均可；最多 {chars} 个字符（显示前 {tokens} 个词元）。"},
    "emb.text_placeholder": {"en": "Type a sentence", "zh": "输入一句话"},
    "emb.model_placeholder": {"en": "bert-base-chinese or a folder path", "zh": "例如 `bert-base-chinese`，或文件夹路径"},
    "emb.text_a": {"en": "Sentence", "zh": "原句"},
    "emb.text_b": {"en": "Translation", "zh": "译文"},
    "emb.source_pick": {"en": "Vectors from", "zh": "向量来源"},
    "emb.source_help": {
        "en": "Automatic: Chinese text uses the character vectors, other text the bundled MiniLM model.",
        "zh": "自动：含中文的文本使用汉字向量，其他文本使用内置的 MiniLM 模型。",
    },
    # One label per source of selfattn.text.sources.REGISTRY (its ``label``; ``vectors_label`` names its vectors).
    "emb.source_auto": {"en": "Automatic (by script)", "zh": "自动（按文字）"},
    "emb.source_charvec": {"en": "Chinese character vectors (from jieba's word list)", "zh": "汉字向量（由 jieba 词表构建）"},
    "emb.source_minilm": {"en": "MiniLM (English, bundled)", "zh": "MiniLM（英文，内置）"},
    "emb.source_hf": {"en": "A Hugging Face BERT model", "zh": "Hugging Face 上的 BERT 模型"},
    "emb.model": {"en": "Model", "zh": "模型"},
    "emb.model_help": {
        "en": "A Hugging Face model id (e.g. `bert-base-chinese`, also known as `google-bert/bert-base-chinese`) or "
              "a local folder with `config.json` and .safetensors weights. A model on this machine loads without "
              "the network. One that is not is downloaded from the model hub only when you click its download "
              "button (once: config, tokenizer and .safetensors weights, never code); nothing is fetched by itself.",
        "zh": "Hugging Face 模型标识（如 `bert-base-chinese`，也写作 `google-bert/bert-base-chinese`），或包含 "
              "`config.json` 与 .safetensors 权重的本地文件夹。本机已有的模型无需联网即可载入；本机没有的模型，只有在你点击"
              "它的下载按钮时才会从模型仓库下载（只需一次：配置、分词器和 .safetensors 权重，从不下载代码）；本应用不会自行联网。",
    },
    "emb.model_help_hosted": {
        "en": "The models this demo offers. Only the models installed on this server open; nothing is downloaded.",
        "zh": "此演示提供的模型。只能打开本服务器上已安装的模型，不会下载任何东西。",
    },
    "emb.model_help_hosted_download": {
        "en": "The models this demo offers. One that is not installed on this server yet is downloaded from the "
              "model hub only when you click its download button (once: .safetensors weights, never code).",
        "zh": "此演示提供的模型。本服务器上还没有安装的模型，只有在你点击它的下载按钮时才会从模型仓库下载"
              "（只需一次：.safetensors 权重，从不下载代码）。",
    },
    "emb.kind": {"en": "Vectors", "zh": "向量种类"},
    "emb.kind_static": {"en": "Static", "zh": "静态向量"},
    "emb.kind_contextual": {"en": "Contextual", "zh": "上下文向量"},
    "emb.kind_help": {
        "en": "Static: the model's token-embedding table (the same vector in every sentence). "
              "Contextual: the hidden states after the last layer. Character vectors are static only.",
        "zh": "静态向量：模型的词元嵌入表（在任何句子中都相同）。上下文向量：最后一层之后的隐藏状态。"
              "汉字向量只有静态的。",
    },
    "emb.dims": {"en": "Dimensions shown", "zh": "显示的维度数"},
    "emb.dims_help": {"en": "X and the output are wide (64 or 384 columns); the first k are drawn. "
                            "The CSV has them all.",
                      "zh": "$X$ 和输出很宽（64 或 384 列），这里只画前 k 列；CSV 中包含全部列。"},
    "emb.part_raw": {"en": "The sentence as vectors and attention", "zh": "句子的向量与注意力"},
    "emb.part_model": {"en": "A pretrained model's heads", "zh": "预训练模型的注意力头"},
    "emb.part_order": {"en": "Same words, another order", "zh": "同样的词，换个顺序"},
    "emb.raw_header": {"en": "1 · The raw form: {formula}", "zh": "1 · 最朴素的形式：{formula}"},
    # The raw form as KaTeX, with and without the ÷√d toggle; ``tail`` is "X" for the output, "" for the weights.
    "emb.softmax_scaled": {"en": r"$\mathrm{{Softmax}}(XX^\top/\sqrt{{{d}}}){tail}$",
                           "zh": r"$\mathrm{{Softmax}}(XX^\top/\sqrt{{{d}}}){tail}$"},
    "emb.softmax_raw": {"en": r"$\mathrm{{Softmax}}(XX^\top){tail}$", "zh": r"$\mathrm{{Softmax}}(XX^\top){tail}$"},
    "emb.raw_intro": {
        "en": "$XX^\\top$ holds the dot product of every pair of token vectors: large when two vectors point the same "
              "way and are long. The softmax turns each row into weights that add up to 1, and multiplying by $X$ "
              "replaces each token by a weighted mix of all tokens. Dividing by $\\sqrt d$ tames scores that grow "
              "with the dimension $d$, but not scores that grow with the vectors' length: long vectors make the "
              "softmax one-hot, every token attending only to itself. Unit length (the default) divides each row "
              "of $X$ by its length, so that $XX^\\top$ becomes the cosine similarity, between −1 and 1.",
        "zh": "$XX^\\top$ 保存了每两个词元向量的点积：方向越接近、向量越长，点积越大。softmax 把每一行变成和为 1 的权重，"
              "再乘以 $X$，就把每个词元替换成所有词元的加权混合。除以 $\\sqrt d$ 可以抑制随维度 $d$ 增长的分数，却抑制不了随向量"
              "长度增长的分数：向量很长时 softmax 几乎是独热的，每个词元只关注它自己。默认的“单位长度”把 $X$ 的每一行除以它的"
              "长度，于是 $XX^\\top$ 就成了余弦相似度，介于 −1 和 1 之间。",
    },
    # What the raw form does to the vectors on the page (selfattn.text.rawform.raw_facts), then the toggles' state.
    "emb.raw_facts": {
        "en": "**These vectors:** {vectors}, $d = {d}$; their rows are {shortest:.3g} to {longest:.3g} long. As they "
              "are, the largest entry of $XX^\\top$ is {top:.4g}; $\\div\\sqrt{{{d}}} = \\div {root:.4g}$ brings it to "
              "{top_scaled:.4g}, and $\\mathrm{{Softmax}}(XX^\\top/\\sqrt{{{d}}})$ then keeps on average {raw_self:.1%} of "
              "each token's weight on the token itself.",
        "zh": "**这些向量**：{vectors}，$d = {d}$；各行长度在 {shortest:.3g} 到 {longest:.3g} 之间。不做处理时，$XX^\\top$ "
              "的最大元素是 {top:.4g}；$\\div\\sqrt{{{d}}} = \\div {root:.4g}$ 之后为 {top_scaled:.4g}，"
              "$\\mathrm{{Softmax}}(XX^\\top/\\sqrt{{{d}}})$ 平均把每个词元 {raw_self:.1%} 的权重留给它自己。",
    },
    "emb.raw_unit_on": {"en": "Unit length is on: $XX^\\top$ is the cosine similarity, drawn once below.",
                        "zh": "“单位长度”已打开：$XX^\\top$ 就是余弦相似度，下面只画一次。"},
    "emb.raw_unit_off": {"en": "Unit length is off: $X$ keeps its lengths, and $XX^\\top$ and the cosine similarity "
                               "are two different maps.",
                         "zh": "“单位长度”已关闭：$X$ 保留原来的长度，$XX^\\top$ 与余弦相似度是两张不同的图。"},
    "emb.raw_scale_on": {"en": "The scores are divided by $\\sqrt{{{d}}} = {root:.4g}$. In the map drawn, each token "
                               "keeps on average {self:.1%} of its weight on itself.",
                         "zh": "分数除以 $\\sqrt{{{d}}} = {root:.4g}$。在画出的图中，每个词元平均把 {self:.1%} 的权重留给自己。"},
    "emb.raw_scale_off": {"en": "The scores are not divided by $\\sqrt d$ (÷√d is off). In the map drawn, each token "
                                "keeps on average {self:.1%} of its weight on itself.",
                          "zh": "分数没有除以 $\\sqrt d$（“除以 √d”已关闭）。在画出的图中，每个词元平均把 {self:.1%} 的权重留给自己。"},
    "emb.tokens": {"en": "Tokens", "zh": "词元数"},
    "emb.dim": {"en": "Dimension d", "zh": "维度 d"},
    "emb.coverage": {"en": "Coverage", "zh": "覆盖率"},
    "emb.coverage_help": {"en": "Share of tokens the source has a real vector for.",
                          "zh": "来源中有真实向量的词元所占的比例。"},
    "emb.vectors_caption": {"en": "Vectors: {model}", "zh": "向量：{model}"},
    "emb.charvec_name": {"en": "64-d PPMI-SVD character vectors built from jieba's word list",
                         "zh": "由 jieba 词表构建的 64 维 PPMI-SVD 汉字向量"},
    "emb.scale": {"en": "÷ √d", "zh": "除以 √d"},
    "emb.scale_help": {"en": "Divide $XX^\\top$ by $\\sqrt d$ before the softmax. Off: the rawest form "
                             "$\\mathrm{Softmax}(XX^\\top)X$.",
                       "zh": "在 softmax 之前把 $XX^\\top$ 除以 $\\sqrt d$。关闭即为最朴素的 $\\mathrm{Softmax}(XX^\\top)X$。"},
    "emb.unit": {"en": "Unit length", "zh": "单位长度"},
    "emb.unit_help": {
        "en": "Scale every token vector to length 1, so $XX^\\top$ becomes the cosine similarity. Long vectors "
              "make the softmax nearly one-hot: each token attends only to itself.",
        "zh": "把每个词元向量缩放到长度 1，这样 $XX^\\top$ 就是余弦相似度。向量很长时 softmax 几乎是独热的："
              "每个词元只关注它自己。",
    },
    "emb.unknown_charvec": {
        "en": "No character vector for: {tokens}. Known: {known} of {n}; the others are drawn as zero vectors.",
        "zh": "以下词元没有汉字向量：{tokens}。已知 {known}/{n}；其余以零向量表示。",
    },
    "emb.unknown_model": {
        "en": "{name} does not know: {tokens}. Known: {known} of {n} tokens, not counting [CLS] and [SEP]; "
              "the others became the token [UNK] (“unknown”) and all share one vector.",
        "zh": "{name} 不认识：{tokens}。已知 {known}/{n} 个词元（不计 [CLS] 和 [SEP]）；其余都变成了 [UNK]（“未知”）"
              "词元，共用同一个向量。",
    },
    "emb.unknown_chinese": {
        "en": "This model was trained on English and lacks most Chinese characters. For Chinese, choose "
              "“{hf}” under “{pick}” and a Chinese model such as `bert-base-chinese`.",
        "zh": "这个模型是用英文训练的，词表里缺少大部分汉字。处理中文时，请在“{pick}”中选择“{hf}”，"
              "并使用中文模型，例如 `bert-base-chinese`。",
    },
    "emb.n_layers": {"en": "{n} layers", "zh": "{n} 层"},
    "emb.n_layers_one": {"en": "{n} layer", "zh": "{n} 层"},
    "emb.n_heads": {"en": "{n} heads", "zh": "{n} 个头"},
    "emb.n_heads_one": {"en": "{n} head", "zh": "{n} 个头"},
    "emb.truncated": {"en": "The text was cut to its first {n} tokens.", "zh": "文本过长，只保留了前 {n} 个词元。"},
    "emb.truncated_model": {"en": "The text was cut to its first {n} tokens; the model adds [CLS] before them and "
                                  "[SEP] after.",
                            "zh": "文本过长，只保留了前 {n} 个词元；模型还会在前面加上 [CLS]、在后面加上 [SEP]。"},
    "emb.words": {"en": "jieba words: {words}", "zh": "jieba 分词：{words}"},
    "emb.words_more": {"en": "{words} … (+{more})", "zh": "{words} ……（另有 {more} 个）"},
    "emb.x_title": {"en": "$X$: token vectors (first {k} of {d} dimensions)", "zh": "$X$：词元向量（{d} 维中的前 {k} 维）"},
    "emb.xxt_title": {"en": "$XX^\\top$: dot products", "zh": "$XX^\\top$：点积"},
    "emb.xxt_cos_title": {"en": "$XX^\\top$ = cosine similarity (rows of length 1)",
                          "zh": "$XX^\\top$ = 余弦相似度（各行长度为 1）"},
    "emb.cos_title": {"en": "Cosine similarity", "zh": "余弦相似度"},
    "emb.weights_title": {"en": "{formula}: attention weights", "zh": "{formula}：注意力权重"},
    "emb.out_title": {"en": "Output {formula} (first {k} dimensions)", "zh": "输出 {formula}（前 {k} 维）"},
    "emb.shared_scale": {"en": "The two sentences' $XX^\\top$ maps share one colour scale (and so do their weights). "
                               "Their $X$ and outputs come from different vectors, so each has its own.",
                         "zh": "两句话的 $XX^\\top$ 图共用同一个颜色刻度（权重图也是）。它们的 $X$ 和输出来自不同的向量，"
                               "所以各用各的刻度。"},
    "emb.shared_scale_all": {"en": "The two sentences' maps of the same kind share one colour scale: one colour is one "
                                   "number in both.",
                             "zh": "两句话的同类图共用同一个颜色刻度：同一种颜色在两边代表同一个数。"},
    "emb.model_header": {"en": "2 · What a pretrained model's heads do", "zh": "2 · 预训练模型的注意力头在做什么"},
    "emb.model_intro": {
        "en": "A real model learns $W_q$, $W_k$ and $W_v$ for each head of each layer. Below is the attention of "
              "its heads on the sentence, exactly as the model returns it; for one head, the same map recomputed by "
              "this app from the layer's input and the head's weights is checked against it.",
        "zh": "真实模型为每一层的每个头学习各自的 $W_q$、$W_k$、$W_v$。下面是这些头对句子的注意力，"
              "与模型自己返回的结果完全一致；看单个头时，本应用还会根据该层输入和该头权重重新计算同一张图，并与之核对。",
    },
    "emb.model_used": {"en": "Model: **{name}**", "zh": "模型：**{name}**"},
    "emb.model_previous": {
        "en": "Model: **{name}**, the previous model, because {failed} could not be loaded.",
        "zh": "模型：**{name}**（沿用上一个模型，因为无法加载 {failed}）。",
    },
    "emb.model_kept_text": {"en": "Shown for the last good sentence: “{text}”.",
                            "zh": "下面显示的是上一个有效句子的结果：“{text}”。"},
    "emb.computing": {"en": "Computing the token vectors…", "zh": "正在计算词元向量……"},
    "emb.loading_model": {"en": "Loading {name}…", "zh": "正在加载 {name}……"},
    "emb.loaded_model": {"en": "Loaded {name}: {layers} × {heads}, d = {d}",
                         "zh": "已加载 {name}：{layers} × {heads}，d = {d}"},
    "emb.load_failed": {"en": "Could not load {name}", "zh": "无法加载 {name}"},
    "emb.layer": {"en": "Layer", "zh": "层"},
    "emb.layer_help": {"en": "Layers are numbered 1 to {L}, from the input upwards.",
                       "zh": "各层从输入往上依次编号为 1 到 {L}。"},
    "emb.head": {"en": "Head", "zh": "头"},
    "emb.head_help": {"en": "Heads are numbered 1 to {H}.", "zh": "各个头依次编号为 1 到 {H}。"},
    "emb.only_one": {"en": "{label}: 1 (the model has only one)", "zh": "{label}：1（模型只有一个）"},
    "emb.head_map": {"en": "Layer {layer}, head {head}: the model's own attention",
                     "zh": "第 {layer} 层第 {head} 个头：模型自己的注意力"},
    "emb.recomputed": {"en": "Max |recomputed − model|", "zh": "重算与模型之差的最大绝对值"},
    "emb.recomputed_help": {
        "en": "The same head recomputed with `selfattn.self_attention` (float64) from the layer input and "
              "the head's $W_q$, $W_k$, $W_v$ and biases. The model runs in float32, so differences of about "
              "1e-7 are rounding.",
        "zh": "用 `selfattn.self_attention`（float64）根据该层输入和该头的 $W_q$、$W_k$、$W_v$ 及偏置重新计算。"
              "模型以 float32 运行，因此约 1e-7 的差异来自舍入。",
    },
    "emb.recomputed_caption": {"en": "Scores are divided by $\\sqrt{{{d}}}$, the head's dimension.",
                               "zh": "分数除以 $\\sqrt{{{d}}}$（每个头的维度）。"},
    "emb.all_heads": {"en": "Every head of layer {layer}", "zh": "第 {layer} 层的所有头"},
    "emb.head_n": {"en": "head {h}", "zh": "头 {h}"},
    "emb.grid_cut": {"en": "Each map of the grid shows the first {k} of the {n} rows and columns (this demo draws "
                           "no more, to stay quick); the CSV below has them all, and the map above shows every one.",
                     "zh": "网格中的每张图只画出 {n} 行 {n} 列中的前 {k} 行 {k} 列（此演示为保持流畅不画更多）；下面的 CSV "
                           "包含全部，上面的图也画出了全部。"},
    "emb.static_fallback": {
        "en": "Character vectors have no context: a character has the same vector in every sentence, so the static "
              "ones are shown here. For contextual vectors of Chinese, choose “{hf}” under “{pick}” and a Chinese "
              "model such as `bert-base-chinese`.",
        "zh": "汉字向量没有上下文：一个字在任何句子中都是同一个向量，所以这里显示的是静态向量。要看中文的上下文向量，"
              "请在“{pick}”中选择“{hf}”，并使用中文模型，例如 `bert-base-chinese`。"},
    "emb.heads_of": {"en": "**“{text}”**", "zh": "**“{text}”**"},
    "emb.details_first": {"en": "The pattern grid, the head view and the maps of every head of the layer below are "
                                "of the first sentence, “{text}”; the map of the chosen heads shows both sentences.",
                          "zh": "下面的模式网格、头视图和该层所有头的小图都属于第一句话“{text}”；所选头的注意力图则两句都画出。"},
    "emb.details_read": {
        "en": "The pattern grid, the head view and the maps of every head of the layer below are of “{text}”, the "
              "sentence {name} reads: it knows {known} of its {n} tokens, against {other_known} of {other_n} in "
              "“{other}” (the rest became [UNK]). The map of the chosen heads shows both sentences.",
        "zh": "下面的模式网格、头视图和该层所有头的小图都属于“{text}”，这是 {name} 读得懂的一句：它认识其中 {n} 个词元里的 "
              "{known} 个，而“{other}”的 {other_n} 个词元里只认识 {other_known} 个（其余都变成了 [UNK]）。"
              "所选头的注意力图则两句都画出。"},
    "emb.grid_axes": {"en": "In each map: rows ↓ the tokens attending (queries), columns → the tokens attended to "
                            "(keys), in the order of the map above",
                      "zh": "每张小图：行 ↓ 是发出注意力的词元（查询），列 → 是被注意的词元（键），顺序与上面的图相同"},
    "emb.mostly_unknown": {
        "en": "{name} does not know most of this sentence: only {known} of its {n} tokens are in its vocabulary; "
              "the others ({tokens}) all became the same token [UNK] (“unknown”), with one shared vector. Its "
              "heads below mostly show [UNK] attending to [UNK], which says little about the sentence.",
        "zh": "{name} 不认识这句话的大部分内容：{n} 个词元中只有 {known} 个在它的词表里；其余的（{tokens}）都变成了同一个"
              "词元 [UNK]（“未知”），共用一个向量。下面的注意力头大多只是 [UNK] 在关注 [UNK]，说明不了这句话什么。"},
    "emb.chinese_path": {
        "en": "**For Chinese, what works:** part 1 uses the {charvec}, which know most common characters. "
              "For a real model's heads, use a model trained on Chinese.",
        "zh": "**处理中文，可以这样做**：第 1 部分使用{charvec}，常用汉字大多都有向量。要看真实模型的注意力头，"
              "请使用用中文训练的模型。"},
    "emb.chinese_path_pick": {
        "en": "**For Chinese, what works:** the {charvec} know most common characters: choose them under “{pick}” "
              "for part 1. For a real model's heads, use a model trained on Chinese.",
        "zh": "**处理中文，可以这样做**：{charvec}里常用汉字大多都有向量：在“{pick}”中选择它，用于第 1 部分。"
              "要看真实模型的注意力头，请使用用中文训练的模型。"},
    "emb.chinese_here": {"en": "`{name}` is on this machine and loads without the network.",
                         "zh": "本机已有 `{name}`，无需联网即可载入。"},
    "emb.chinese_download": {
        "en": "`{name}` is not on this machine yet. Choosing it offers its download (once: about {size} of "
              ".safetensors weights, some {fast} s at 10 MB/s or {slow} min at 1 MB/s); nothing is fetched before you "
              "click its download button.",
        "zh": "本机还没有 `{name}`。选择它之后会提供下载（只需一次：约 {size} 的 .safetensors 权重，按每秒 10 MB 约需 {fast} 秒，"
              "按每秒 1 MB 约需 {slow} 分钟）；在你点击下载按钮之前不会下载任何东西。"},
    "emb.chinese_none": {
        "en": "A Chinese model such as `{name}` is not on this server, and downloading models is switched off here, "
              "so this page cannot show a Chinese model's heads. The character vectors of part 1 are what works.",
        "zh": "此服务器上没有中文模型（例如 `{name}`），而这里已关闭模型下载，所以本页无法显示中文模型的注意力头。"
              "第 1 部分的汉字向量可以正常使用。"},
    "emb.use_chinese": {"en": "Use {name}", "zh": "改用 {name}"},
    "emb.chinese_prefetch": {
        "en": "It can also be installed beforehand where this app runs: `python -m selfattn.text.prefetch "
              "bert-base-chinese`. Where the model hub cannot be reached, set `HF_ENDPOINT` to a mirror of it, "
              "such as `https://hf-mirror.com`.",
        "zh": "也可以事先在运行本应用的机器上安装：`python -m selfattn.text.prefetch bert-base-chinese`。"
              "连不上模型仓库时，把 `HF_ENDPOINT` 设为它的镜像地址，例如 `https://hf-mirror.com`。"},
    "emb.qkv": {"en": "Queries, keys and values of layer {layer}, head {head}",
                "zh": "第 {layer} 层第 {head} 个头的查询、键和值"},
    "emb.first_columns": {"en": "first {k} columns shown; the CSV has all {d}",
                          "zh": "只画出前 {k} 列；CSV 中包含全部 {d} 列"},
    # Errors of the embedding sources and model loading (selfattn.text.embeddings / sources / models / charvec).
    "err.not_text": {"en": "The text must be a string.", "zh": "文本必须是字符串。"},
    "err.empty_text": {"en": "The sentence is empty. Type a few words.", "zh": "句子是空的，请输入几个字。"},
    "err.only_punctuation": {"en": "The sentence has no letters, digits or characters, only punctuation or symbols.",
                             "zh": "这句话里只有标点或符号，没有文字或数字。"},
    "err.bad_source": {"en": "Unknown source {source}; choose one of {choices}.", "zh": "未知的来源 {source}；请选择 {choices}。"},
    "err.bad_kind": {"en": "Vectors must be static or contextual, not {kind}.", "zh": "向量类型必须是静态或上下文，而不是 {kind}。"},
    "err.bad_max_tokens": {"en": "The token limit must be a whole number of at least 1, not {value}.",
                           "zh": "词元上限必须是不小于 1 的整数，而不是 {value}。"},
    "err.static_only": {"en": "Character vectors (used for Chinese text) are static only: a character has the same "
                              "vector in every sentence. Choose “Static”, or a model under “Vectors from”.",
                        "zh": "汉字向量（用于中文文本）只有静态的：一个字在任何句子中都是同一个向量。"
                              "请选择“静态”，或在“向量来源”中选择一个模型。"},
    "err.model_required": {"en": "Type a model id or folder.", "zh": "请输入模型 id 或文件夹。"},
    "err.layer_out_of_range": {"en": "There is no layer {layer}: the model's layers are numbered 1 to {max_layer}.",
                               "zh": "没有第 {layer} 层：该模型的层编号为 1 到 {max_layer}。"},
    "err.head_out_of_range": {"en": "There is no head {head}: the heads are numbered 1 to {max_head}.",
                              "zh": "没有第 {head} 个头：各个头的编号为 1 到 {max_head}。"},
    "err.hidden_layer_out_of_range": {
        "en": "There is no hidden state {layer}: choose 0 (the embedding layer's output) to {max_layer} (the last "
              "layer's output).",
        "zh": "没有第 {layer} 个隐藏状态：可选 0（嵌入层的输出）到 {max_layer}（最后一层的输出）。",
    },
    "err.empty_model_name": {"en": "Type a model id or folder.", "zh": "请输入模型 id 或文件夹。"},
    "err.bad_model_name": {"en": "“{name}” is not a valid model id or folder.", "zh": "“{name}”不是有效的模型 id 或文件夹。"},
    "err.not_allowed_hosted": {"en": "{name} is not offered in this hosted demo. Choose one of: {allowed}.",
                               "zh": "此在线演示不提供 {name}。可选：{allowed}。"},
    "err.offline": {"en": "The model “{name}” is not on this machine yet. Download it below (once; it then works "
                          "offline), check the model id for typos, or type the path of a local folder that holds "
                          "`config.json` and .safetensors weights.",
                    "zh": "本机还没有模型“{name}”。可在下方下载（只需一次，之后离线可用），或检查模型标识是否拼写正确，"
                          "或填写一个包含 `config.json` 和 .safetensors 权重的本地文件夹路径。"},
    "err.offline_hosted": {"en": "The model “{name}” is not installed on this server yet. Download it below (once; "
                                 "it then loads from this server), or choose another model.",
                           "zh": "此服务器上还没有安装模型“{name}”。可在下方下载（只需一次，之后从本服务器载入），"
                                 "或选择其他模型。"},
    "err.only_installed": {"en": "This demo offers only the models already installed on this server, and “{name}” "
                                 "is not one of them. Choose another model.",
                           "zh": "此演示只提供本服务器上已安装的模型，“{name}”不在其中。请选择其他模型。"},
    # One answer for every path that is not a loadable model folder, so that the box cannot be used
    # to find out which files or folders exist on the server.
    **{f"err.{code}": {
        "en": "{path} is not a model folder this app can load: it needs a folder holding `config.json` and "
              ".safetensors weights (pickle files are never loaded, as they can run code).",
        "zh": "{path} 不是本应用能载入的模型文件夹：需要一个包含 `config.json` 和 .safetensors 权重的文件夹"
              "（pickle 文件可能执行代码，从不载入）。"} for code in ("model_not_found", "not_a_folder", "no_config",
                                                        "no_safetensors")},
    "err.download_incomplete": {"en": "The copy of “{name}” on this machine is incomplete: a download was cut off. "
                                      "Download it again.",
                                "zh": "本机上的“{name}”不完整：上次下载被中断了。请重新下载。"},
    "err.downloads_off": {"en": "“{name}” is not on this machine, and downloading models is switched off here.",
                          "zh": "本机没有“{name}”，而此处已关闭模型下载。"},
    "err.hub_not_found": {"en": "“{name}” was not found on the model hub (or it is private or gated). Check the "
                                "model id.",
                          "zh": "在模型仓库中找不到“{name}”（也可能是私有或受限的模型）。请检查模型 id。"},
    "err.hub_unreachable": {"en": "The model could not be downloaded: this server cannot reach the model hub.",
                            "zh": "无法下载该模型：此服务器连不上模型仓库。"},
    "err.hub_no_safetensors": {"en": "“{name}” has no .safetensors weights; pickle weights (`.bin`) are never "
                                     "downloaded, because loading them can run code.",
                               "zh": "“{name}”没有 .safetensors 权重；pickle 权重（`.bin`）载入时可能执行代码，因此从不下载。"},
    "err.hub_missing_files": {"en": "“{name}” lacks {files}, so this app cannot load it.",
                              "zh": "“{name}”缺少 {files}，本应用无法加载。"},
    "err.download_failed": {"en": "Downloading “{name}” did not finish: the model hub broke off or refused the "
                                  "transfer. Nothing half-written was kept; try again later.",
                            "zh": "“{name}”没有下载完：模型仓库中断或拒绝了传输。没有保留写了一半的文件，请稍后重试。"},
    "err.model_load_failed": {"en": "“{name}” could not be loaded: its files do not form a model this app can "
                                    "read. A model folder needs `config.json`, the tokenizer's files (such as "
                                    "`vocab.txt` or `tokenizer.json`) and .safetensors weights.",
                              "zh": "无法加载“{name}”：其中的文件不能组成本应用可读取的模型。模型文件夹需要 "
                                    "`config.json`、分词器文件（如 `vocab.txt` 或 `tokenizer.json`）和 .safetensors 权重。"},
    "err.unsupported_model": {"en": "{name} is a {model_type} model; this page supports BERT-family encoders.",
                              "zh": "{name} 是 {model_type} 模型；本页只支持 BERT 系列编码器。"},
    "err.no_tokens": {"en": "The model found no tokens in this text.", "zh": "模型在这段文本中没有找到任何词元。"},
    "err.not_one_char": {"en": "“{text}” is not a single character.", "zh": "“{text}”不是单个汉字。"},
    "err.bad_k": {"en": "The number of neighbours must be at least 1, not {k}.", "zh": "近邻个数必须至少为 1，而不是 {k}。"},
    "err.char_not_in_table": {"en": "“{char}” has no character vector.", "zh": "“{char}”没有汉字向量。"},
    # ── Reading the heads (ui/embeddings/readout.py) ──
    "emb.units": {"en": "Show attention between", "zh": "注意力的单位"},
    "emb.units_tokens": {"en": "Tokens", "zh": "词元"},
    "emb.units_words": {"en": "Words", "zh": "词"},
    "emb.units_help": {"en": "Words join WordPiece pieces (##…), a word split at an apostrophe or hyphen (didn't, "
                             "state-of-the-art) and, for Chinese, characters into jieba's words. A word's row averages "
                             "the rows of its pieces and its column sums theirs (Clark et al. 2019), so every row "
                             "still sums to 1. Pieces the model does not know are labelled [UNK], as it sees them.",
                       "zh": "“词”把 WordPiece 片段（##…）合并，也把在撇号或连字符处被拆开的英文词（`didn't`、`state-of-the-art`）"
                             "合回一个词，中文则按 jieba 分词把字合成词。一个词的行是其片段各行的平均，列是其片段各列之和"
                             "（Clark 等，2019），所以每行仍然加起来等于 1。模型不认识的片段按它看到的样子标为 [UNK]。"},
    "emb.view": {"en": "Map", "zh": "要看的注意力图"},
    "emb.view_head": {"en": "One head", "zh": "单个头"},
    "emb.view_mean": {"en": "Mean of the layer's heads", "zh": "该层各头的平均"},
    "emb.view_max": {"en": "Max of the layer's heads", "zh": "该层各头的最大值"},
    "emb.view_rollout": {"en": "Rollout over all layers", "zh": "跨所有层的逐层累积"},
    "emb.view_help": {"en": "Rollout (Abnar & Zuidema 2020) follows attention up through the layers: each layer's "
                            "heads are averaged, the residual connection is added as $0.5I$, rows are made to sum to 1, "
                            "and the layers are multiplied from the first up. The max of the heads is no distribution: "
                            "its rows need not sum to 1.",
                      "zh": "逐层累积（Abnar 与 Zuidema，2020）沿层向上追踪注意力：每层先对各头取平均，再加上代表残差连接的 "
                            "$0.5I$，每行归一化为 1，然后从第一层起逐层相乘。各头的最大值不是概率分布，其行之和不一定为 1。"},
    "emb.map_mean": {"en": "Layer {layer}: the mean of its {h} heads", "zh": "第 {layer} 层：{h} 个头的平均"},
    "emb.map_max": {"en": "Layer {layer}: the max of its {h} heads", "zh": "第 {layer} 层：{h} 个头的最大值"},
    "emb.map_rollout": {"en": "Attention rollout through all {L} layers", "zh": "贯穿全部 {L} 层的注意力逐层累积"},
    "emb.patterns_title": {"en": "What each head does", "zh": "每个头在做什么"},
    "emb.patterns_help": {"en": "Each cell is one head, coloured by where its rows put most of their weight (averaged "
                                "over the sentence's own tokens; paler = less). Click a cell: its map, its check and its "
                                "head view appear just below.",
                          "zh": "每个格子是一个头，颜色表示它的各行把大部分权重放在哪里（对句子自身的词元取平均；越浅越弱）。"
                                "点击格子，它的注意力图、核对结果和头视图就显示在紧下方。"},
    "emb.pattern_legend": {"en": "Pattern", "zh": "模式"},
    "emb.pattern_mass": {"en": "weight on it", "zh": "其上的权重"},
    "emb.pattern_previous": {"en": "previous token", "zh": "前一个词元"},
    "emb.pattern_next": {"en": "next token", "zh": "后一个词元"},
    "emb.pattern_self": {"en": "itself", "zh": "自身"},
    "emb.pattern_first": {"en": "[CLS]", "zh": "[CLS]"},
    "emb.pattern_last": {"en": "[SEP]", "zh": "[SEP]"},
    "emb.pattern_broad": {"en": "broad", "zh": "分散"},
    "emb.pattern_mixed": {"en": "mixed", "zh": "混合"},
    "emb.patterns_read": {
        "en": "**What to look for.** *Previous / next token*: the head reads the neighbour; it tracks word order "
              "(a diagonal just off the middle in its map). *Itself*: the diagonal. *[CLS] / [SEP]*: most weight "
              "parked on a special token, which often means \"nothing to do here\" (Clark et al. 2019). *Broad*: "
              "weight spread over the sentence, like an average (a bag-of-words view). *Mixed*: none of these "
              "above half: look at its map and head view, where the interesting heads (from “it” to “animal”) hide.",
        "zh": "**如何解读**：*前一个/后一个词元*：这个头读取相邻的词元，记录词序（图中紧挨对角线的一条斜线）。*自身*：对角线。"
              "*[CLS]/[SEP]*：大部分权重停在特殊词元上，常常表示“这里没事可做”（Clark 等，2019）。*分散*：权重铺满整句，"
              "像是求平均（词袋式的视角）。*混合*：以上都不过半：去看它的图和头视图，有趣的头（例如从代词指向它所指的名词）往往藏在这里。"},
    "emb.headview_title": {"en": "Head view: layer {layer}, head {head}", "zh": "头视图：第 {layer} 层第 {head} 个头"},
    "emb.headview_help": {"en": "Left: the tokens attending; right: the tokens attended to. A line's strength is the "
                                "weight (lines under 0.01 are left out). Pick a token to see only its lines.",
                          "zh": "左边是发出注意力的词元，右边是被注意的词元。线条越深权重越大（小于 0.01 的不画）。"
                                "选择一个词元，只看它的连线。"},
    "emb.headview_pick": {"en": "Token", "zh": "词元"},
    "emb.headview_all": {"en": "all tokens", "zh": "全部词元"},
    "emb.patterns_csv": {"en": "Download the patterns (CSV)", "zh": "下载各头的模式（CSV）"},
    "emb.download_offer": {"en": "“{name}” can be downloaded from the model hub: config, tokenizer and .safetensors "
                                 "weights (no code; a base model is about 400 MB). Nothing is fetched until you "
                                 "click. It is kept in the Hugging Face cache and loads without the network "
                                 "afterwards.",
                           "zh": "可以从模型仓库下载“{name}”：配置、分词器和 .safetensors 权重（不含代码；基础模型约 400 MB）。"
                                 "点击之前不会下载任何东西。下载后存放在 Hugging Face 缓存中，之后无需联网即可载入。"},
    "emb.download_offer_sized": {
        "en": "“{name}” can be downloaded from the model hub: config, tokenizer and .safetensors weights (no code; "
              "about {size}, some {fast} s at 10 MB/s or {slow} min at 1 MB/s). Nothing is fetched until you click. "
              "It is kept in the Hugging Face cache and loads without the network afterwards.",
        "zh": "可以从模型仓库下载“{name}”：配置、分词器和 .safetensors 权重（不含代码；约 {size}，按每秒 10 MB 约需 {fast} 秒，"
              "按每秒 1 MB 约需 {slow} 分钟）。点击之前不会下载任何东西。下载后存放在 Hugging Face 缓存中，之后无需联网即可载入。"},
    "emb.download_button": {"en": "Download {name}", "zh": "下载 {name}"},
    "emb.download_asking": {"en": "Asking the model hub for the files of {name}…", "zh": "正在向模型仓库查询 {name} 的文件……"},
    "emb.downloading": {"en": "Downloading {name}: {done} of {total}", "zh": "正在下载 {name}：{done} / {total}"},
}

# ── Issue 24: order and positions ──
STRINGS.update({
    "emb.order_header": {"en": "3 · Same words, another order", "zh": "3 · 同样的词，换个顺序"},
    "emb.order_intro": {
        "en": "狗咬人 (dog bites man) and 人咬狗 (man bites dog) are the same three characters with opposite meanings. "
              "Here both sentences go through Softmax(XXᵀ/√d)X as in part 1, twice: with static vectors, the same "
              "for a token wherever it stands, and with a model's contextual vectors, which come out of a model that "
              "added a position vector to every token at its input. If attention saw only the tokens, the second "
              "sentence's map would be the first's with its rows and columns moved.",
        "zh": "狗咬人和人咬狗是同样的三个字，意思却相反。这里两句话都像第 1 部分那样经过 Softmax(XXᵀ/√d)X，"
              "各算两次：一次用静态向量，同一个词元无论在哪里向量都相同；一次用模型的上下文向量，模型在输入处给"
              "每个词元加上了位置向量。如果注意力只看词元本身，第二句的热力图就只是把第一句的行和列换了位置。"},
    "emb.order_first": {"en": "First sentence", "zh": "第一句"},
    "emb.order_second": {"en": "Second sentence: the same words in another order", "zh": "第二句：同样的词或字，换个顺序"},
    "emb.order_text_help": {
        "en": "Up to {n} tokens. Both sentences must be the same words or characters, each as many times, in "
              "another order.",
        "zh": "最多 {n} 个词元。两句话必须由同样的词或字组成，每个出现的次数也相同，只是顺序不同。"},
    "emb.order_static_title": {"en": "Static vectors: {name}", "zh": "静态向量：{name}"},
    "emb.order_contextual_title": {"en": "Contextual vectors: {name}, layer {layer}",
                                   "zh": "上下文向量：{name}，第 {layer} 层"},
    "emb.order_static_why": {
        "en": "Static: a lookup table, one vector per token, whatever its place. Another order only moves the rows "
              "of X, $X' = PX$, so self-attention gives the same weights, moved: $A' = PAP^\\top$.",
        "zh": "静态向量是一张查找表：每个词元一个向量，与它的位置无关。换个顺序只是移动 X 的行，$X' = PX$，"
              "所以自注意力给出同样的权重，只是换了位置：$A' = PAP^\\top$。"},
    "emb.order_contextual_why": {
        "en": "Contextual: {name}'s hidden states after its last layer. The model added a position embedding to each "
              "token before its first layer, and every layer mixed the tokens, so the same token gets another "
              "vector in another place.",
        "zh": "上下文向量：{name} 最后一层输出的隐藏状态。模型在第一层之前给每个词元加上了位置向量，每一层又把"
              "各个词元混合在一起，所以同一个词元换了位置就得到另一个向量。"},
    "emb.order_unknown": {
        "en": "{name} has no vector of its own for {tokens}: it reads it as the unknown token [UNK]. Here [UNK] stands "
              "for one and the same text only, so the comparison below still holds.",
        "zh": "{name} 里没有 {tokens} 自己的向量：它被读成未知词元 [UNK]。这里 [UNK] 只代表同一段文字，"
              "所以下面的比较仍然成立。"},
    "emb.order_perm": {
        "en": "Matched by the text you typed, the second sentence is the first's tokens in the order **{order}** (its "
              "token r is the first's token numbered r-th here): that is the permutation $P$.",
        "zh": "按你输入的文字对应，第二句是第一句的词元按 **{order}** 重新排列（第二句的第 r 个词元是这里第 r 个编号"
              "所指的第一句词元）：这就是置换 $P$。"},
    # Vectors that read two different texts as one token (MiniLM: 狗 and 咬 both [UNK]) cannot show the lesson.
    "emb.order_merged_item": {"en": "{texts} as one and the same token, {token}",
                              "zh": "把{texts}都读成同一个词元 {token}"},
    "emb.order_and": {"en": " and ", "zh": "和"},
    "emb.order_merged_sep": {"en": "; ", "zh": "；"},
    "emb.order_cannot": {
        "en": "**{name} cannot show this for this pair.** It reads {merged}: it cannot tell them apart. To it the "
              "two sentences are not the same tokens in another order, so comparing its attention would teach "
              "nothing about order.",
        "zh": "**{name} 无法用这一对句子展示这一点。**它{merged}，分不清它们。在它看来，这两句话并不是同样的词元换了顺序，"
              "所以比较它的注意力说明不了顺序的作用。"},
    "emb.order_instead": {
        "en": "{could_not} cannot show this for this pair: it reads {merged}, and cannot tell them apart. The static "
              "vectors here are the {name} instead, which tell them apart.",
        "zh": "{could_not} 无法用这一对句子展示这一点：它{merged}，分不清它们。所以这里的静态向量改用{name}，"
              "它们能区分这些字。"},
    "emb.order_chinese_lead": {
        "en": "**To see it in Chinese:** the static vectors above are the {charvec}, which tell these characters "
              "apart. For contextual vectors, use a model trained on Chinese.",
        "zh": "**想用中文看到这一点**：上面的静态向量是{charvec}，能区分这些字。要看上下文向量，请使用用中文训练的模型。"},
    "emb.order_chinese_lead_model": {
        "en": "**To see it in Chinese:** use a model trained on Chinese, which has a vector of its own for each of "
              "these characters.",
        "zh": "**想用中文看到这一点**：请使用用中文训练的模型，在这种模型里，这些字各有自己的向量。"},
    "emb.order_fallback": {"en": "The model chosen above could not be loaded, so this view uses the installed vectors: "
                                 "jieba's character vectors for Chinese, MiniLM for the rest.",
                           "zh": "上面选择的模型无法加载，这里改用已安装的向量：中文用 jieba 字向量，其余用 MiniLM。"},
    "emb.order_moved": {"en": "The first, permuted: $PAP^\\top$", "zh": "第一句置换后：$PAP^\\top$"},
    "emb.order_weights": {"en": "Attention weights · “{text}”", "zh": "注意力权重 · “{text}”"},
    "emb.order_same": {
        "en": "Only moved: the second map is the first with its rows and columns permuted, $PAP^\\top$, to within "
              "{w}, and so are the outputs, to within {o}. These vectors carry no order, so attention over them "
              "cannot tell the two sentences apart.",
        "zh": "只是换了位置：第二张热力图就是第一张的行和列按 $PAP^\\top$ 置换后的结果，最多相差 {w}；输出也一样，"
              "最多相差 {o}。这些向量不含顺序，所以基于它们的注意力分不出这两句话。"},
    "emb.order_changed": {
        "en": "Not only moved: the second map differs from the first's permuted, $PAP^\\top$, by up to {w}, and the "
              "outputs by up to {o}. The vectors carry their positions, so the two orders read differently.",
        "zh": "不只是换了位置：第二张热力图与第一张置换后的 $PAP^\\top$ 最多相差 {w}，输出最多相差 {o}。"
              "这些向量带着位置信息，所以两种顺序读出来不一样。"},
    "emb.order_cosines": {
        "en": "Each token's vector in the second sentence against its vector in the first (cosine; 1 = the same "
              "vector): {items}",
        "zh": "第二句中每个词元的向量与它在第一句中的向量相比（余弦相似度；1 表示同一个向量）：{items}"},
    "emb.order_cos_item": {"en": "{label} {cos}", "zh": "{label} {cos}"},
    "err.order_not_same_tokens": {
        "en": "The two sentences are not the same words in another order: only in the first: {only_first}; only in "
              "the second: {only_second}. Use the same words or characters, each as many times, in another order.",
        "zh": "这两句话不是同样的词换了顺序：只在第一句中有 {only_first}；只在第二句中有 {only_second}。"
              "请用同样的词或字（每个出现的次数也相同），只换顺序。"},
    "err.order_too_many_tokens": {"en": "This view takes sentences of at most {top} tokens.",
                                  "zh": "这里的句子最多 {top} 个词元。"},
})
