"""UI strings: the Encoder–decoder page."""

STRINGS: dict[str, dict[str, str]] = {
    "nav.seq2seq": {"en": "Encoder–decoder", "zh": "编码器–解码器"},
    "home.seq2seq": {
        "en": "The Transformer that translates: the encoder reads a source into a memory, the decoder writes a target "
              "with masked self-attention and cross-attention over that memory, one position at a time with a "
              "key/value cache. Every weight editable, checked live against `torch.nn.Transformer`. Then a tiny "
              "translator trained here (Chinese → English) shows the same steps on real sentences.",
        "zh": "用于翻译的 Transformer：编码器把源序列读成记忆，解码器用掩码自注意力和对记忆的交叉注意力写出目标序列，"
              "借助键值缓存一次写一个位置。每个权重都可编辑，并实时与 `torch.nn.Transformer` 核对。"
              "之后，一个在这里训练的小翻译模型（中文 → 英文）在真实句子上展示同样的步骤。"},
    "home.translator": {"en": "The tiny translator (Chinese → English)", "zh": "小翻译模型（中文 → 英文）"},
    "s2s.title": {"en": "Encoder–decoder: cross-attention and generation", "zh": "编码器–解码器：交叉注意力与生成"},
    "s2s.intro": {
        "en": "The Transformer was born to translate. Its encoder reads the source (X) into a memory; its decoder "
              "writes the target (Y) one position after another. Each decoder layer has three sub-layers: masked "
              "self-attention over the target so far, cross-attention that reads the memory, and the feed-forward "
              "network, each followed (post-LN) or preceded (pre-LN) by Add & Norm.",
        "zh": "Transformer 生来就是为了翻译。编码器把源序列（X）读成记忆；解码器一个位置接一个位置地写出目标序列（Y）。"
              "每个解码器层有三个子层：对已写出的目标做掩码自注意力，读取记忆的交叉注意力，以及前馈网络；"
              "每个子层之后（后置层归一化）或之前（前置层归一化）都有残差连接与层归一化（Add & Norm）。"},
    "s2s.why_masks": {
        "en": "**Why one is masked and the other is not.** While it writes, the decoder has only the positions "
              "before the one it is writing, so its self-attention may not look ahead: row i reads rows 1 … i. The "
              "source is known in full before the first word is written, so cross-attention reads every source "
              "position. Cross-attention is the same attention as the Playground's steps, softmax(QKᵀ/√d_k)V, with "
              "the queries from the decoder and the keys and values from the encoder's memory: its weights are "
              "m × n, one row per target position, one column per source position.",
        "zh": "**为什么一个要掩码，另一个不要。** 解码器在写的时候只有正在写的位置之前的内容，所以它的自注意力不能向后看："
              "第 i 行只读第 1 … i 行。源序列在写第一个词之前就已完整，所以交叉注意力读取每个源位置。"
              "交叉注意力和“动手实验”里的步骤是同一种注意力 softmax(QKᵀ/√d_k)V，只是查询来自解码器，键和值来自编码器的记忆："
              "它的权重是 m × n，每个目标位置一行，每个源位置一列。"},
    "s2s.source": {"en": "Numbers from", "zh": "数字来源"},
    "s2s.source_toy": {"en": "A small model you edit", "zh": "可编辑的小模型"},
    "s2s.source_translator": {"en": "A tiny translator trained here (Chinese → English)",
                              "zh": "在这里训练的小翻译模型（中文 → 英文）"},
    "s2s.preset": {"en": "Preset", "zh": "预设"},
    "s2s.preset_vaswani": {"en": "Vaswani et al. (post-LN, ReLU)", "zh": "Vaswani 等（后置层归一化，ReLU）"},
    "s2s.preset_prenorm": {"en": "Pre-LN (GELU)", "zh": "前置层归一化（GELU）"},
    "s2s.preset_vaswani_note": {
        "en": "The original Transformer's order (2017): Add & Norm after each sub-layer, ReLU.",
        "zh": "最初的 Transformer（2017）的顺序：每个子层之后做残差连接与层归一化，ReLU。"},
    "s2s.preset_prenorm_note": {
        "en": "The order most models use now: LayerNorm before each sub-layer, GELU.",
        "zh": "如今多数模型采用的顺序：每个子层之前做层归一化，GELU。"},
    "s2s.preset_custom": {"en": "Custom", "zh": "自定义"},
    "s2s.preset_custom_note": {
        "en": "Custom: these settings are no preset's. The nearest is “{preset}”; differing from it: {names}. "
              "Reload preset brings its settings back.",
        "zh": "自定义：这些设置不属于任何预设。最接近的是“{preset}”，与它不同的有：{names}。"
              "点“重新载入预设”可恢复它的设置。"},
    "s2s.preset_edited": {"en": "The tables are edited: they differ from the preset's seeded numbers.",
                          "zh": "表格已编辑：与预设按种子生成的数字不同。"},
    "s2s.load": {"en": "Reload preset", "zh": "重新载入预设"},
    "s2s.load_help": {"en": "The preset's settings and seeded tables; what you typed can be brought back with Undo.",
                      "zh": "预设的设置和按种子生成的表格；你输入的内容可以用“撤销”找回。"},
    "s2s.preset_loaded": {"en": "Loaded the preset “{name}”.", "zh": "已载入预设“{name}”。"},
    "s2s.undo_note": {"en": "The tables you typed were replaced.", "zh": "你输入的表格已被替换。"},
    "s2s.undone": {"en": "Brought back the tables and settings from before.", "zh": "已找回之前的表格和设置。"},
    "s2s.seed": {"en": "Seed", "zh": "种子"},
    "s2s.seed_help": {"en": "Every table not typed into is drawn from this seed.",
                      "zh": "没有输入过的表格都由这个种子生成。"},
    "s2s.n": {"en": "Source tokens n", "zh": "源词元数 n"},
    "s2s.m": {"en": "Target tokens m", "zh": "目标词元数 m"},
    "s2s.d": {"en": "d_model", "zh": "d_model"},
    "s2s.heads": {"en": "Heads h", "zh": "头数 h"},
    "s2s.heads_help": {"en": "Divisors of d_model up to 4: every head gets d_model / h columns, and each is drawn.",
                       "zh": "d_model 的因数，最多 4：每个头分到 d_model / h 列，且每个头都会画出来。"},
    "s2s.dff": {"en": "d_ff", "zh": "d_ff"},
    "s2s.enc": {"en": "Encoder layers", "zh": "编码器层数"},
    "s2s.dec": {"en": "Decoder layers", "zh": "解码器层数"},
    "s2s.size_help": {"en": "1 to {top}.", "zh": "1 到 {top}。"},
    "s2s.norm": {"en": "Where LayerNorm goes", "zh": "层归一化的位置"},
    "s2s.norm_post": {"en": "Post-LN (after the sum)", "zh": "后置层归一化（相加之后）"},
    "s2s.norm_pre": {"en": "Pre-LN (before the sub-layer)", "zh": "前置层归一化（子层之前）"},
    "s2s.act": {"en": "Activation", "zh": "激活函数"},
    "s2s.inputs_title": {"en": "The source X and the target Y so far", "zh": "源序列 X 与已写出的目标序列 Y"},
    "s2s.inputs_help": {
        "en": "Each row is one token's vector (positions already added). During training the whole target is "
              "given at once, shifted by one (teacher forcing); the mask keeps each row from reading later ones.",
        "zh": "每一行是一个词元的向量（已加上位置编码）。训练时整个目标序列右移一位后一次给出（教师强制）；"
              "掩码使每一行读不到后面的行。"},
    "s2s.src": {"en": "Source X", "zh": "源序列 X"},
    "s2s.tgt": {"en": "Target Y", "zh": "目标序列 Y"},
    "s2s.weights_title": {"en": "Edit the weights of one layer", "zh": "编辑某一层的权重"},
    "s2s.weights_help": {
        "en": "Every weight of every layer can be edited; the two final LayerNorms that `nn.Transformer` adds after "
              "the encoder and the decoder stay at γ = 1, β = 0.",
        "zh": "每一层的每个权重都可编辑；`nn.Transformer` 在编码器和解码器之后各加的一个层归一化保持 γ = 1、β = 0。"},
    "s2s.edit_group": {"en": "Layer to edit", "zh": "要编辑的层"},
    "s2s.group_e": {"en": "Encoder layer {layer}", "zh": "编码器第 {layer} 层"},
    "s2s.group_d": {"en": "Decoder layer {layer}", "zh": "解码器第 {layer} 层"},
    "s2s.table_src": {"en": "Source X", "zh": "源序列 X"},
    "s2s.table_tgt": {"en": "Target Y", "zh": "目标序列 Y"},
    "s2s.table_e": {"en": "{name} (encoder {layer})", "zh": "{name}（编码器第 {layer} 层）"},
    "s2s.table_d": {"en": "{name} (decoder {layer})", "zh": "{name}（解码器第 {layer} 层）"},
    "s2s.part_cross": {"en": "{name}, cross", "zh": "{name}，交叉"},
    "s2s.memory_title": {"en": "① The encoder's memory", "zh": "① 编码器的记忆"},
    "s2s.memory_help": {
        "en": "The source through {layers} encoder layers (each the Transformer block page's layer) and a final "
              "LayerNorm: n × d_model. Every cross-attention of every decoder layer reads this same matrix.",
        "zh": "源序列经过 {layers} 个编码器层（每层即“Transformer 块”页面的层）和最后一个层归一化：n × d_model。"
              "每个解码器层的每个交叉注意力读的都是这同一个矩阵。"},
    "s2s.memory_help_one": {
        "en": "The source through {layers} encoder layer (the Transformer block page's layer) and a final "
              "LayerNorm: n × d_model. Every cross-attention of every decoder layer reads this same matrix.",
        "zh": "源序列经过 {layers} 个编码器层（即“Transformer 块”页面的层）和最后一个层归一化：n × d_model。"
              "每个解码器层的每个交叉注意力读的都是这同一个矩阵。"},
    "s2s.memory": {"en": "Memory", "zh": "记忆"},
    "s2s.layer": {"en": "Decoder layer shown", "zh": "显示的解码器层"},
    "s2s.layer_title": {"en": "Decoder layer {layer} of {layers}", "zh": "解码器第 {layer} 层（共 {layers} 层）"},
    "s2s.layer_input": {"en": "Layer input", "zh": "本层输入"},
    "s2s.self_title": {"en": "② Masked self-attention over the target", "zh": "② 对目标序列的掩码自注意力"},
    "s2s.self_help": {"en": "Grey cells are masked: row i may read target rows 1 … i only. m × m per head.",
                      "zh": "灰色格子被掩码：第 i 行只能读目标序列的第 1 … i 行。每个头 m × m。"},
    "s2s.head": {"en": "Head {h}", "zh": "头 {h}"},
    "s2s.cross_title": {"en": "③ Cross-attention: the target reads the source", "zh": "③ 交叉注意力：目标序列读取源序列"},
    "s2s.cross_help": {
        "en": "Queries from the decoder (after its self-attention), keys and values from the memory: m × n per "
              "head, rows are target positions, columns source positions. Point at a weight to light its target "
              "row and its source row in every box.",
        "zh": "查询来自解码器（自注意力之后），键和值来自记忆：每个头 m × n，行是目标位置，列是源位置。"
              "指向某个权重，会在每个框里点亮对应的目标行和源行。"},
    "s2s.cross_keys": {"en": "K = memory · W_k (cross)", "zh": "K = 记忆 · W_k（交叉）"},
    "s2s.cross_values": {"en": "V = memory · W_v (cross)", "zh": "V = 记忆 · W_v（交叉）"},
    "s2s.focus": {"en": "Work through the cross-attention of target position",
                  "zh": "逐头展开交叉注意力计算的目标位置"},
    "s2s.focus_title": {"en": "Cross-attention for “{token}”, head by head", "zh": "“{token}”的交叉注意力，逐个头"},
    "s2s.focus_line": {"en": "Head {h}: q = {q}; weights over the source = {w}",
                       "zh": "头 {h}：q = {q}；对源序列的权重 = {w}"},
    "s2s.focus_most": {"en": "“{token}” reads “{source}” most in head {h} (weight {w}).",
                       "zh": "在头 {h} 中，“{token}”最多读取“{source}”（权重 {w}）。"},
    "s2s.rest_title": {"en": "④ Add & Norm and the feed-forward network", "zh": "④ 残差连接与层归一化（Add & Norm）和前馈网络"},
    "s2s.after_self": {"en": "h₁ (after self-attention)", "zh": "h₁（自注意力之后）"},
    "s2s.after_cross": {"en": "h₂ (after cross-attention)", "zh": "h₂（交叉注意力之后）"},
    "s2s.layer_out": {"en": "Layer output", "zh": "本层输出"},
    "s2s.output_title": {"en": "⑤ The decoder's output", "zh": "⑤ 解码器的输出"},
    "s2s.output_help": {
        "en": "After the last decoder layer and the final LayerNorm: m × d_model. A translation model multiplies "
              "each row by an output matrix to get the next token's scores.",
        "zh": "经过最后一个解码器层和最后的层归一化：m × d_model。翻译模型把每一行乘以一个输出矩阵，得到下一个词元的分数。"},
    "s2s.output": {"en": "Decoder output", "zh": "解码器输出"},
    "s2s.checked_torch": {
        "en": "Checked against `torch.nn.Transformer` holding the same weights (float64; the memory and the "
              "decoder's output): largest difference {diff}.",
        "zh": "已与持有相同权重的 `torch.nn.Transformer` 核对（float64，记忆和解码器输出）：最大差异 {diff}。"},
    "s2s.gen_title": {"en": "⑥ Generation, one position at a time", "zh": "⑥ 生成：一次一个位置"},
    "s2s.gen_help": {
        "en": "When it generates, the decoder computes one new row per step. Each layer keeps the keys and values "
              "of the rows it has already computed (the KV cache) and adds one row; the memory's keys and values "
              "are computed once, before the first step.",
        "zh": "生成时，解码器每一步只计算一个新行。每一层保留已算过的行的键和值（键值缓存），只添加一行；"
              "记忆的键和值在第一步之前只算一次。"},
    "s2s.step": {"en": "Step", "zh": "步"},
    "s2s.next_step": {"en": "Next step", "zh": "下一步"},
    "s2s.play": {"en": "Play", "zh": "播放"},
    "s2s.pause": {"en": "Pause", "zh": "暂停"},
    "s2s.play_help": {"en": "Moves on one step about every second, and stops at the last step.",
                      "zh": "大约每秒前进一步，到最后一步时停下。"},
    "s2s.step_title": {"en": "Step {t}: “{token}” in decoder layer {layer}", "zh": "第 {t} 步：解码器第 {layer} 层中的“{token}”"},
    "s2s.cache_keys": {"en": "K cache, head {h}", "zh": "键缓存，头 {h}"},
    "s2s.cache_values": {"en": "V cache, head {h}", "zh": "值缓存，头 {h}"},
    "s2s.cache_rows": {"en": "Rows 1 … {old} were cached at earlier steps and are reused; row {new} is new.",
                       "zh": "第 1 … {old} 行在之前的步骤中已缓存，直接复用；第 {new} 行是新的。"},
    "s2s.cache_first": {"en": "The first step: the cache starts with this row.", "zh": "第一步：缓存从这一行开始。"},
    "s2s.step_self": {"en": "Self-attention of this row", "zh": "这一行的自注意力"},
    "s2s.step_cross": {"en": "Cross-attention of this row", "zh": "这一行的交叉注意力"},
    "s2s.cache_same": {
        "en": "Row by row, the cached steps equal the full pass above to within rounding: largest difference {diff}.",
        "zh": "逐行比较，带缓存的逐步计算与上面一次算完的结果在舍入误差之内相同：最大差异 {diff}。"},
    "s2s.cost_title": {"en": "What the cache saves", "zh": "缓存省下了什么"},
    "s2s.cost_help": {
        "en": "Multiply-adds of step t with the cache (one new row per layer) and without it (every row again), for "
              "this model's sizes, up to {steps} positions. At position {steps}: {cached} with the cache, {uncached} "
              "without, {ratio}× fewer. These are counted from the sizes, not timed; "
              "`python -m selfattn.bench --kv-cache` counts and times both ways on your own machine.",
        "zh": "按本模型的尺寸，第 t 步带缓存（每层只算一个新行）和不带缓存（每一行重算）的乘加次数，最多 {steps} 个位置。"
              "在第 {steps} 个位置：带缓存 {cached} 次，不带缓存 {uncached} 次，只有不带缓存时的 1/{ratio}。"
              "这些次数是按尺寸数出来的，不是计时；要在你自己的机器上数一数并计时两种做法，"
              "运行 `python -m selfattn.bench --kv-cache`。"},
    "s2s.cost_axis_step": {"en": "Step (target position)", "zh": "步（目标位置）"},
    "s2s.cost_axis_madds": {"en": "Multiply-adds per step", "zh": "每步乘加次数"},
    "s2s.cost_cached": {"en": "with the cache", "zh": "带缓存"},
    "s2s.cost_uncached": {"en": "without the cache", "zh": "不带缓存"},
    "s2s.cost_series": {"en": "Decoding", "zh": "解码方式"},
    "s2s.export_title": {"en": "Export", "zh": "导出"},
    "s2s.download_zip": {"en": "Download every table (ZIP of CSVs)", "zh": "下载全部表格（CSV 压缩包）"},
    "s2s.settings_title": {"en": "Encoder–decoder (selfattn)", "zh": "编码器–解码器（selfattn）"},
    # the page's parts (ui/parts.py; selfattn.seq2seq.view.PARTS), the toy's two and the translator's three
    "s2s.part_pass": {"en": "The whole sentence at once", "zh": "一次读完整句"},
    "s2s.part_generation": {"en": "Generation and the KV cache", "zh": "自回归生成与键值缓存"},
    "s2s.part_learned": {"en": "How it learned", "zh": "它是怎样学会的"},
    "s2s.pass_intro": {
        "en": "One pass of the model, as in training: the encoder turns the source into its memory, then every "
              "target row at once goes through the decoder's masked self-attention and its cross-attention over "
              "that memory. Point at a cell: the same rows light up in every map of this part.",
        "zh": "模型的一次前向，和训练时一样：编码器把源序列变成记忆，然后所有目标行一起经过解码器的掩码自注意力，"
              "再经过读取这份记忆的交叉注意力。把指针停在一个格子上，这一部分所有图中的同一行都会高亮。"},
    "s2s.export_help": {
        "en": "One ZIP holds every map of every part (the decoder layer and the generation step chosen), "
              "every weight and settings.txt with the link.",
        "zh": "一个压缩包装下所有部分的全部图（所选的解码器层和生成步）、全部权重，以及带链接的设置文件。"},
}
