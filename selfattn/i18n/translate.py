"""UI strings: the translator trained here (selfattn.translate), its command line and its errors."""

STRINGS: dict[str, dict[str, str]] = {
    "tr.cli_description": {
        "en": "Translate a short Chinese sentence into English with the small translator trained in this project, "
              "computed on our own `numpy` core.",
        "zh": "用本项目训练的小翻译器把一句简短的中文译成英文，在我们自己的 `numpy` 核心上计算。",
    },
    "tr.cli_text": {"en": "the Chinese sentence, read character by character",
                    "zh": "要翻译的中文句子，逐字读取"},
    "tr.cli_json": {"en": "print JSON: `source`, `output`, `tokens`, `in_training` (whether it was trained on this "
                          "sentence), `cross_weights` and `torch_check`",
                    "zh": "输出 JSON：`source`（源字符）、`output`（译文）、`tokens`（生成的词元）、"
                          "`in_training`（训练时是否见过这句话）、`cross_weights`（交叉注意力）和 `torch_check`（与 PyTorch 核对）"},
    "tr.cli_new_sentence": {
        "en": "Warning: this sentence was not in its training set. It learned only {count} sentences; its answer for "
              "a new one is likely wrong.",
        "zh": "注意：这句话不在它的训练集中。它只学过 {count} 个句子，对没见过的句子，它的答案很可能是错的。"},
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
    # ── The Encoder–decoder page's translator source (ui/seq2seq/translator.py) ──────────────────────
    "tr.intro": {
        "en": "A small Transformer ({enc} encoder and {dec} decoder layers, d_model {d}, {h} heads) trained in this project in "
              "about {seconds} s on {pairs} Chinese–English sentence pairs, with no hint of which character goes "
              "with which word. Every number below is computed on our own core from its weights.",
        "zh": "一个小型 Transformer（{enc} 层编码器、{dec} 层解码器，d_model 为 {d}，{h} 个头），在本项目中用 {pairs} 对中英句子"
              "训练了约 {seconds} 秒，训练时从未告诉它哪个字对应哪个词。下面的每个数都由我们自己的核心根据它的权重算出。"},
    "tr.text": {"en": "Chinese to translate", "zh": "要翻译的中文"},
    "tr.text_help": {
        "en": "Read character by character. It knows greetings (早上好, 晚上好, 你好, 谢谢 …) and sentences such as "
              "狗咬人: any two of 狗 猫 人 鸟 鱼 马 with 咬 追 看 喜欢 怕 between them.",
        "zh": "逐字读取。它认识问候语（早上好、晚上好、你好、谢谢……）和“狗咬人”这样的句子："
              "狗、猫、人、鸟、鱼、马中的任意两个，中间是咬、追、看、喜欢、怕之一。"},
    "tr.trained_examples": {"en": "Sentences it was trained on: click one", "zh": "它训练时学过的句子：点一句试试"},
    "tr.held_examples": {"en": "Held out of training, to test it: it never saw these while learning",
                         "zh": "训练时特意留出、用来检验它的句子：学习时它从未见过"},
    "tr.kept": {
        "en": "Below is still the translation of “{sentence}”, the last sentence it could read, not of the text "
              "in the box.",
        "zh": "下面仍是它上一次能读的句子“{sentence}”的译文，不是框中文字的译文。"},
    "tr.output_title_of": {"en": "The translation of “{sentence}”", "zh": "“{sentence}”的译文"},
    "tr.left_out": {"en": "Punctuation left out, as its training sentences have none: {chars}",
                    "zh": "标点已略去，因为它的训练句子里没有标点：{chars}"},
    "tr.in_training": {"en": "This sentence was in its training set (one of the {count} sentences it learned).",
                       "zh": "这句话在它的训练集中（是它学过的 {count} 个句子之一）。"},
    "tr.held_out_right": {
        "en": "This sentence was held out of training, to test it: the model never saw it while learning its {count} "
              "sentences. The corpus translates it “{reference}”, and so does the model: it put together what it "
              "learned from other sentences.",
        "zh": "这句话是训练时特意留出、用来检验它的：模型学习那 {count} 个句子时从未见过它。语料里的译文是"
              "“{reference}”，模型写出的也是这样：它把从其他句子里学到的东西组合了起来。"},
    "tr.held_out_wrong": {
        "en": "This sentence was held out of training, to test it: the model never saw it while learning its {count} "
              "sentences. The corpus translates it “{reference}”; the model writes something else.",
        "zh": "这句话是训练时特意留出、用来检验它的：模型学习那 {count} 个句子时从未见过它。语料里的译文是"
              "“{reference}”，模型写出的却不同。"},
    "tr.not_in_training": {
        "en": "This sentence was not in its training set. The model learned only {count} sentences (the greetings "
              "and the sentences like 狗咬人 offered above); for a new one, even one made of characters it knows, its "
              "answer is likely wrong. The check against PyTorch below proves only that the arithmetic is the same, "
              "not that the translation is right.",
        "zh": "这句话不在它的训练集中。这个模型只学过 {count} 个句子（上面列出的问候语和“狗咬人”这类句子）；"
              "对一个新句子，哪怕每个字它都认识，它的答案也很可能是错的。下面与 PyTorch 的核对只证明计算结果相同，"
              "并不证明译文正确。"},
    "tr.source_line": {"en": "The encoder reads {n} characters: {chars}", "zh": "编码器读取 {n} 个字：{chars}"},
    "tr.source_line_one": {"en": "The encoder reads {n} character: {chars}", "zh": "编码器读取 {n} 个字：{chars}"},
    "tr.unfinished": {"en": "It stopped after {n} words without ending the sentence (the most it writes).",
                      "zh": "它写了 {n} 个词后停下，没有写出句子的结尾（这是它最多能写的词数）。"},
    "tr.gen_title": {"en": "③ Generation, one word at a time", "zh": "③ 自回归生成：一次写一个词"},
    "tr.gen_help": {
        "en": "At each step the decoder reads `<bos>` and the words written so far, its cross-attention reads the "
              "encoder's memory, and the output projection gives a score to every English word; greedy decoding "
              "writes the most likely one, which is read back at the next step. The last step writes `<eos>`: the end. "
              "A step computes one new row only: each layer keeps the keys and values of the rows before (the K/V "
              "cache) and adds this row's; the memory's keys and values are computed once, before the first step.",
        "zh": "每一步，解码器读取 `<bos>` 和已写出的词，它的交叉注意力读取编码器的记忆（编码器输出），"
              "输出投影给每个英文词打一个分数；贪心解码写下最可能的那个词，下一步再把它读回来。最后一步写出 "
              "`<eos>`：句子结束。每一步只计算一个新行：每一层保留之前各行的键和值（键值缓存），再加上这一行的；"
              "记忆的键和值只在第一步之前计算一次。"},
    "tr.step": {"en": "Step", "zh": "步"},
    "tr.step_option": {"en": "{t}: {word}", "zh": "{t}：{word}"},
    "tr.step_end": {"en": "end of sentence", "zh": "句子结束"},
    "tr.next_step": {"en": "Next step", "zh": "下一步"},
    "tr.play": {"en": "Play", "zh": "播放"},
    "tr.pause": {"en": "Pause", "zh": "暂停"},
    "tr.play_help": {
        "en": "Moves on one step about every second, and stops at the last step. A step only redraws: the translation "
              "and its checks are worked out once per sentence. On a busy server a step waits until the one before "
              "is drawn, so steps may come further apart than a second.",
        "zh": "大约每秒前进一步，到最后一步时停下。每一步只是重新绘制：译文和各项核对对每个句子只计算一次。"
              "服务器繁忙时，每一步要等上一步画完，所以两步之间可能超过一秒。"},
    "tr.step_title": {"en": "Step {t}: after {prefix}, the decoder writes “{word}”",
                      "zh": "第 {t} 步：读过 {prefix} 之后，解码器写出“{word}”"},
    "tr.step_cross_title": {"en": "Layer {layer}: this step's cross-attention",
                            "zh": "第 {layer} 层：这一步的交叉注意力"},
    "tr.step_cross_help": {
        "en": "The caches: one row per row of the decoder's input so far, the {h} heads' keys (or values) side by "
              "side. The new row's self-attention: one row per head, one column per cached row; nothing after it "
              "exists yet, so nothing needs masking. Its cross-attention: one row per head, one column per source "
              "character. Each row of weights sums to 1.",
        "zh": "缓存：解码器到目前为止的每个输入行各占一行，{h} 个头的键（或值）并排。新行的自注意力：每个头一行，"
              "每个已缓存的行一列；它之后的行还不存在，所以不需要掩码。它的交叉注意力：每个头一行，每个源字一列。"
              "每行权重之和为 1。"},
    "tr.step_self_title": {"en": "Layer {layer}: this row's self-attention", "zh": "第 {layer} 层：这一行的自注意力"},
    "tr.cache_k": {"en": "Layer {layer}: K cache ({h} heads side by side)", "zh": "第 {layer} 层：键缓存（{h} 个头并排）"},
    "tr.cache_v": {"en": "Layer {layer}: V cache ({h} heads side by side)", "zh": "第 {layer} 层：值缓存（{h} 个头并排）"},
    "tr.cache_new": {"en": "{token} (new)", "zh": "{token}（新）"},
    "tr.cache_rows": {"en": "Rows 1 … {old} were cached at earlier steps and are reused; row {new} is new.",
                      "zh": "第 1 … {old} 行在之前的步骤中已缓存，直接复用；第 {new} 行是新的。"},
    "tr.cache_first": {"en": "The first step: the cache starts with this row.", "zh": "第一步：缓存从这一行开始。"},
    "tr.cache_same": {
        "en": "Row by row, the cached steps equal the decoder run once over its whole input (the masked maps above): "
              "largest difference {diff}.",
        "zh": "逐行比较，带缓存的逐步计算与解码器一次读完整个输入（上面带掩码的图）的结果相同：最大差异 {diff}。"},
    "tr.probs_title": {"en": "The next word's probabilities", "zh": "下一个词的概率"},
    "tr.temp": {"en": "Temperature T", "zh": "温度 T"},
    "tr.temp_help": {
        "en": "The probabilities are softmax(scores / T). Below 1 the most likely word takes more; above 1 they "
              "spread out. Greedy decoding writes the most likely word at any T; a draw at T would use these.",
        "zh": "概率是 softmax(分数 / T)。T 小于 1 时最可能的词占得更多；大于 1 时概率更分散。"
              "贪心解码在任何温度下都写最可能的词；按温度 T 抽样时用的就是这些概率。"},
    "tr.greedy_line": {
        "en": "Greedy decoding writes “{word}”: probability {p} at T = {temperature} (out of {vocab} words; `<pad>` and "
              "`<bos>` are never written).",
        "zh": "贪心解码写出“{word}”：温度 T = {temperature} 时概率为 {p}（共 {vocab} 个词；`<pad>` 和 `<bos>` "
              "从不写出）。"},
    "tr.chart_greedy": {"en": "greedy choice", "zh": "贪心解码的选择"},
    "tr.chart_other": {"en": "other words", "zh": "其他词"},
    "tr.chart_word": {"en": "next word", "zh": "下一个词"},
    "tr.chart_probability": {"en": "probability at T = {temperature}", "zh": "温度 T = {temperature} 时的概率"},
    "tr.chart_choice": {"en": "word", "zh": "词"},
    "tr.align_title": {"en": "What aligns with what", "zh": "谁与谁对齐"},
    "tr.align_help": {
        "en": "For each English word, the source character its query attends to most in each decoder layer "
              "(the cross-attention weights averaged over the {h} heads), computed from the weights above. A "
              "character or word that occurs more than once carries a subscript (谢₁ 谢₂, the₁ the₂), as in the "
              "maps; source positions count the characters from 1, left to right.",
        "zh": "对每个英文词，列出它的查询在每个解码器层中最关注的源字（交叉注意力权重在 {h} 个头上取平均），"
              "由上面的权重算出。出现不止一次的字或词带下标（谢₁ 谢₂、`the₁` `the₂`），与图中一致；"
              "源句位置从左到右、从 1 开始数。"},
    "tr.align_word": {"en": "“{word}”: {parts}", "zh": "“{word}”：{parts}"},
    "tr.align_function_word": {"en": "“{word}” (an article: no Chinese character stands for this word): {parts}",
                               "zh": "“{word}”（冠词：中文里没有与它对应的字）：{parts}"},
    "tr.align_layer": {"en": "layer {layer} → {char} ({weight})", "zh": "第 {layer} 层 → {char}（{weight}）"},
    "tr.align_sep": {"en": "; ", "zh": "；"},
    "tr.align_pair": {"en": "{word} → {char}", "zh": "{word} → {char}"},
    "tr.align_in_order": {
        "en": "Layer {layer}, the content words as written: {chain}. The characters they read most are at source "
              "positions {positions}: the source's order.",
        "zh": "第 {layer} 层，按写出的顺序看实词：{chain}。它们最关注的字在源句的第 {positions} 位："
              "与源句的顺序相同。"},
    "tr.align_reordered": {
        "en": "Layer {layer}, the content words as written: {chain}. The characters they read most are at source "
              "positions {positions}: not the source's order (a later word reads an earlier character).",
        "zh": "第 {layer} 层，按写出的顺序看实词：{chain}。它们最关注的字在源句的第 {positions} 位："
              "与源句的顺序不同（后写的词读的是更靠前的字）。"},
    "tr.align_too_few": {"en": "Layer {layer}: fewer than two content words ({count}), so there is no order to judge.",
                         "zh": "第 {layer} 层：实词少于两个（{count} 个），谈不上顺序。"},
    "tr.align_one_char": {"en": "Layer {layer}: the source has one character, so every word reads it; there is no "
                                "order to judge.",
                          "zh": "第 {layer} 层：源句只有一个字，每个词都只能读它，谈不上顺序。"},
    "tr.align_left_out": {
        "en": "Left out of the order: {words}. No Chinese character stands for an English article, so what the "
              "query of such a word reads says nothing about alignment.",
        "zh": "顺序判断不计入：{words}。中文里没有与英文冠词对应的字，所以冠词的查询读什么与对齐无关。"},
    "tr.memory_title": {"en": "① The source becomes the memory", "zh": "① 源句变成记忆"},
    "tr.memory_help": {
        "en": "The encoder reads the source's characters (each one its character's vector plus its position's) "
              "through its self-attention layers; what comes out, one row per character, is the memory that every "
              "cross-attention of the decoder below reads.",
        "zh": "编码器读取源句的字（每个字是它的字向量加上位置向量），经过它的自注意力层；输出的每个字一行，"
              "就是下面解码器的每个交叉注意力读取的记忆。"},
    "tr.decoder_title": {"en": "② The decoder over the whole translation", "zh": "② 解码器读完整句译文"},
    "tr.decoder_help": {
        "en": "The decoder run once over its whole input, as training runs it: in each layer, first masked "
              "self-attention over its input ({m} rows: `<bos>`, then each word written), then cross-attention "
              "from each word's row to the memory ({t} × {n}). Row t of every map is the query that writes word t.",
        "zh": "解码器一次读完整个输入，就像训练时那样：每一层先对输入做掩码自注意力（{m} 行：`<bos>`，"
              "然后是写出的每个词），再由每个词的行对记忆做交叉注意力（{t} × {n}）。每张图的第 t 行都是写出"
              "第 t 个词的那个查询。"},
    "tr.self_title": {"en": "Layer {layer}: masked self-attention over the decoder's input",
                      "zh": "第 {layer} 层：对解码器输入的掩码自注意力"},
    "tr.cross_title": {"en": "Layer {layer}: cross-attention, each word's row reading the memory",
                       "zh": "第 {layer} 层：交叉注意力，每个词的行读取记忆"},
    "tr.self_help": {
        "en": "Masked self-attention: row t may read the decoder's input up to row t only (grey cells are masked), "
              "so a word is written without seeing the words after it.",
        "zh": "掩码自注意力：第 t 行只能读解码器输入的第 1 … t 行（灰色格子被掩码），所以写一个词时看不到它后面的词。"},
    "tr.full_help": {
        "en": "Cross-attention: a row per English word written, a column per source character ({m} × {n}). Hover a "
              "weight to light its word and its character in every map; click a word's row to pick that step (the part Generation and the KV cache shows it).",
        "zh": "交叉注意力：每个写出的英文词一行，每个源字一列（{m} × {n}）。把指针停在一个权重上，"
              "所有图中它的词和它的字都会高亮；点击一个词的行，就选中那一步（在“自回归生成与键值缓存”部分显示）。"},
    "tr.layer_head": {"en": "Layer {layer}, head {h}", "zh": "第 {layer} 层，头 {h}"},
    "tr.memory_map": {"en": "Memory (the encoder's output)", "zh": "记忆（编码器输出）"},
    "tr.rows_map": {"en": "The decoder's output row of each word", "zh": "解码器写出每个词时的输出行"},
    "tr.download_zip": {"en": "Download every map of this translation (ZIP)", "zh": "下载这次翻译的全部图（ZIP）"},
    "tr.zip_help": {
        "en": "One ZIP of CSVs holds every map of every part: the memory; each layer's and head's masked "
              "self-attention and cross-attention; the decoder's rows; the step chosen's cache and weights; the "
              "checkpoint chosen's cross-attention; and settings.txt with the link. The maps carry no button "
              "each.",
        "zh": "一个 CSV 压缩包装下所有部分的全部图：记忆；每一层、每个头的掩码自注意力和交叉注意力；解码器的输出行；"
              "所选那一步的缓存和权重；所选检查点的交叉注意力；以及带链接的设置文件。每张图不再各带一个按钮。"},
    "tr.settings_title": {"en": "selfattn · Encoder–decoder · the translator trained here",
                          "zh": "selfattn · 编码器–解码器 · 在这里训练的翻译器"},
    "tr.settings_text": {"en": "Chinese", "zh": "中文"},
    "tr.settings_output": {"en": "Translation", "zh": "译文"},
    "tr.settings_step": {"en": "Step shown", "zh": "显示的步"},
    "tr.settings_temp": {"en": "Temperature", "zh": "温度"},
    "tr.settings_ckpt": {"en": "Training checkpoint shown (step)", "zh": "显示的训练检查点（步数）"},
    "tr.checked_torch": {
        "en": "Checked against PyTorch's own `nn.Transformer` holding the same weights (float64): the same words, "
              "largest difference in the scores {diff}.",
        "zh": "已与持有相同权重的 PyTorch 自身的 `nn.Transformer`（float64）核对：写出的词相同，"
              "分数的最大差异为 {diff}。"},
    "tr.torch_differs": {
        "en": "PyTorch's own `nn.Transformer` with the same weights writes “{words}” (largest difference in the "
              "scores {diff}).",
        "zh": "持有相同权重的 PyTorch 自身的 `nn.Transformer` 写出“{words}”（分数的最大差异为 {diff}）。"},
    "tr.torch_missing": {"en": "PyTorch is not installed here, so the check against it is skipped.",
                         "zh": "这里没有安装 PyTorch，因此跳过与它的核对。"},
    "tr.learn_title": {"en": "How it learned", "zh": "它是怎样学会的"},
    "tr.learn_help": {
        "en": "Training looked at the model {count} times, at steps {steps}: closer together early on, when the model "
              "changes fastest. The slider moves from one checkpoint to the next; the chart is drawn in the same "
              "training steps ({per} steps make one epoch, one pass over the {pairs} training sentences), a dot at "
              "each checkpoint and a line at the one shown. Move the slider: the losses fall and the held-out "
              "sentences (never trained on) come right. The loss of each epoch is measured as it trains (with dropout "
              "and label smoothing), so it ends above the checkpoints' losses. Training watched {watched}; type one "
              "of them above to watch it here.",
        "zh": "训练过程中共查看了模型 {count} 次，分别在第 {steps} 步：前期更密，因为那时模型变化最快。"
              "滑块从一个检查点移到下一个；图表用的也是训练步数（{per} 步为一轮，即把 {pairs} 个训练句子过一遍），"
              "每个检查点画一个点，当前显示的检查点画一条竖线。拖动滑块：损失下降，留出的句子（从未用于训练）逐渐译对。"
              "每轮的损失是在训练时测得的（含随机失活与标签平滑），所以最后高于检查点处的损失。"
              "训练时观察的句子是 {watched}；在上面输入其中一句即可在这里观察它。"},
    "tr.learn_peaks": {
        "en": "The cross-attention of “{sentence}” sharpens as it learns: the largest weight of each row averages "
              "{first} at step {first_step} (spread evenly over its {n} characters it would be {uniform}) and {last} "
              "at step {last_step}.",
        "zh": "随着学习，“{sentence}”的交叉注意力越来越集中：每行最大权重的平均值在第 {first_step} 步为 {first}"
              "（若平均分给 {n} 个字则为 {uniform}），在第 {last_step} 步为 {last}。"},
    "tr.learn_peaks_flat": {
        "en": "The cross-attention of “{sentence}” does not sharpen as it learns: the largest weight of each row "
              "averages {first} at step {first_step} (spread evenly over its {n} characters it would be {uniform}) "
              "and {last} at step {last_step}.",
        "zh": "随着学习，“{sentence}”的交叉注意力并没有变得更集中：每行最大权重的平均值在第 {first_step} 步为 "
              "{first}（若平均分给 {n} 个字则为 {uniform}），在第 {last_step} 步为 {last}。"},
    "tr.ckpt": {"en": "Training step", "zh": "训练步数"},
    "tr.ckpt_line": {
        "en": "Checkpoint {k} of {count}: step {step} (epoch {epoch}): training loss {train}, held-out loss {held}, "
              "held-out sentences right: {right} of {total}.",
        "zh": "第 {k} / {count} 个检查点：第 {step} 步（第 {epoch} 轮）：训练损失 {train}，留出句子的损失 {held}，"
              "留出句子译对 {right} / {total} 句。"},
    "tr.watched_line": {"en": "Then it translated “{sentence}” as “{output}”.",
                        "zh": "那时它把“{sentence}”译成“{output}”。"},
    "tr.watched_nothing": {"en": "Then it translated “{sentence}” as nothing: it ended the sentence at once.",
                           "zh": "那时它对“{sentence}”什么也没写：立刻结束了句子。"},
    "tr.peak_line": {
        "en": "The largest weight of each row averages {peak} (uniform over {n} characters: {uniform}; one "
              "character only: 1).",
        "zh": "每行最大权重的平均值为 {peak}（在 {n} 个字上均匀分布时为 {uniform}；只看一个字时为 1）。"},
    "tr.loss_epoch": {"en": "each epoch, as trained", "zh": "每轮训练时的损失"},
    "tr.loss_train": {"en": "training loss at a checkpoint", "zh": "检查点处的训练损失"},
    "tr.loss_held_out": {"en": "held-out loss at a checkpoint", "zh": "检查点处留出句子的损失"},
    "tr.loss_marker": {"en": "shown: step {step}", "zh": "当前显示：第 {step} 步"},
    "tr.loss_axis_epoch": {"en": "epoch", "zh": "轮"},
    "tr.loss_axis_step": {"en": "training step ({per} steps = 1 epoch)", "zh": "训练步数（{per} 步 = 1 轮）"},
    "tr.loss_axis": {"en": "loss (log scale)", "zh": "损失（对数刻度）"},
    "tr.loss_series": {"en": "curve", "zh": "曲线"},
    # ── Train it again here (locally only; selfattn.translate.train.train_live) ──────────────
    "tr.train_title": {"en": "Train it again here", "zh": "在这里重新训练"},
    "tr.train_hosted": {
        "en": "Retraining is off on the public demo: it would take the server's processors from every other visitor. "
              "Run the app on your own computer to train the translator again with your own settings.",
        "zh": "公开演示版关闭了重新训练：训练会占用服务器的处理器，影响其他访问者。"
              "在你自己的电脑上运行本应用，就能用自己的设置重新训练这个翻译器。"},
    "tr.train_help": {
        "en": "Train a model of your own on the same sentences, from scratch, in this app's process. It lives in "
              "this session only: the shipped model and its files stay as they are. Epochs × d_model × layers may "
              "be at most {limit}, so that a run stays under a minute; the same settings always give the same "
              "model.",
        "zh": "用同样的句子从头训练一个你自己的模型，就在本应用的进程里运行。它只存在于本次会话中："
              "随附的模型和它的文件保持不变。训练轮数 × d_model × 层数最多为 {limit}，"
              "这样一次训练不到一分钟；同样的设置总是得到同样的模型。"},
    "tr.train_epochs": {"en": "Epochs (passes over the training sentences)", "zh": "训练轮数（遍历训练句子的次数）"},
    "tr.train_d": {"en": "d_model", "zh": "d_model"},
    "tr.train_layers": {"en": "Layers on each side", "zh": "每侧的层数"},
    "tr.train_layers_option": {"en": "{n} + {n}", "zh": "{n} + {n}"},
    "tr.train_seed": {"en": "Seed", "zh": "随机种子"},
    "tr.train_go": {"en": "Train", "zh": "开始训练"},
    "tr.train_busy": {"en": "Another visitor's model is training right now; one run at a time. Please wait a moment "
                            "and press Train again.",
                      "zh": "另一位访问者的模型正在训练；一次只能训练一个。请稍等片刻，再按“开始训练”。"},
    "tr.train_starting": {"en": "Starting…", "zh": "正在开始……"},
    "tr.train_progress": {"en": "Epoch {done} of {total}: loss {loss}", "zh": "第 {done} / {total} 轮：损失 {loss}"},
    "tr.train_done": {"en": "Done: {epochs} epochs in {seconds} s, last loss {loss}.",
                      "zh": "完成：{epochs} 轮，用时 {seconds} 秒，最后的损失为 {loss}。"},
    "tr.train_loss": {"en": "training loss", "zh": "训练损失"},
    "tr.train_using": {
        "en": "Translating with the model you trained in this session: {epochs} epochs, d_model {d}, {layers} + "
              "{layers} layers, seed {seed}, trained in {seconds} s; held-out sentences right: {right} of {total}. "
              "The shipped model is unchanged.",
        "zh": "正在用你在本次会话中训练的模型翻译：{epochs} 轮，d_model 为 {d}，{layers} + {layers} 层，"
              "随机种子 {seed}，训练用时 {seconds} 秒；留出句子译对 {right} / {total} 句。随附的模型没有改变。"},
    "tr.train_back": {"en": "Back to the shipped model", "zh": "换回随附的模型"},
    "tr.learn_shipped": {"en": "The slider shows the shipped model's training, not your own run's.",
                         "zh": "滑块显示的是随附模型的训练过程，不是你自己那次训练的。"},
    "err.tr_train_bounds": {"en": "That run is not offered here ({value} is outside the choices).",
                            "zh": "这里不提供这样的训练（{value} 不在可选范围内）。"},
    "err.tr_train_too_big": {
        "en": "That run is too long for this app: {epochs} epochs × d_model {d} × {layers} layers = {work}, over "
              "the limit of {limit}. Take at most {most} epochs, or a smaller model.",
        "zh": "这次训练对本应用来说太长了：{epochs} 轮 × d_model {d} × {layers} 层 = {work}，超过了上限 {limit}。"
              "请最多选 {most} 轮，或选一个更小的模型。"},
}
