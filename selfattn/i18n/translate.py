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
    # ── The Encoder–decoder page's translator source (ui/translator.py) ──────────────────────
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
    "tr.output_title": {"en": "The translation", "zh": "译文"},
    "tr.source_line": {"en": "The encoder reads {n} characters: {chars}", "zh": "编码器读取 {n} 个字：{chars}"},
    "tr.source_line_one": {"en": "The encoder reads {n} character: {chars}", "zh": "编码器读取 {n} 个字：{chars}"},
    "tr.source_line_one": {"en": "The encoder reads {n} character: {chars}", "zh": "编码器读取 {n} 个字：{chars}"},
    "tr.unfinished": {"en": "It stopped after {n} words without ending the sentence (the most it writes).",
                      "zh": "它写了 {n} 个词后停下，没有写出句子的结尾（这是它最多能写的词数）。"},
    "tr.gen_title": {"en": "Generation, one word at a time", "zh": "自回归生成：一次写一个词"},
    "tr.gen_help": {
        "en": "At each step the decoder reads `<bos>` and the words written so far, its cross-attention reads the "
              "encoder's memory, and the output projection gives a score to every English word; greedy decoding "
              "writes the most likely one, which is read back at the next step. The last step writes `<eos>`: the end.",
        "zh": "每一步，解码器读取 `<bos>` 和已写出的词，它的交叉注意力读取编码器的记忆（编码器输出），"
              "输出投影给每个英文词打一个分数；贪心解码写下最可能的那个词，下一步再把它读回来。最后一步写出 "
              "`<eos>`：句子结束。"},
    "tr.step": {"en": "Step", "zh": "步"},
    "tr.step_option": {"en": "{t}: {word}", "zh": "{t}：{word}"},
    "tr.step_end": {"en": "end of sentence", "zh": "句子结束"},
    "tr.next_step": {"en": "Next step", "zh": "下一步"},
    "tr.step_title": {"en": "Step {t}: after {prefix}, the decoder writes “{word}”",
                      "zh": "第 {t} 步：读过 {prefix} 之后，解码器写出“{word}”"},
    "tr.step_cross_title": {"en": "Layer {layer}: this step's cross-attention",
                            "zh": "第 {layer} 层：这一步的交叉注意力"},
    "tr.step_cross_help": {
        "en": "One row per head, one column per source character: the weights of the one query that writes this "
              "word. Each row sums to 1.",
        "zh": "每个头一行，每个源字一列：写出这个词的那一个查询的权重。每行之和为 1。"},
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
              "(the cross-attention weights averaged over the {h} heads), computed from the weights above.",
        "zh": "对每个英文词，列出它的查询在每个解码器层中最关注的源字（交叉注意力权重在 {h} 个头上取平均），"
              "由上面的权重算出。"},
    "tr.align_word": {"en": "“{word}”: {parts}", "zh": "“{word}”：{parts}"},
    "tr.align_layer": {"en": "layer {layer} → {char} ({weight})", "zh": "第 {layer} 层 → {char}（{weight}）"},
    "tr.align_sep": {"en": "; ", "zh": "；"},
    "tr.align_char": {"en": "{char}", "zh": "{char}"},
    "tr.align_in_order": {"en": "Layer {layer}, word after word: {chars} (in the source's order).",
                          "zh": "第 {layer} 层，逐词来看：{chars}（与源句的顺序相同）。"},
    "tr.align_reordered": {"en": "Layer {layer}, word after word: {chars} (not in the source's order).",
                           "zh": "第 {layer} 层，逐词来看：{chars}（与源句的顺序不同）。"},
    "tr.full_title": {"en": "Cross-attention of the whole translation", "zh": "整句译文的交叉注意力"},
    "tr.full_help": {
        "en": "One map per layer and head: a row per English word written, a column per source character "
              "({m} × {n}). Hover a weight to light its word and its character in every map; click a word's row "
              "to show that step above.",
        "zh": "每层每个头一张图：每个写出的英文词一行，每个源字一列（{m} × {n}）。把指针停在一个权重上，"
              "所有图中它的词和它的字都会高亮；点击一个词的行，上面就显示那一步。"},
    "tr.layer_head": {"en": "Layer {layer}, head {h}", "zh": "第 {layer} 层，头 {h}"},
    "tr.memory_map": {"en": "Memory (the encoder's output)", "zh": "记忆（编码器输出）"},
    "tr.rows_map": {"en": "The decoder's output row of each word", "zh": "解码器写出每个词时的输出行"},
    "tr.download_zip": {"en": "Download every table of the translator (ZIP)", "zh": "下载翻译器的全部表格（ZIP）"},
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
        "en": "Training looked at the model {count} times. Move the slider: the losses fall, the held-out sentences "
              "(never trained on) come right, and the cross-attention of “{sentence}” goes from near-uniform to "
              "aligned. The loss of each epoch is measured as it trains (with dropout and label smoothing), so it "
              "ends above the checkpoints' losses. Training watched {watched}; type one of them above to watch it here.",
        "zh": "训练过程中共查看了模型 {count} 次。拖动滑块：损失下降，留出的句子（从未用于训练）逐渐译对，"
              "“{sentence}”的交叉注意力从接近均匀变为对齐。每轮的损失是在训练时测得的（含随机失活与标签平滑），"
              "所以最后高于检查点处的损失。训练时观察的句子是 {watched}；"
              "在上面输入其中一句即可在这里观察它。"},
    "tr.ckpt": {"en": "Training step", "zh": "训练步数"},
    "tr.ckpt_line": {
        "en": "Step {step} (epoch {epoch}): training loss {train}, held-out loss {held}, held-out sentences right: "
              "{right} of {total}.",
        "zh": "第 {step} 步（第 {epoch} 轮）：训练损失 {train}，留出句子的损失 {held}，留出句子译对 {right} / {total} 句。"},
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
