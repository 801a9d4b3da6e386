"""UI strings: the Transformer block page."""

STRINGS: dict[str, dict[str, str]] = {
    "nav.block": {"en": "Transformer block", "zh": "Transformer 块"},
    "home.block": {
        "en": "From attention to a whole Transformer layer: $W_o$, residual connections, LayerNorm and the "
              "feed-forward network, every weight editable, stacked up to 6 layers, a padded batch, checked live "
              "against `torch.nn.TransformerEncoderLayer`, and a real model's layer recomputed from its weights.",
        "zh": "从注意力到完整的 Transformer 层：$W_o$、残差连接、层归一化和前馈网络，每个权重都可编辑，"
              "最多堆叠 6 层，可看填充后的批量，实时与 `torch.nn.TransformerEncoderLayer` 核对，"
              "还能用真实模型的权重重算它的一层。",
    },
    "tb.title": {"en": "Transformer block: attention, Add & Norm, feed-forward",
                 "zh": "Transformer 块：注意力、残差连接与层归一化（Add & Norm）、前馈网络"},
    "tb.intro": {
        "en": "Self-attention is one part of a Transformer layer. Here is the whole layer: the heads' outputs are "
              "joined and mixed by $W_o$, added back to the input (a residual connection), normalised (LayerNorm), "
              "sent through a feed-forward network, added and normalised again. Edit any number, stack layers, pad "
              "a batch, and see every number checked against PyTorch.",
        "zh": "自注意力只是 Transformer 层的一部分。这里是完整的一层：各个头的输出拼接后由 $W_o$ 混合，"
              "再加回输入（残差连接），做层归一化，经过前馈网络，再相加并做一次层归一化。"
              "你可以修改任何数字、堆叠多层、填充一个批量，并看到每个数字都与 PyTorch 核对过。",
    },
    "tb.source": {"en": "Numbers from", "zh": "数字来源"},
    "tb.source_toy": {"en": "A small block you edit", "zh": "可编辑的小 Transformer 块"},
    "tb.source_real": {"en": "A real model's layer (MiniLM)", "zh": "真实模型的一层（MiniLM）"},
    "tb.preset": {"en": "Preset", "zh": "预设"},
    "tb.preset_tiny": {"en": "Tiny (d_model 4, 2 heads, d_ff 8)", "zh": "最小（d_model 4，2 个头，d_ff 8）"},
    "tb.preset_vaswani": {"en": "Vaswani et al. (post-LN, ReLU)", "zh": "Vaswani 等（后置层归一化，ReLU）"},
    "tb.preset_gpt2": {"en": "GPT-2 (pre-LN, GELU-tanh, final norm)", "zh": "GPT-2（前置层归一化，GELU-tanh，末尾层归一化）"},
    "tb.preset_bert": {"en": "BERT (post-LN, GELU)", "zh": "BERT（后置层归一化，GELU）"},
    "tb.preset_tiny_note": {"en": "One post-LN layer, small enough to follow every number by hand.",
                            "zh": "一个后置层归一化的层，小到可以手算每个数字。"},
    "tb.preset_vaswani_note": {
        "en": "The original Transformer's order (2017): Add & Norm after each sub-layer, ReLU, sinusoidal positions.",
        "zh": "最初的 Transformer（2017）的顺序：每个子层之后做残差连接与层归一化，ReLU，正弦位置编码。"},
    "tb.preset_gpt2_note": {
        "en": "GPT-2's order: LayerNorm before each sub-layer, the tanh form of GELU, a causal mask, learned "
              "positions, and one more LayerNorm after the last layer.",
        "zh": "GPT-2 的顺序：每个子层之前做层归一化，GELU 的 tanh 近似，因果掩码，可学习位置编码，"
              "最后一层之后再做一次层归一化。"},
    "tb.preset_bert_note": {"en": "BERT's order: post-LN with the exact (erf) GELU and ε = 1e-12.",
                            "zh": "BERT 的顺序：后置层归一化，精确（erf）GELU，ε = 1e-12。"},
    "tb.preset_custom": {"en": "Custom", "zh": "自定义"},
    "tb.preset_custom_note": {
        "en": "Custom: these settings are no preset's. The nearest is “{preset}”; differing from it: {names}. "
              "Reload preset brings its settings back.",
        "zh": "自定义：这些设置不属于任何预设。最接近的是“{preset}”，与它不同的有：{names}。"
              "点“重新载入预设”可恢复它的设置。"},
    "tb.edited": {"en": "Edited: some tables differ from the preset's.", "zh": "已编辑：有些表格与预设不同。"},
    "tb.preset_loaded": {"en": "Loaded the preset “{name}”.", "zh": "已载入预设“{name}”。"},
    "tb.load_preset": {"en": "Reload preset", "zh": "重新载入预设"},
    "tb.seed": {"en": "Seed", "zh": "随机种子"},
    "tb.seed_help": {"en": "The tables not typed into are drawn from this seed, each layer its own numbers.",
                     "zh": "未编辑的表格都由这个种子生成，每一层的数字各不相同。"},
    "tb.undo_note": {"en": "The last preset or size change replaced tables you typed into.",
                     "zh": "上一次更换预设或大小时替换了你编辑过的表格。"},
    "tb.undone": {"en": "The tables and settings from before are back.", "zh": "之前的表格和设置已恢复。"},
    "tb.n": {"en": "Tokens n", "zh": "词元数 n"},
    "tb.n_help": {"en": "Rows of X, 1 to {top}.", "zh": "X 的行数，1 到 {top}。"},
    "tb.d_help": {"en": "Width of every token vector, 1 to {top}.", "zh": "每个词元向量的宽度，1 到 {top}。"},
    "tb.heads": {"en": "Heads h", "zh": "头数 h"},
    "tb.heads_help": {"en": "Only divisors of d_model: every head gets d_model / h columns.",
                      "zh": "只能是 `d_model` 的约数：每个头分到 `d_model / h` 列。"},
    "tb.dff_help": {"en": "Width of the feed-forward network's hidden layer, 1 to {top} (usually 4 × d_model).",
                    "zh": "前馈网络隐藏层的宽度，1 到 {top}（通常是 `d_model` 的 4 倍）。"},
    "tb.layers": {"en": "Layers", "zh": "层数"},
    "tb.layers_help": {"en": "Layers stacked, each reading the last one's output, 1 to {top}.",
                       "zh": "堆叠的层数，每层读取上一层的输出，1 到 {top}。"},
    "tb.norm": {"en": "Where LayerNorm goes", "zh": "层归一化的位置"},
    "tb.norm_post": {"en": "Post-LN (after the sum)", "zh": "后置层归一化（相加之后）"},
    "tb.norm_pre": {"en": "Pre-LN (before the sub-layer)", "zh": "前置层归一化（子层之前）"},
    "tb.chosen": {"en": "shown below", "zh": "下面所示"},
    "tb.formula_note": {
        "en": r"$\mathrm{MHA}$ is multi-head attention followed by $W_o$; "
              r"$\mathrm{FFN}(z) = \mathrm{act}(zW_1 + b_1)W_2 + b_2$; "
              r"$\mathrm{LayerNorm}(z) = (z - \mu)/\sqrt{\sigma^2 + \varepsilon} \cdot \gamma + \beta$ for each row. Post-LN is the 2017 paper's and BERT's "
              "order; pre-LN (GPT-2) keeps a clean path from input to output and trains more easily when deep.",
        "zh": r"$\mathrm{MHA}$ 是多头注意力再乘 $W_o$；$\mathrm{FFN}(z) = \mathrm{act}(zW_1 + b_1)W_2 + b_2$；"
              r"对每一行，$\mathrm{LayerNorm}(z) = (z - \mu)/\sqrt{\sigma^2 + \varepsilon} \cdot \gamma + \beta$。后置层归一化是 2017 年论文和 BERT 的顺序；"
              "前置层归一化（GPT-2）让输入到输出有一条直通的路径，层数多时更容易训练。",
    },
    "tb.act": {"en": "Activation", "zh": "激活函数"},
    "tb.act_relu": {"en": "ReLU", "zh": "ReLU"},
    "tb.act_gelu": {"en": "GELU (erf)", "zh": "GELU（erf）"},
    "tb.act_gelu_tanh": {"en": "GELU (tanh form)", "zh": "GELU（tanh 近似）"},
    "tb.eps": {"en": "ε of LayerNorm", "zh": "层归一化的 ε"},
    "tb.eps_help": {"en": "Added to the variance before the square root, so a constant row does not divide by 0. "
                          "A number above 0, e.g. 1e-5.",
                    "zh": "在开平方之前加到方差上，使常数行不会除以 0。必须是大于 0 的数，例如 1e-5。"},
    "tb.causal": {"en": "Causal mask", "zh": "因果掩码"},
    "tb.causal_help": {"en": "Each token attends to itself and the tokens before it, as in GPT-2.",
                       "zh": "每个词元只关注自己和它之前的词元，如 GPT-2。"},
    "tb.final": {"en": "Final LayerNorm", "zh": "末尾层归一化"},
    "tb.final_help": {"en": "Pre-LN stacks end with one more LayerNorm (GPT-2's ln_f). Only with pre-LN.",
                      "zh": "前置层归一化的堆叠在最后再做一次层归一化（GPT-2 的 `ln_f`）。只用于前置层归一化。"},
    "tb.pos": {"en": "Positions added to X", "zh": "加到 X 上的位置编码"},
    "tb.pos_none": {"en": "None", "zh": "无"},
    "tb.pos_sinusoidal": {"en": "Sinusoidal", "zh": "正弦位置编码"},
    "tb.pos_learned": {"en": "Learned (as initialised)", "zh": "可学习位置编码（初始值）"},
    "tb.batch": {"en": "A padded batch", "zh": "填充后的批量"},
    "tb.batch_toggle_help": {"en": "Run several sequences of different lengths together, padded to the longest.",
                             "zh": "把几个长度不同的序列放在一起计算，填充到最长的长度。"},
    "tb.lengths": {"en": "Lengths (first rows of X)", "zh": "长度（取 X 的前几行）"},
    "tb.lengths_help": {"en": "2 to 4 whole numbers, e.g. 4 2 3: sequence b is the first rows of X.",
                        "zh": "2 到 4 个整数，例如 4 2 3：第 b 个序列是 X 的前几行。"},
    "tb.maxlen": {"en": "Maximum length", "zh": "最大长度"},
    "tb.maxlen_help": {"en": "Longer sequences are truncated to this many tokens.",
                       "zh": "更长的序列被截断到这个词元数。"},
    "tb.part_layer": {"en": "One layer", "zh": "一层"},
    "tb.part_stack": {"en": "A stack of layers", "zh": "多层堆叠"},
    "tb.part_batch": {"en": "A padded batch", "zh": "填充后的批量"},
    "tb.stack_one": {"en": "This block has one layer. A stack feeds each layer's output into the next: set the "
                           "number of layers above to 2 or more (or load the Vaswani, GPT-2 or BERT preset), or make "
                           "it two layers here.",
                     "zh": "这个块只有一层。堆叠时每一层的输出是下一层的输入：把上面的层数设为 2 或更多（或载入 Vaswani、"
                           "GPT-2 或 BERT 预设），或者在这里直接改成两层。"},
    "tb.stack_make": {"en": "Make it two layers", "zh": "改成两层"},
    "tb.batch_off": {"en": "The batch is off. Switch on “A padded batch” above: sequences of the lengths typed run "
                           "together, the shorter ones padded to the longest, and the page shows the padding mask, "
                           "every sequence's outputs and that padding changed none of them.",
                     "zh": "批量尚未打开。打开上面的“填充后的批量”：按填写的长度把几个序列放在一起计算，较短的填充到最长的长度；"
                           "页面会显示填充掩码、每个序列的输出，以及填充没有改变其中任何一个。"},
    "tb.export_title": {"en": "Download", "zh": "下载"},
    "tb.x_title": {"en": "X, the tokens going in", "zh": "X：输入的词元"},
    "tb.x_help": {"en": "One row per token. Edit a cell and press Enter: every step below recomputes.",
                  "zh": "每个词元一行。编辑单元格后按 Enter：下面每一步都会重新计算。"},
    "tb.layer": {"en": "Layer shown and edited", "zh": "显示并编辑的层"},
    "tb.weights_title": {"en": "Layer {layer}'s weights: W_q, W_k, W_v, W_o, biases, γ and β, W_1, W_2",
                         "zh": "第 {layer} 层的权重：W_q、W_k、W_v、W_o、偏置、γ 和 β、W_1、W_2"},
    "tb.weights_help": {
        "en": "Every weight of the layer, as x @ W. b holds the biases of Q, K, V and W_o; the γ, β table the two "
              "LayerNorms' scale and shift. Tables not typed into come from the seed.",
        "zh": "该层的每个权重，按 x @ W 的约定。b 表是 Q、K、V 和 W_o 的偏置；γ, β 表是两个层归一化的缩放和平移。"
              "未编辑的表格由随机种子生成。"},
    "tb.table_wq": {"en": "W_q (layer {layer})", "zh": "W_q（第 {layer} 层）"},
    "tb.table_wk": {"en": "W_k (layer {layer})", "zh": "W_k（第 {layer} 层）"},
    "tb.table_wv": {"en": "W_v (layer {layer})", "zh": "W_v（第 {layer} 层）"},
    "tb.table_wo": {"en": "W_o (layer {layer})", "zh": "W_o（第 {layer} 层）"},
    "tb.table_b": {"en": "Biases b (layer {layer})", "zh": "偏置 b（第 {layer} 层）"},
    "tb.table_ln": {"en": "γ and β (layer {layer})", "zh": "γ 和 β（第 {layer} 层）"},
    "tb.table_w1": {"en": "W_1 (layer {layer})", "zh": "W_1（第 {layer} 层）"},
    "tb.table_b1": {"en": "b_1 (layer {layer})", "zh": "b_1（第 {layer} 层）"},
    "tb.table_w2": {"en": "W_2 (layer {layer})", "zh": "W_2（第 {layer} 层）"},
    "tb.table_b2": {"en": "b_2 (layer {layer})", "zh": "b_2（第 {layer} 层）"},
    "tb.checked_torch": {
        "en": "Checked against `torch.nn.TransformerEncoderLayer` (float64; each layer's outputs and each head's "
              "weights): largest difference {diff}.",
        "zh": "已与 `torch.nn.TransformerEncoderLayer` 核对（float64，每一层的输出和每个头的注意力权重）："
              "最大差异 {diff}。"},
    "tb.checked_model": {
        "en": "Recomputed from {model}'s weights and checked against the model's own hidden state after layer "
              "{layer}: largest difference {diff} (attention weights: {wdiff}), float32's precision.",
        "zh": "用 {model} 的权重重算，并与模型自己在第 {layer} 层之后的隐藏状态核对：最大差异 {diff}"
              "（注意力权重：{wdiff}），即 float32 的精度。"},
    "tb.flow_title": {"en": "Layer {layer} of {layers}, step by step", "zh": "第 {layer} 层（共 {layers} 层），逐步展示"},
    "tb.flow_help": {
        "en": "Every box is a map of its numbers. Point at a token's row: it lights up in every step. Click it to "
              "write out its LayerNorm below.",
        "zh": "每个方框都是它的数字热力图。指向某个词元的行：它在每一步都会高亮。点击它，下面会写出它的层归一化。"},
    "tb.first_columns": {"en": "map: first {k} columns; its CSV in the ZIP holds all",
                         "zh": "热力图：前 {k} 列；ZIP 中它的 CSV 包含全部"},
    "tb.head": {"en": "Head {h}", "zh": "头 {h}"},  # as on Heads & devices and Sentence embeddings
    "tb.step_input": {"en": "Input x", "zh": "输入 x"},
    "tb.step_input_help": {"en": "X (with positions added) for layer 1, else the last layer's output.",
                           "zh": "第 1 层是 X（加上位置编码），其余各层是上一层的输出。"},
    "tb.step_qkv": {"en": "Queries, keys, values", "zh": "查询、键、值"},
    "tb.step_qkv_help": {"en": "Head k owns columns {hd}·(k − 1) + 1 … {hd}·k of each.",
                         "zh": "第 k 个头使用每个矩阵的第 {hd}·(k − 1) + 1 到 {hd}·k 列。"},
    "tb.step_heads": {"en": "Attention weights, the heads side by side", "zh": "注意力权重，各个头并排"},
    "tb.step_heads_help": {"en": "softmax(QKᵀ / √{hd}) in each head's own columns; every row sums to 1.",
                           "zh": "在每个头自己的列上计算 softmax(QKᵀ / √{hd})；每行之和为 1。"},
    "tb.step_heads_masked_help": {
        "en": "softmax(QKᵀ / √{hd} + M) in each head's own columns, M = −∞ where the mask keeps a query from a key "
              "(weight 0 there); every row sums to 1.",
        "zh": "在每个头自己的列上计算 softmax(QKᵀ / √{hd} + M)，掩码不让查询看到某个键的位置 M = −∞（那里的权重为 0）；"
              "每行之和为 1。"},
    "tb.step_concat": {"en": "Heads' outputs, joined", "zh": "各个头的输出，拼接"},
    "tb.step_concat_help": {"en": "Each head's weights × its columns of V, the heads' results side by side.",
                            "zh": "每个头的注意力权重 × 它在 V 中的列，各个头的结果并排拼接。"},
    "tb.step_projected": {"en": "Attention output", "zh": "注意力输出"},
    "tb.step_projected_help": {"en": "W_o mixes what the heads found into one vector per token.",
                               "zh": "W_o 把各个头得到的结果混合成每个词元的一个向量。"},
    "tb.step_residual1": {"en": "Add: residual connection", "zh": "相加：残差连接"},
    "tb.step_residual2": {"en": "Add again: residual connection", "zh": "再次相加：残差连接"},
    "tb.step_residual_help": {"en": "The sub-layer's output added to what went into it.",
                              "zh": "子层的输出加回它的输入。"},
    "tb.step_norm1": {"en": "LayerNorm₁", "zh": "层归一化₁"},
    "tb.step_norm2": {"en": "LayerNorm₂", "zh": "层归一化₂"},
    "tb.step_norm_help": {"en": "Each row shifted to mean 0 and scaled to variance 1, then × γ + β.",
                          "zh": "每一行平移到均值 0、缩放到方差 1，再 × γ + β。"},
    "tb.step_ff_pre": {"en": "Feed-forward, widened", "zh": "前馈网络，加宽"},
    "tb.step_ff_pre_help": {"en": "Each token on its own, {d_ff} wide.", "zh": "每个词元单独计算，宽 {d_ff}。"},
    "tb.step_ff_act": {"en": "Activation", "zh": "激活"},
    "tb.step_ff_act_help": {"en": "{act}, cell by cell: what makes the feed-forward network more than one matrix "
                                  "(softmax and LayerNorm are not linear either).",
                            "zh": "逐个单元格计算 {act}：它让前馈网络不只是一个矩阵（softmax 和层归一化也不是线性的）。"},
    "tb.step_ff_out": {"en": "Feed-forward output", "zh": "前馈网络的输出"},
    "tb.step_ff_out_help": {"en": "Back to d_model wide.", "zh": "变回 d_model 宽。"},
    "tb.step_output": {"en": "the layer's output y", "zh": "这一层的输出 y"},
    "tb.heads_formula": {"en": "per head", "zh": "每个头"},
    "tb.norm_title": {"en": "LayerNorm, written out for “{token}”", "zh": "为“{token}”写出层归一化"},
    "tb.norm_help": {"en": "As torch computes it: σ² is the mean squared distance from μ (divided by d, not d − 1).",
                     "zh": "与 torch 的算法相同：σ² 是与 μ 之差的平方的平均值（除以 d，而不是 d − 1）。"},
    "tb.norm_which": {"en": "**LayerNorm {k}**, {where}", "zh": "**层归一化 {k}**，{where}"},
    "tb.norm_where_post1": {"en": "of x + attention", "zh": "作用于 x + 注意力"},
    "tb.norm_where_post2": {"en": "of h + feed-forward", "zh": "作用于 h + 前馈网络"},
    "tb.norm_where_pre1": {"en": "of x, before attention", "zh": "作用于 x，在注意力之前"},
    "tb.norm_where_pre2": {"en": "of h, before the feed-forward network", "zh": "作用于 h，在前馈网络之前"},
    "tb.focus": {"en": "Token written out", "zh": "写出的词元"},
    "tb.stack_title": {"en": "The stack: {layers} layers", "zh": "堆叠：{layers} 层"},
    "tb.stack_help": {"en": "Each layer's attention (the heads' mean), and how alike the tokens grow layer by layer.",
                      "zh": "每一层的注意力（各个头的平均），以及词元逐层变得多么相似。"},
    "tb.stack_layer": {"en": "Layer {k}, mean over heads", "zh": "第 {k} 层，各个头的平均"},
    "tb.sim_input": {"en": "input", "zh": "输入"},
    "tb.sim_layer": {"en": "layer {k}", "zh": "第 {k} 层"},
    "tb.sim_axis": {"en": "mean cosine similarity", "zh": "平均余弦相似度"},  # the chart's 180 px height holds it
    "tb.similarity_up": {
        "en": "The tokens' mean cosine similarity goes from {first} (input) to {last} (last layer): the vectors grew "
              "more alike. Attention mixes each token with the tokens it looks at, which pulls them together.",
        "zh": "词元之间的平均余弦相似度从 {first}（输入）变为 {last}（最后一层）：向量变得更相似了。注意力把每个词元"
              "与它看到的词元混合，把它们拉近。"},
    "tb.similarity_down": {
        "en": "The tokens' mean cosine similarity goes from {first} (input) to {last} (last layer): the vectors grew "
              "less alike. Attention's mixing pulls tokens together, but here the feed-forward network and "
              "LayerNorm (which moves each vector to mean 0, turning it) pulled them apart more.",
        "zh": "词元之间的平均余弦相似度从 {first}（输入）变为 {last}（最后一层）：向量变得更不相似了。注意力的混合"
              "会把词元拉近，但这里前馈网络和层归一化（它把每个向量平移到均值 0，改变了方向）把它们推得更开。"},
    "tb.similarity_flat": {
        "en": "The tokens' mean cosine similarity goes from {first} (input) to {last} (last layer): it hardly changed "
              "(by less than 0.01).",
        "zh": "词元之间的平均余弦相似度从 {first}（输入）变为 {last}（最后一层）：几乎没有变化（不到 0.01）。"},
    "tb.similarity_causal": {
        "en": "With the causal mask the first token looks only at itself, so attention never mixes it with the others.",
        "zh": "有因果掩码时，第一个词元只看它自己，所以注意力从不把它与其他词元混合。"},
    "tb.final_out": {"en": "After the final LayerNorm", "zh": "末尾层归一化之后"},
    "tb.batch_title": {"en": "A padded batch", "zh": "填充后的批量"},
    "tb.batch_help": {
        "en": "Sequences of different lengths are padded to the longest so they run together. The key-padding "
              "mask (1 = padding) stops every query from attending to a pad position; with the causal mask, both "
              "apply. A pad position's own row is computed all the same and ignored, as Hugging Face does.",
        "zh": "长度不同的序列被填充到最长的长度，才能一起计算。键填充掩码（1 = 填充）让所有查询都不关注填充位置；"
              "与因果掩码同时使用时两者都生效。填充位置自己的那一行照样计算，但被忽略，与 Hugging Face 的做法相同。"},
    "tb.batch_mask": {"en": "Key-padding mask (1 = padding)", "zh": "键填充掩码（1 = 填充）"},
    "tb.batch_out": {"en": "Sequence {b}: outputs", "zh": "第 {b} 个序列：输出"},
    "tb.batch_line": {"en": "#{b}: length {length}, {pad} pad position(s)", "zh": "#{b}：长度 {length}，{pad} 个填充位置"},
    "tb.batch_line_cut": {"en": "#{b}: {asked} tokens truncated to {maxlen}, {pad} pad position(s)",
                          "zh": "#{b}：{asked} 个词元截断为 {maxlen}，{pad} 个填充位置"},
    "tb.batch_same": {"en": "Padding changed no real token's output: largest difference from each sequence run alone "
                            "{diff}.",
                      "zh": "填充没有改变任何真实词元的输出：与每个序列单独计算相比，最大差异 {diff}。"},
    "tb.batch_fast_path": {
        "en": "`torch.nn.TransformerEncoder` in eval mode without gradients packs a padded batch as a nested tensor "
              "and returns zeros in the pad rows instead; the rows of real tokens are the same.",
        "zh": "`torch.nn.TransformerEncoder` 在评估模式、不求梯度时把填充后的批量打包成嵌套张量，"
              "并在填充行返回 0；真实词元的行相同。"},
    "tb.download_zip": {"en": "Download every matrix (ZIP of CSVs)", "zh": "下载全部矩阵（CSV 的 ZIP）"},
    "tb.real_text": {"en": "Sentence", "zh": "句子"},
    "tb.real_text_help": {"en": "Up to 30 tokens are kept ([CLS] and [SEP] make 32).",
                          "zh": "最多保留 30 个词元（加上 [CLS] 和 [SEP] 共 32 个）。"},
    "tb.real_layer": {"en": "Layer", "zh": "层"},
    "tb.real_running": {"en": "Running the model…", "zh": "正在运行模型……"},
    "tb.real_truncated": {"en": "The sentence was cut to {n} tokens.", "zh": "句子被截断为 {n} 个词元。"},
    "tb.real_help": {
        "en": "MiniLM is post-LN like BERT: d_model {d}, {h} heads, d_ff {d_ff}, GELU (erf), ε = {eps}. The maps "
              "show the first {k} columns; every CSV in the ZIP holds them all.",
        "zh": "MiniLM 与 BERT 一样是后置层归一化：d_model {d}，{h} 个头，d_ff {d_ff}，GELU（erf），ε = {eps}。"
              "热力图只显示前 {k} 列；ZIP 中每个 CSV 都包含全部列。"},
    "tb.real_unknown": {
        "en": "{model} read {n} token(s) as [UNK] ({chars}; each such row is labelled with its character): it was "
              "trained mostly on English. The layer is still recomputed and checked against the model, but those tokens "
              "carry no meaning of their own.",
        "zh": "{model} 把 {n} 个词元读成了 [UNK]（{chars}；每个这样的行都标出了它原来的字）：它主要用英文训练。"
              "这一层仍照样重算并与模型核对，但这些词元没有各自的含义。"},
    "tb.real_unknown_installed": {
        "en": "For Chinese, the Sentence embeddings page offers {chinese}, installed on this server.",
        "zh": "要读中文，“句子嵌入”页面提供本服务器上已安装的 {chinese}。"},
    "tb.real_unknown_download": {
        "en": "For Chinese, the Sentence embeddings page downloads {chinese} on a click (about 400 MB, once).",
        "zh": "要读中文，“句子嵌入”页面点击一下即可下载 {chinese}（约 400 MB，只下载一次）。"},
    "tb.real_unknown_local": {
        "en": "This server does not offer a Chinese model. On your own machine, the Sentence embeddings page "
              "downloads {chinese} on a click (or run `python -m selfattn.text.prefetch bert-base-chinese`).",
        "zh": "本服务器不提供中文模型。在你自己的电脑上，“句子嵌入”页面点击一下即可下载 {chinese}"
              "（或运行 `python -m selfattn.text.prefetch bert-base-chinese`）。"},
    # ── settings.txt in the ZIP: what made its numbers (plain text, one line each) ──
    "tb.settings_title": {"en": "selfattn Transformer block: the settings that made the numbers in this ZIP",
                          "zh": "selfattn Transformer 块：生成本压缩包中数字的设置"},
    "tb.settings_preset": {"en": "Preset", "zh": "预设"},
    "tb.settings_preset_tables": {"en": "Tables: the preset's", "zh": "表格：预设中的数字"},
    "tb.settings_edited": {"en": "Tables: edited ({files} hold them)", "zh": "表格：已修改（见 {files} 等文件）"},
    "tb.settings_seed": {"en": "Seed", "zh": "随机种子"},
    "tb.settings_sizes": {"en": "Sizes: n = {n}, d_model = {d}, heads = {h}, d_ff = {d_ff}, layers = {layers}",
                          "zh": "尺寸：n = {n}，d_model = {d}，头数 = {h}，d_ff = {d_ff}，层数 = {layers}"},
    "tb.settings_batch": {"en": "lengths {lengths}, maximum length {maxlen}", "zh": "长度 {lengths}，最大长度 {maxlen}"},
    "tb.settings_real": {"en": "A real model's layer: {model}, layer {layer}",
                         "zh": "真实模型的一层：{model}，第 {layer} 层"},
    "tb.settings_text": {"en": "Sentence", "zh": "句子"},
    "tb.real_stack_title": {"en": "How alike the tokens grow over the model's {layers} layers",
                            "zh": "词元在模型的 {layers} 层中变得多么相似"},
    "err.block_too_big": {"en": "{name} = {value} is over this page's limit of {top}.",
                          "zh": "{name} = {value} 超过了本页的上限 {top}。"},
    "err.block_layer": {"en": "There is no layer {layer} in a stack of {layers}.",
                        "zh": "{layers} 层的堆叠中没有第 {layer} 层。"},
    "err.eps_bad": {"en": "ε must be a finite number above 0 (such as 1e-5); “{eps}” is not.",
                    "zh": "ε 必须是大于 0 的有限数（例如 1e-5）；“{eps}”不是。"},
    "err.batch_lengths": {"en": "Type {lo} to {hi} lengths from 1 to {n}, such as “4 2 3”.",
                          "zh": "请输入 {lo} 到 {hi} 个从 1 到 {n} 的长度，例如“4 2 3”。"},
    "err.ff_shape": {"en": "W_1 must be ({d_model}, d_ff) and W_2 (d_ff, {d_model}) with the same d_ff; got {w_1} and {w_2}.",
                     "zh": "W_1 必须是 ({d_model}, d_ff)，W_2 必须是 (d_ff, {d_model})，且 d_ff 相同；实际为 {w_1} 和 {w_2}。"},
    "err.activation_unknown": {"en": "The activation must be ReLU, GELU or GELU (tanh form).",
                               "zh": "激活函数必须是 ReLU、GELU 或 GELU（tanh 近似）。"},
    "err.batch_widths": {"en": "Every sequence of a batch needs the same d_model; got {widths}.",
                         "zh": "批量中的每个序列必须有相同的 d_model；实际为 {widths}。"},
    "err.max_len_bad": {"en": "The maximum length must be a whole number of at least 1; got {value}.",
                        "zh": "最大长度必须是不小于 1 的整数；实际为 {value}。"},
    "err.no_layers": {"en": "A stack needs at least one layer.", "zh": "堆叠至少需要一层。"},
    # the encoder–decoder (selfattn/core/decoder.py): cross-attention reads the encoder's output, the memory
    "err.memory_width": {"en": "The memory (the encoder's output) has {got} columns, but the decoder's d_model is "
                               "{d_model}: cross-attention needs them equal.",
                         "zh": "记忆（编码器的输出）有 {got} 列，而解码器的 d_model 是 {d_model}：交叉注意力要求两者相等。"},
    "err.no_sequences": {"en": "A batch needs at least one sequence.", "zh": "批量至少需要一个序列。"},
    "err.padding_shape": {"en": "The key-padding mask must be {n} true/false values; got {shape}.",
                          "zh": "键填充掩码必须是 {n} 个真/假值；实际为 {shape}。"},
    "err.seed_bad": {"en": "The seed must be a whole number of at least 0; got {value}.",
                     "zh": "随机种子必须是不小于 0 的整数；实际为 {value}。"},
    "err.size_not_positive": {"en": "{name} must be a whole number of at least 1; got {value}.",
                              "zh": "{name} 必须是不小于 1 的整数；实际为 {value}。"},
}
