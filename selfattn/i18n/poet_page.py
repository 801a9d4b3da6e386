"""UI strings of the tiny poet's page (pages/poet.py, ui/poet/page.py)."""

STRINGS = {
    "nav.poet": {"en": "A tiny poet", "zh": "写诗"},
    "home.poet": {
        "en": "A small decoder-only Transformer trained here on Tang poems writes a five-character poem one character "
              "at a time: its candidates, temperature, top-k and top-p, each head's attention and the K/V cache.",
        "zh": "一个在这里用唐诗训练的小型仅解码器 Transformer，一个字一个字地写五言诗：候选字、温度、"
              "`top-k` 与 `top-p`、每个头的注意力，以及 K/V 缓存。",
    },
    "po.title": {"en": "A tiny poet", "zh": "写诗"},
    "po.intro": {
        "en": "A decoder-only Transformer of {params} parameters ({layers} layers, d_model {d}, {heads} heads), "
              "trained here on {poems} five-character Tang poems, writes one character at a time on our own numpy "
              "core. The line length and the marks are placed by the decoding, not hoped for.",
        "zh": "一个有 {params} 个参数的仅解码器 Transformer（{layers} 层，`d_model` 为 {d}，{heads} 个头），"
              "在这里用 {poems} 首五言唐诗训练，在我们自己的 `numpy` 核心上一个字一个字地写诗。"
              "每句的字数和标点由解码放置，不靠运气。",
    },
    # the parts (ui/parts.py)
    "po.part_write": {"en": "Write", "zh": "写诗"},
    "po.part_step": {"en": "One step", "zh": "一步一步"},
    "po.part_learned": {"en": "How it learned", "zh": "怎么学会的"},
    "po.part_words": {"en": "What is going on", "zh": "这是怎么回事"},
    "po.poem_shown": {"en": "The poem: {text}", "zh": "这首诗：{text}"},
    # inputs
    "po.mode": {"en": "Start from", "zh": "从哪里开始"},
    "po.mode_acrostic": {"en": "Acrostic (藏头)", "zh": "藏头"},
    "po.mode_first": {"en": "A first line", "zh": "第一句"},
    "po.acrostic": {"en": "Acrostic: 4 or 8 characters", "zh": "藏头：4 或 8 个字"},
    "po.acrostic_help": {"en": "Each line starts with one of these characters, in order.",
                         "zh": "每句依次以这些字开头。"},
    "po.first": {"en": "First line: five characters", "zh": "第一句：五个字"},
    "po.first_help": {"en": "The poet reads this line and continues.", "zh": "小诗人读入这一句，然后接着写。"},
    "po.temp": {"en": "Temperature", "zh": "温度"},
    "po.temp_help": {"en": "The logits are divided by this before the softmax: below 1 sharper, above 1 flatter.",
                     "zh": "在 softmax 之前把对数几率除以它：小于 1 更集中，大于 1 更平均。"},
    "po.top_k": {"en": "Top-k (0: off)", "zh": "`top-k`（0 为关闭）"},
    "po.top_k_help": {"en": "Draw only among the k most likely characters.", "zh": "只在最可能的 k 个字中抽取。"},
    "po.top_p": {"en": "Top-p (1.00: off)", "zh": "`top-p`（1.00 为关闭）"},
    "po.top_p_help": {"en": "Draw only among the fewest most likely characters whose probabilities reach p.",
                      "zh": "只在概率之和达到 p 的最少的几个最可能的字中抽取。"},
    "po.greedy": {"en": "Greedy", "zh": "贪心"},
    "po.greedy_help": {"en": "Always the most likely character: the knobs above then change nothing.",
                       "zh": "总是取最可能的字：上面的设置就不起作用了。"},
    "po.seed": {"en": "Seed", "zh": "随机种子"},
    "po.seed_help": {"en": "The seed of the draws: the same seed and settings write the same poem.",
                     "zh": "抽样的随机种子：同样的种子和设置写出同一首诗。"},
    # the poem
    "po.poem_title": {"en": "The poem", "zh": "这首诗"},
    "po.poem_caption": {"en": "{lines} lines of five characters; {drawn} characters drawn, {given} given by you.",
                        "zh": "{lines} 句，每句五个字；抽取了 {drawn} 个字，你给了 {given} 个。"},
    "po.metric_drawn": {"en": "Characters drawn", "zh": "抽出的字"},
    "po.metric_given": {"en": "Given by you", "zh": "你给的字"},
    "po.metric_surprise": {"en": "Nats per character", "zh": "每字奈特数"},
    "po.metric_surprise_help": {
        "en": "How surprised the model is by this poem's characters: the mean of −ln p over them, p what it gave "
              "each before the knobs (T = 1). On held-out poems its loss is {held}.",
        "zh": "模型对这首诗每个字的惊讶程度：各字 −ln p 的平均值，p 是设置之前（T = 1）模型给它的概率。"
              "在留出的诗上，它的损失是 {held}。"},
    # one step
    "po.step_title": {"en": "Step by step", "zh": "一步一步"},
    "po.step": {"en": "Character", "zh": "第几个字"},
    "po.next": {"en": "Next", "zh": "下一步"},
    "po.back": {"en": "Back", "zh": "上一步"},
    "po.play": {"en": "Play", "zh": "播放"},
    "po.pause": {"en": "Pause", "zh": "暂停"},
    "po.play_help": {"en": "Write the poem again one character a second, from the character shown to the last.",
                     "zh": "从当前这个字开始，每秒写一个字，直到最后一个字。"},
    "po.step_line": {"en": "Character {k} of {count}: **{token}** (line {line}, place {place}).",
                     "zh": "第 {k} 个字，共 {count} 个：**{token}**（第 {line} 句，第 {place} 个字）。"},
    "po.kind_drawn": {"en": "Drawn with the uniform number {u} against the probabilities after the knobs.",
                      "zh": "用均匀随机数 {u} 按设置之后的概率抽出。"},
    "po.kind_greedy": {"en": "Greedy: the most likely character.", "zh": "贪心：取最可能的字。"},
    "po.kind_given": {"en": "Given by you; the model gave it probability {p}.",
                      "zh": "这是你给的字；模型给它的概率是 {p}。"},
    "po.sums": {"en": "After the knobs, {kept} of {allowed} characters are kept; their probabilities add up to {sum}. "
                      "Before the knobs (T = 1) the {n} shown hold {top} of the probability.",
                "zh": "经过设置之后，{allowed} 个字中留下 {kept} 个，它们的概率之和为 {sum}。"
                      "设置之前（T = 1），图中的 {n} 个字共占概率 {top}。"},
    "po.chart_before": {"en": "before (T = 1)", "zh": "设置之前（T = 1）"},
    "po.chart_after": {"en": "after the knobs", "zh": "设置之后"},
    "po.chart_candidate": {"en": "candidate", "zh": "候选字"},
    "po.chart_probability": {"en": "probability", "zh": "概率"},
    "po.chart_state": {"en": "state", "zh": "状态"},
    "po.status_drawn": {"en": "written ◀", "zh": "写下的 ◀"},
    "po.status_cut_k": {"en": "cut by top-k ✕", "zh": "被 `top-k` 去掉 ✕"},
    "po.status_cut_p": {"en": "cut by top-p ✕", "zh": "被 `top-p` 去掉 ✕"},
    "po.status_kept": {"en": "kept", "zh": "保留"},
    "po.col_rank": {"en": "rank", "zh": "名次"},
    "po.col_token": {"en": "character", "zh": "字"},
    "po.col_before": {"en": "p (T = 1)", "zh": "概率（T = 1）"},
    "po.col_tempered": {"en": "p after temperature", "zh": "温度之后的概率"},
    "po.col_after": {"en": "p after the knobs", "zh": "设置之后的概率"},
    "po.col_state": {"en": "state", "zh": "状态"},
    "po.attn_title": {"en": "Layer {layer}: where each head reads from", "zh": "第 {layer} 层：每个头读哪里"},
    "po.attn_caption": {
        "en": "Each row is one head's attention from the last character read (the one the new character follows) "
              "back over the poem so far; each row adds up to 1. Nothing to its right exists yet: the causal mask.",
        "zh": "每一行是一个头从刚读入的字（新字就接在它后面）回看到目前为止的诗的注意力；每行之和为 1。"
              "它右边的字还不存在：这就是因果掩码。"},
    "po.head": {"en": "head {h}", "zh": "头 {h}"},
    "po.cache_line": {"en": "K and V cache at this step: {layers} layers × {heads} heads × {n} positions × {d} numbers: "
                            "{total} numbers in K and as many in V. Each step adds one position, and the rows before "
                            "are reused, not recomputed.",
                      "zh": "这一步的 K 和 V 缓存：{layers} 层 × {heads} 个头 × {n} 个位置 × {d} 个数，"
                            "K 中 {total} 个数，V 中同样多。每一步增加一个位置，之前的行直接重用，不再重算。"},
    "po.cache_k": {"en": "Layer {layer}: K cache, {n} rows × {d}", "zh": "第 {layer} 层：K 缓存，{n} 行 × {d}"},
    "po.cache_v": {"en": "Layer {layer}: V cache, {n} rows × {d}", "zh": "第 {layer} 层：V 缓存，{n} 行 × {d}"},
    "po.cache_caption": {
        "en": "One row per position read so far (its {h} heads side by side, {hd} numbers each); the last row, "
              "{last}, is the one this step added. Step on and the maps grow by a row; the rows above never change.",
        "zh": "目前读过的每个位置一行（{h} 个头并排，每个头 {hd} 个数）；最后一行 {last} 是这一步新加的。"
              "往下走一步，图就多一行；上面的行永远不变。"},
    "po.step_cache_same": {"en": "At this step the cached K and V rows and the logits equal one full pass over the "
                                 "{n} positions read: largest difference {diff}.",
                           "zh": "在这一步，缓存的 K、V 各行和对数几率，与对读过的 {n} 个位置做一次完整计算相同："
                                 "最大差 {diff}。"},
    "po.cache_same": {"en": "The cached steps equal the full pass: largest difference {diff}.",
                      "zh": "逐步缓存的计算与一次完整计算相同：最大差 {diff}。"},
    "po.torch_same": {"en": "A PyTorch module holding the same weights gives the same logits at every step: largest "
                            "difference {diff}.",
                      "zh": "持有同样权重的 PyTorch 模块在每一步给出同样的对数几率：最大差 {diff}。"},
    # how it learned
    "po.learn_title": {"en": "How it learned", "zh": "它是怎么学会的"},
    "po.ckpt": {"en": "Checkpoint (training step)", "zh": "检查点（训练步数）"},
    "po.ckpt_line": {"en": "At step {step} of {steps}: training loss {train}, held-out loss {held} nats per character. "
                           "The same settings and seed write:",
                     "zh": "第 {step} 步（共 {steps} 步）：训练损失 {train}，留出集损失 {held}（每字奈特）。"
                           "同样的设置和种子写出："},
    "po.loss_train": {"en": "training loss", "zh": "训练损失"},
    "po.loss_held_out": {"en": "held-out loss", "zh": "留出集损失"},
    "po.loss_shown": {"en": "shown", "zh": "当前"},
    "po.loss_step": {"en": "training step", "zh": "训练步数"},
    "po.loss_axis": {"en": "loss (nats per token)", "zh": "损失（每个词元的奈特数）"},
    "po.train_hosted": {"en": "Training is off on this shared demo: the page writes with the shipped model.",
                        "zh": "这个共享演示不提供训练：页面用随附的模型写诗。"},
    "po.train_title": {"en": "Train your own", "zh": "训练你自己的模型"},
    "po.train_epochs": {"en": "Passes over the training poems", "zh": "在训练诗上走几遍"},
    "po.train_epochs_help": {"en": "1 is the shipped run. Fewer passes are quicker and write worse poems.",
                             "zh": "1 就是随附模型的训练量。遍数越少越快，写出的诗也越差。"},
    "po.train_run": {"en": "Train here", "zh": "在这里训练"},
    "po.train_seed_note": {"en": "It starts from the seed above ({seed}), with the shipped model's size.",
                           "zh": "它从上面的随机种子（{seed}）开始，大小与随附模型相同。"},
    "po.train_progress": {"en": "Step {step} of {total}: loss {loss}", "zh": "第 {step} 步，共 {total} 步：损失 {loss}"},
    "po.train_busy": {"en": "Another run is training in this app now (one at a time, they share two cores): try "
                            "again when it ends.",
                      "zh": "这个应用里正有另一次训练在进行（一次只能一个，它们共用两个核）：等它结束再试。"},
    "po.train_using": {"en": "The page writes with your own run: {epochs} passes from seed {seed}, {steps} steps in "
                             "{seconds} s; its last training loss {loss} nats per token (the shipped run's: {shipped}).",
                       "zh": "页面正在用你自己训练的模型写诗：从随机种子 {seed} 开始走了 {epochs} 遍，{steps} 步，"
                             "用时 {seconds} 秒；最后的训练损失为每个词元 {loss} 奈特（随附模型为 {shipped}）。"},
    "po.train_back": {"en": "Back to the shipped model", "zh": "换回随附的模型"},
    "po.train_local": {"en": "Train a model of your own below, in this app's process; from a terminal, "
                             "`python -m selfattn.poet.train` retrains the shipped files (about {minutes} minutes on 2 "
                             "cores).",
                       "zh": "可以在下面用这个应用的进程训练你自己的模型；在终端里运行 `python -m selfattn.poet.train` "
                             "则重新训练随附的文件（2 核约 {minutes} 分钟）。"},
    # the ZIP (selfattn/poet/view.py settings_text)
    "po.download_zip": {"en": "Download every table (ZIP, with settings.txt)", "zh": "下载全部表格（ZIP，含设置说明文件）"},
    "po.settings_title": {"en": "A tiny poet (selfattn): this view's settings", "zh": "写诗（selfattn）：本视图的设置"},
    "po.settings_poem": {"en": "Poem", "zh": "诗"},
    "po.settings_start": {"en": "Start", "zh": "开头"},
    "po.settings_acrostic": {"en": "acrostic {chars}", "zh": "藏头 {chars}"},
    "po.settings_first": {"en": "first line {chars}", "zh": "第一句 {chars}"},
    "po.settings_sampling": {"en": "Sampling", "zh": "抽样"},
    "po.settings_knobs": {"en": "temperature {temp}, top-k {k}, top-p {p}", "zh": "温度 {temp}，`top-k` {k}，`top-p` {p}"},
    "po.settings_greedy_on": {"en": "greedy", "zh": "贪心"},
    "po.settings_seed": {"en": "Seed", "zh": "随机种子"},
    "po.settings_step": {"en": "Character shown", "zh": "显示的字"},
    "po.settings_ckpt": {"en": "Checkpoint (training step)", "zh": "检查点（训练步数）"},
    # words
    "po.words_title": {"en": "What is going on", "zh": "这是怎么回事"},
    "po.words_decoder": {
        "en": "**Decoder-only.** One stack of blocks, each causal self-attention then a feed-forward layer. The "
              "Encoder–decoder page's decoder also has cross-attention to an encoder's memory; here there is no "
              "encoder and no cross-attention: the poem so far is all the model reads.",
        "zh": "**仅解码器。** 只有一叠模块，每个模块先做因果自注意力，再过前馈层。“编码器–解码器”页面的解码器"
              "还有对编码器记忆的交叉注意力；这里没有编码器，也没有交叉注意力：模型读的只有目前写下的诗。"},
    "po.words_sampling": {
        "en": "**Temperature, top-k, top-p.** The model gives every character a probability. Temperature divides "
              "the logits before the softmax (below 1 the likely get likelier); top-k keeps the k most likely, "
              "top-p the fewest whose probabilities reach p; the draw is from what is left, renormalised.",
        "zh": "**温度、`top-k`、`top-p`。** 模型给每个字一个概率。温度在 softmax 之前去除对数几率"
              "（小于 1 时，可能的字更可能）；`top-k` 只留最可能的 k 个字，`top-p` 只留概率之和达到 p 的最少几个字；"
              "再从剩下的字里按重新归一化的概率抽取。"},
    "po.words_mask": {
        "en": "**It cannot look ahead.** Each position reads only itself and the positions before it (the causal "
              "mask): in the maps above, the row has no cell for a character not yet written. That is why the "
              "cache works: earlier keys and values never change.",
        "zh": "**它不能往后看。** 每个位置只读它自己和它之前的位置（因果掩码）：上面的图里，还没写出的字没有格子。"
              "所以缓存才行得通：之前的键和值永远不变。"},
    "po.words_loss": {
        "en": "**The loss in characters.** On {held} held-out poems it scores {val} nats per character (as unsure as "
              "a fair choice among about {ppl} characters). A unigram model (characters' counts) scores {uni} and a "
              "bigram model (the character before) {bi}, on the same positions.",
        "zh": "**以字计的损失。** 在 {held} 首留出的诗上，它每个字的损失是 {val} 奈特（相当于在约 {ppl} 个字中"
              "平均地猜一个）。在同样的位置上，一元模型（字频）是 {uni}，二元模型（看前一个字）是 {bi}。"},
    "po.words_loss_ahead": {"en": "So it beats both baselines.", "zh": "所以它胜过两个基准。"},
    "po.words_loss_behind": {"en": "So it beats the unigram but not the bigram: a model this small, trained for "
                                   "{minutes} minutes, has not yet learned more than which character tends to follow "
                                   "which.",
                             "zh": "所以它胜过一元模型，却不如二元模型：这么小的模型只训练了 {minutes} 分钟，"
                                   "学到的还不比“哪个字常跟在哪个字后面”更多。"},
    "po.words_imitates": {
        "en": "**Form, not understanding.** It learned which characters tend to follow which in these poems; it "
              "has no idea what a spring or a river is. Lines that sound like poetry and mean little are what it "
              "should write.",
        "zh": "**学的是形式，不是理解。** 它学到的是这些诗里哪些字常跟在哪些字后面；它并不知道春天或河流是什么。"
              "写出听起来像诗、意思却不多的句子，正是它应有的样子。"},
}
