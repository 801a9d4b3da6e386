"""UI strings: the Playground page."""

STRINGS: dict[str, dict[str, str]] = {
    "pg.title": {"en": "Playground: self-attention in eight steps", "zh": "动手实验：八步看懂自注意力"},
    "pg.intro": {
        "en": "Every cell below is editable. Click a number, type, press Enter or Tab: all eight "
              "steps recompute at once. Arrow keys move between cells, Escape undoes a cell, Shift+arrows "
              "(or Shift+click) pick a block that Ctrl+C copies, and a block pasted from a spreadsheet fills "
              "from the cell. Hover over a heatmap cell for its exact value.",
        "zh": "下面每个格子都可以编辑：单击数字、输入、按回车或 Tab 键，八个步骤会立即全部重算。"
              "方向键在格子间移动，Esc 撤销当前格子的修改，Shift+方向键（或 Shift+单击）选中一块格子，"
              "按 Ctrl+C 复制；从电子表格粘贴的数据块从当前格子开始填入。"
              "把鼠标移到热力图的格子上可以看到精确数值。",
    },
    "pg.preset": {"en": "Preset", "zh": "预设"},
    "pg.preset_tutorial": {"en": "The tutorial's example", "zh": "教程中的例子"},
    "pg.preset_raw": {"en": "Softmax(XXᵀ)X (identity weights)", "zh": "Softmax(XXᵀ)X（单位矩阵权重）"},
    "pg.preset_random": {"en": "Random (Xavier initialisation)", "zh": "随机（Xavier 初始化）"},
    "pg.preset_tutorial_help": {
        "en": "Three inputs of dimension 4 and three 4×3 weight matrices, unscaled as in the "
              "tutorial, so every number matches its printout (output 1 ≈ {output}).",
        "zh": "3 个 4 维输入和 3 个 4×3 权重矩阵，与教程一样不做缩放，因此每个数字都与教程的输出一致"
              "（输出 1 ≈ {output}）。",
    },
    "pg.tutorial_rounding": {
        "en": "Why the tutorial's text prints output 1 as {rough_out}: to keep its sums easy, it writes the softmax of "
              "input 1's scores {scores} as {rough_w}, where exactly it is {exact_w}. The rough weights give "
              "{rough_out}; the exact ones give {exact_out}, which this page shows and the tutorial's own code prints.",
        "zh": "教程正文为什么把输出 1 写成 {rough_out}：为了便于手算，它把输入 1 的分数 {scores} 的 softmax 写成 "
              "{rough_w}，而精确值是 {exact_w}。用这组近似的权重得到 {rough_out}；用精确的权重得到 {exact_out}，"
              "也就是本页显示、教程自己的代码打印出来的结果。",
    },
    "pg.preset_edited": {
        "en": "Edited: the tables are no longer those of “{name}”, and neither are the numbers below. "
              "“Reload preset” brings them back; Undo then returns to your edits.",
        "zh": "已修改：表格已不再是“{name}”的数字，下面的结果也随之不同。点“重新载入预设”可以恢复；"
              "之后点“撤销”可以回到你的修改。",
    },
    "pg.preset_options_changed": {"en": "Options changed since it loaded: {changes}.",
                                  "zh": "载入之后改动了选项：{changes}。"},
    "pg.preset_raw_help": {
        "en": "With identity weights Q = K = V = X, so this is the raw form Softmax(XXᵀ)X: each token "
              "is re-written as a weighted mix of the tokens it is most similar to (早, 上, 好).",
        "zh": "权重为单位矩阵时 Q = K = V = X，这就是不带权重矩阵的 Softmax(XXᵀ)X："
              "每个词元被改写成与它最相似的那些词元的加权组合（早、上、好）。",
    },
    "pg.preset_random_help": {
        "en": "Standard-normal inputs and Xavier-uniform weights at the current sizes, rounded to "
              "3 decimals; the same seed always gives the same numbers.",
        "zh": "按当前尺寸生成标准正态分布的输入和 Xavier 均匀初始化的权重（保留 3 位小数）；"
              "相同的随机种子总是得到相同的数字。",
    },
    "pg.seed": {"en": "Seed", "zh": "随机种子"},
    "pg.seed_help": {"en": "Used by the random preset.", "zh": "用于随机预设。"},
    "pg.load_preset": {"en": "Reload preset", "zh": "重新载入预设"},
    "pg.load_preset_help": {"en": "Put the chosen preset's numbers back (the Undo button brings your edits back).",
                            "zh": "恢复所选预设的数字（之后可以用“撤销”找回你的修改）。"},
    "pg.preset_loaded": {"en": "Loaded “{name}”.", "zh": "已载入“{name}”。"},
    "pg.undo_preset_note": {"en": "Loading the preset replaced the matrices; Undo brings back the previous ones.",
                            "zh": "载入预设替换了矩阵；点“撤销”可以找回之前的矩阵。"},
    "pg.undo_resize_note": {"en": "Resizing cut or padded the matrices; Undo brings back the previous ones.",
                            "zh": "改变尺寸裁剪或补齐了矩阵；点“撤销”可以找回之前的矩阵。"},
    "pg.undo_upload_note": {"en": "The upload replaced a matrix; Undo brings back the previous one.",
                            "zh": "上传替换了一个矩阵；点“撤销”可以找回之前的矩阵。"},
    "pg.bad_cell_above": {"en": "{matrix} has a cell that is not a finite number: it is named under {matrix}'s "
                                "table above, where the cell is framed in red.",
                          "zh": "{matrix} 中有一个格子不是有限的数字：具体位置写在上方 {matrix} 表格的下面，"
                                "该格子已用红框标出。"},
    # ── The matrix editor's own texts (ui/components/matrix_editor.js fills the {placeholders}) ──
    "pg.ed_cell": {"en": "{matrix}, {row}, {col}", "zh": "{matrix}，{row}，{col}"},
    "pg.ed_row": {"en": "row {i}", "zh": "第 {i} 行"},
    "pg.ed_pasted": {"en": "Pasted a block of {rows} × {cols}.", "zh": "已粘贴 {rows} × {cols} 的数据块。"},
    "pg.ed_pasted_left": {"en": "{n} values did not fit in the table and were left out.",
                          "zh": "有 {n} 个值超出表格范围，未粘贴。"},
    "pg.ed_pasted_cut": {"en": "{n} values were cut to {chars} characters.",
                         "zh": "有 {n} 个值被截短到 {chars} 个字符。"},
    "pg.ed_copied_block": {"en": "Copied a block of {rows} × {cols}, tab-separated.",
                           "zh": "已复制 {rows} × {cols} 的数据块，以制表符分隔。"},
    "pg.ed_copied": {"en": "Copied the table ({rows} × {cols}), tab-separated.",
                     "zh": "已复制整个表格（{rows} × {cols}），以制表符分隔。"},
    "pg.labels_cut": {"en": "Token labels are cut to {n} characters in the tables, charts and CSV files "
                            "(“{first}” is longer).",
                      "zh": "词元的标签在表格、图表和 CSV 文件中最多保留 {n} 个字符（“{first}”超过了这个长度）。"},
    "pg.undone": {"en": "The previous matrices, options and preset are back.", "zh": "已找回之前的矩阵、选项和预设。"},
    "pg.preset_loaded_changed": {"en": "Loaded “{name}”; it set {changes}.", "zh": "已载入“{name}”，并设置了：{changes}。"},
    "pg.preset_sets": {"en": "Loading it sets {changes}.", "zh": "载入时会设置：{changes}。"},
    "pg.toggle_on": {"en": "“{name}” on", "zh": "“{name}”开"},
    "pg.toggle_off": {"en": "“{name}” off", "zh": "“{name}”关"},
    "pg.size_not_whole": {"en": "{name} must be a whole number; {value} is not, so it stays {kept}.",
                          "zh": "{name} 必须是整数；{value} 不是整数，因此保持为 {kept}。"},
    "pg.size_clamped": {"en": "{name} must be between 1 and {top}, so it is set to {fixed}.",
                        "zh": "{name} 必须在 1 到 {top} 之间，已设为 {fixed}。"},
    "pg.opt_scale": {"en": "Scale by √d_k", "zh": "除以 √d_k"},
    "pg.opt_scale_help": {
        "en": "Divide the scores by √d_k before the softmax. Without it, large d_k makes scores "
              "large and the softmax nearly one-hot (the dot product's variance grows with d_k).",
        "zh": "在 softmax 之前把分数除以 √d_k。否则 d_k 越大分数越大（点积的方差随 d_k 增长），"
              "softmax 会趋近于独热分布。",
    },
    "pg.opt_causal": {"en": "Causal mask", "zh": "因果掩码"},
    "pg.opt_causal_help": {"en": "Token i may attend only to tokens 1..i, as in a language model.",
                           "zh": "第 i 个词元只能关注第 1 到第 i 个词元，就像语言模型那样。"},
    "pg.opt_bias": {"en": "Biases", "zh": "偏置"},
    "pg.opt_bias_help": {"en": "Add $b_q$, $b_k$, $b_v$ after the projections ($Q = XW_q + b_q$, ...).",
                         "zh": "在线性变换之后加上偏置 $b_q$、$b_k$、$b_v$（$Q = XW_q + b_q$，依此类推）。"},
    "pg.size_n": {"en": "Tokens n", "zh": "词元数 n"},
    "pg.size_d_in": {"en": "Input dim d_in", "zh": "输入维度 d_in"},
    "pg.size_d_k": {"en": "Query/key dim d_k", "zh": "查询/键维度 d_k"},
    "pg.size_d_v": {"en": "Value dim d_v", "zh": "值维度 d_v"},
    "pg.size_n_help": {"en": "1 to 32. Numbers that still fit are kept; new cells start at 0.",
                       "zh": "1 到 32。仍然放得下的数字会保留，新的格子从 0 开始。"},
    "pg.size_d_in_help": {"en": "1 to 16: columns of X and rows of every W.",
                          "zh": "1 到 16：X 的列数，也是每个 W 的行数。"},
    "pg.size_d_k_help": {"en": "1 to 16: queries and keys must have the same size.",
                         "zh": "1 到 16：查询和键的维度必须相同。"},
    "pg.size_d_v_help": {"en": "1 to 16: values may differ from d_k; the output has d_v columns.",
                         "zh": "1 到 16：值的维度可以与 d_k 不同，输出有 d_v 列。"},
    "pg.input_label": {"en": "Input {i}", "zh": "输入 {i}"},
    "pg.token_col": {"en": "token", "zh": "词元"},
    "pg.step1": {"en": "Step 1 · Inputs X", "zh": "第 1 步 · 输入 X"},
    "pg.step1_help": {"en": "One row per token. The first column is the token's label (editable).",
                      "zh": "每个词元一行，第一列是词元的标签（可编辑）。"},
    "pg.step2": {"en": "Step 2 · Weights $W_q$, $W_k$, $W_v$", "zh": "第 2 步 · 权重 $W_q$、$W_k$、$W_v$"},
    "pg.step2_bias": {"en": "Step 2 · Weights $W_q$, $W_k$, $W_v$ and biases $b_q$, $b_k$, $b_v$",
                      "zh": "第 2 步 · 权重 $W_q$、$W_k$、$W_v$ 和偏置 $b_q$、$b_k$、$b_v$"},
    "pg.step2_bias_help": {"en": "Each bias is added to every row: $b_q$ and $b_k$ hold $d_k$ = {d_k} numbers, "
                                 "$b_v$ holds $d_v$ = {d_v}.",
                           "zh": "每个偏置都加到每一行上：$b_q$ 和 $b_k$ 各有 $d_k$ = {d_k} 个数，$b_v$ 有 $d_v$ = {d_v} 个。"},
    "pg.step2_help": {"en": "$W_q$ and $W_k$ are $d_{{in}} \\times d_k$ = {d_in} × {d_k}, $W_v$ is $d_{{in}} \\times d_v$ = "
                            "{d_in} × {d_v}. In a trained network they are learned; here you set them.",
                      "zh": "$W_q$ 和 $W_k$ 是 $d_{{in}} \\times d_k$ = {d_in} × {d_k}，$W_v$ 是 $d_{{in}} \\times d_v$ = "
                            "{d_in} × {d_v}。在训练好的网络中它们是学出来的，这里由你来设定。"},
    "pg.import": {"en": "Import a matrix from CSV", "zh": "从 CSV 导入矩阵"},
    "pg.import_help": {
        "en": "X may have 1–32 rows and must have d_in columns (a first text column becomes the "
              "token labels); a weight must be d_in × d_k (or d_in × d_v for W_v). Files up to 1 MB. "
              "Our own CSV downloads read back unchanged.",
        "zh": "X 可以有 1–32 行，列数必须等于 d_in（若第一列是文字，则作为词元的标签）；"
              "权重必须是 d_in × d_k（W_v 为 d_in × d_v）。文件不超过 1 MB。本页下载的 CSV 可以原样导入。",
    },
    "pg.import_target": {"en": "Matrix to replace", "zh": "要替换的矩阵"},
    "pg.import_file": {"en": "CSV file", "zh": "CSV 文件"},
    "pg.import_file_help": {"en": "A .csv file up to 1 MB.", "zh": "不超过 1 MB 的 .csv 文件。"},
    "pg.upload_ok": {"en": "Loaded {name}.", "zh": "已载入 {name}。"},
    "pg.step3": {"en": "Step 3 · Queries, keys and values", "zh": "第 3 步 · 查询、键和值"},
    "pg.step3_help": {"en": "Each token's row of X multiplied by each weight matrix: {formula}",
                      "zh": "X 中每个词元的那一行分别乘以三个权重矩阵：{formula}"},
    "pg.step4": {"en": "Step 4 · Attention scores", "zh": "第 4 步 · 注意力分数"},
    "pg.step4_help": {"en": "$s_{{ij}} = q_i \\cdot k_j$: how strongly query $i$ matches key $j$.",
                      "zh": "$s_{{ij}} = q_i \\cdot k_j$：查询 $i$ 与键 $j$ 的匹配程度。"},
    "pg.scores": {"en": "Scores Q·Kᵀ (rows: queries, columns: keys)", "zh": "分数 Q·Kᵀ（行：查询，列：键）"},
    "pg.scores_caption": {"en": "Raw dot products, before scaling and masking.", "zh": "原始点积，尚未缩放和掩码。"},
    "pg.scaled_scores": {"en": "Scaled and masked scores", "zh": "缩放并掩码后的分数"},
    "pg.scaled_only_scores": {"en": "Scaled scores", "zh": "缩放后的分数"},
    "pg.masked_only_scores": {"en": "Masked scores", "zh": "掩码后的分数"},
    "pg.scaled_caption": {"en": "Divided by $\\sqrt{{d_k}} = \\sqrt{{{d_k}}}$ ≈ {s}; masked positions are −∞ (grey) "
                                "and get weight 0.",
                          "zh": "除以 $\\sqrt{{d_k}} = \\sqrt{{{d_k}}}$ ≈ {s}；被掩码的位置为 −∞（灰色），权重为 0。"},
    "pg.scaled_only_caption": {"en": "Divided by $\\sqrt{{d_k}} = \\sqrt{{{d_k}}}$ ≈ {s}.",
                               "zh": "除以 $\\sqrt{{d_k}} = \\sqrt{{{d_k}}}$ ≈ {s}。"},
    "pg.masked_only_caption": {"en": "Not scaled; masked positions ($j > i$) are −∞ (grey) and get weight 0.",
                               "zh": "未缩放；被掩码的位置（$j > i$）为 −∞（灰色），权重为 0。"},
    "pg.step5": {"en": "Step 5 · Softmax", "zh": "第 5 步 · Softmax"},
    "pg.step5_help": {"en": "Each row becomes positive weights that add up to 1: {formula}",
                      "zh": "每一行变成和为 1 的正数权重：{formula}"},
    "pg.weights": {"en": "Attention weights", "zh": "注意力权重"},
    "pg.focus_title": {"en": "Steps 4–7 for one token", "zh": "针对一个词元的第 4–7 步"},
    "pg.focus": {"en": "Focus on token", "zh": "聚焦的词元"},
    "pg.focus_step4": {"en": "**Step 4.** The query of “{token}”, q = {q}, against every key:",
                       "zh": "**第 4 步**：“{token}”的查询 q = {q}，与每个键做点积："},
    "pg.focus_step5": {"en": "**Step 5.** Softmax of that row:", "zh": "**第 5 步**：对这一行做 softmax："},
    "pg.focus_step6": {"en": "**Step 6.** Multiply each value by its weight:",
                       "zh": "**第 6 步**：把每个值向量乘以对应的权重："},
    "pg.focus_step7": {"en": "**Step 7.** Add the weighted values: this is the output.",
                       "zh": "**第 7 步**：把加权后的值相加，就得到输出。"},
    "pg.masked": {"en": "masked (−∞)", "zh": "已掩码（−∞）"},
    "pg.weighted_values": {"en": "Weighted values for “{token}”", "zh": "“{token}”的加权值"},
    "pg.focus_full": {"en": "Every line in full", "zh": "每一行的完整算式"},
    "pg.focus_short_note": {
        "en": "Long sums are shortened to “…” except for “{token}” itself; the full lines are below.",
        "zh": "除词元“{token}”本身外，较长的求和式以“…”省略；完整算式见下方。"},
    "pg.maps_linked": {
        "en": "The maps of steps 3–8 are linked. Point at (or tap) a score or weight (i, j): row i of Q and of "
              "the outputs and row j of K and V light up. Point at an output row: its weights and the values it "
              "mixed light up. This happens in your browser; nothing is recomputed. Click a query's row (Q, scores, "
              "weights, outputs) to make that token the focus of steps 4–7.",
        "zh": "第 3–8 步的矩阵彼此联动。指向（或轻点）一个分数或权重 (i, j)：Q 和输出的第 i 行、K 和 V 的第 j 行随之高亮。"
              "指向输出的一行：它的权重和参与混合的值随之高亮。高亮在浏览器中完成，不会重新计算。单击某个查询所在的行"
              "（Q、分数、权重、输出），即可把该词元设为第 4–7 步的聚焦对象。"},
    "pg.step8": {"en": "Step 8 · Repeat for every token: the outputs", "zh": "第 8 步 · 对每个词元重复：输出"},
    "pg.step8_help": {"en": "Row $i$ is the output for token $i$, a weighted sum of the value vectors: {formula}",
                      "zh": "第 $i$ 行是第 $i$ 个词元的输出，即值向量的加权和：{formula}"},
    "pg.outputs": {"en": "Outputs", "zh": "输出"},
    "pg.mask_where": {"en": ", where $M_{ij} = -\\infty$ for $j > i$", "zh": "，其中当 $j > i$ 时 $M_{ij} = -\\infty$"},
    "pg.download_zip": {"en": "Download all matrices (zip of CSV)", "zh": "下载全部矩阵（CSV 压缩包）"},
    # ── settings.txt in the ZIP: what made its numbers (plain text, one line each) ──
    "pg.settings_title": {"en": "selfattn Playground: the settings that made the numbers in this ZIP",
                          "zh": "selfattn 动手实验：生成本压缩包中数字的设置"},
    "pg.settings_preset": {"en": "Preset: {name}", "zh": "预设：{name}"},
    "pg.settings_tables_preset": {"en": "Tables: the preset's", "zh": "表格：预设中的数字"},
    "pg.settings_tables_edited": {"en": "Tables: edited (x.csv, w_q.csv, ... hold them)",
                                  "zh": "表格：已修改（见 x.csv、w_q.csv 等文件）"},
    "pg.settings_seed": {"en": "Seed: {seed}", "zh": "随机种子：{seed}"},
    "pg.settings_sizes": {"en": "Sizes: n = {n}, d_in = {d_in}, d_k = {d_k}, d_v = {d_v}",
                          "zh": "尺寸：n = {n}，d_in = {d_in}，d_k = {d_k}，d_v = {d_v}"},
    "pg.settings_positions": {"en": "Positions: {kind}", "zh": "位置编码：{kind}"},
    "pg.settings_positions_seed": {"en": "Positions: {kind}, seed {seed}", "zh": "位置编码：{kind}，随机种子 {seed}"},
    "pg.settings_order": {"en": "Order of the shuffled run: {order}", "zh": "打乱后的顺序：{order}"},
    "pg.settings_order_none": {"en": "Order: the original (no shuffled run)", "zh": "顺序：原顺序（没有打乱）"},
}

# ── Issue 24: order and positions ──
STRINGS.update({
    "pg.pos_title": {"en": "Positions (optional): X + PE", "zh": "位置编码（可选）：X + PE"},
    "pg.pos_help": {
        "en": "On its own, self-attention does not see the order of the tokens: each output is a weighted sum over "
              "all of them, and a sum is the same in any order. A positional encoding gives every place in the "
              "sequence a vector of its own, $PE$, added to X before the projections: $Q = (X + PE) W_q$, and "
              "the same for K and V.",
        "zh": "自注意力本身看不到词元的顺序：每个输出都是所有词元的加权和，而求和与顺序无关。位置编码给序列中的"
              "每个位置一个自己的向量 $PE$，在投影之前加到 X 上：$Q = (X + PE) W_q$，K 和 V 也一样。"},
    "pg.pos_kind": {"en": "Positions", "zh": "位置编码"},
    "pg.pos_kind_none": {"en": "None", "zh": "不加"},
    "pg.pos_kind_sinusoidal": {"en": "Sinusoidal", "zh": "正弦位置编码"},
    "pg.pos_kind_learned": {"en": "Learned-style (random)", "zh": "可学习位置编码（随机初始值）"},
    "pg.pos_kind_help": {
        "en": "Sinusoidal: the fixed sines and cosines of Vaswani et al. (2017). Learned-style: a table of random "
              "numbers, as a learned position table starts before training (standard normal, as "
              "`torch.nn.Embedding` starts, rounded to 3 decimals).",
        "zh": "正弦位置编码：Vaswani 等人（2017）提出的固定正弦和余弦。可学习位置编码：一张随机数表，也就是"
              "可学习的位置表在训练之前的样子（标准正态分布，与 `torch.nn.Embedding` 的初始值一样，保留 3 位小数）。"},
    "pg.pos_seed": {"en": "Seed of the positions", "zh": "位置编码的随机种子"},
    "pg.pos_seed_help": {"en": "The same seed always gives the same position vectors.",
                         "zh": "相同的随机种子总是得到相同的位置向量。"},
    "pg.pos_sinusoidal_formula": {
        "en": "Sinusoidal (Vaswani et al., 2017): $PE_{{(pos, 2i)}} = \\sin\\left(pos / 10000^{{2i/d}}\\right)$ and "
              "$PE_{{(pos, 2i+1)}} = \\cos\\left(pos / 10000^{{2i/d}}\\right)$, here with $d = {d}$ (the columns "
              "of X) and $pos = 0, 1, 2, \\dots$ from the first token. Each pair of columns is one wave: the first "
              "pairs change fast down the rows, the last ones slowly, so every position has a pattern of its own. "
              "When $d$ is odd, the last column is a sine.",
        "zh": "正弦位置编码（Vaswani 等人，2017）：$PE_{{(pos, 2i)}} = \\sin\\left(pos / 10000^{{2i/d}}\\right)$，"
              "$PE_{{(pos, 2i+1)}} = \\cos\\left(pos / 10000^{{2i/d}}\\right)$，这里 $d = {d}$（X 的列数），"
              "$pos = 0, 1, 2, \\dots$ 从第一个词元算起。每两列是一组波：前面的列沿行变化得快，后面的列变化得慢，"
              "所以每个位置都有自己的模式。$d$ 为奇数时，最后一列是正弦。"},
    "pg.pos_learned_formula": {
        "en": "Learned-style: $PE$ is an $n \\times {d}$ table of numbers drawn with the seed, one row per position. "
              "A real model learns this table in training; here it is as it starts. Either way, row $pos$ belongs to "
              "the place in the sequence, not to the token that sits there.",
        "zh": "可学习位置编码：$PE$ 是一张用随机种子生成的 $n \\times {d}$ 数表，每个位置一行。真实的模型在训练中"
              "学习这张表；这里是它开始时的样子。无论哪种，第 $pos$ 行都属于序列中的这个位置，而不属于放在那里的词元。"},
    "pg.pos_pe": {"en": "Position vectors PE", "zh": "位置向量 PE"},
    "pg.pos_row": {"en": "pos {i}", "zh": "位置 {i}"},
    "pg.pos_used": {
        "en": "The steps below use X + PE: queries, keys and values are $(X + PE) W$. Shuffle the tokens at the "
              "end of the page to see what this changes.",
        "zh": "下面的步骤使用 X + PE：查询、键和值都是 $(X + PE) W$。在页面末尾打乱词元，看看这会改变什么。"},
    "pg.order_title": {"en": "Shuffle the tokens: does attention see the order?",
                       "zh": "打乱词元：注意力看得到顺序吗？"},
    "pg.order_intro": {
        "en": "Give the tokens a new order and run the same attention again (same weights, same switches). Without "
              "positions each output just moves with its token and keeps its numbers: self-attention is "
              "permutation-equivariant. With positions, or with the causal mask, it is not.",
        "zh": "给词元一个新的顺序，用同样的权重和开关再算一遍注意力。不加位置编码时，每个输出只是跟着自己的词元"
              "移动，数字不变：自注意力对置换是等变的。加上位置编码或因果掩码后，就不再如此。"},
    "pg.order": {"en": "New order (the tokens' old numbers)", "zh": "新顺序（词元原来的编号）"},
    "pg.order_help": {
        "en": "The old numbers of the tokens, 1 to {n}, each once, in their new order: “3 1 2” puts token 3 first. "
              "Spaces or commas between them; empty keeps the order as it is.",
        "zh": "按新顺序写出词元原来的编号 1 到 {n}，每个一次：“3 1 2”把第 3 个词元放到最前面。"
              "用空格或逗号分开；留空则保持原顺序。"},
    "pg.order_seed": {"en": "Shuffle seed", "zh": "打乱用的随机种子"},
    "pg.order_seed_help": {"en": "A new seed draws a new order at once; the same seed always gives the same order.",
                           "zh": "换一个随机种子会立即抽出新的顺序；相同的随机种子总是得到相同的顺序。"},
    "pg.order_draw": {"en": "Shuffle at random", "zh": "随机打乱"},
    "pg.order_undo": {"en": "Undo", "zh": "撤销"},
    "pg.order_reset": {"en": "Original order", "zh": "恢复原顺序"},
    "pg.order_same": {"en": "The tokens are in their original order. Type a new order, or shuffle at random.",
                      "zh": "词元仍是原来的顺序。输入一个新顺序，或者随机打乱。"},
    "pg.order_new": {"en": "New order: **{order}** (row r of the shuffled tokens holds the token whose old number "
                           "stands r-th here).",
                     "zh": "新顺序：**{order}**（打乱后的第 r 行放的是这里第 r 个编号所指的词元）。"},
    "pg.order_formula": {
        "en": "Shuffling is multiplying by a permutation matrix $P$: the shuffled tokens are $PX$. Write $f$ for "
              "self-attention; without positions $f(PX) = P f(X)$: the same outputs, in the new order.",
        "zh": "打乱就是乘以一个置换矩阵 $P$：打乱后的词元是 $PX$。把自注意力记作 $f$；不加位置编码时 "
              "$f(PX) = P f(X)$：输出相同，只是换了顺序。"},
    "pg.order_formula_pe": {
        "en": "Shuffling multiplies the tokens by a permutation matrix $P$, but the positions stay where they are: "
              "the shuffled input is $PX + PE$, not $P(X + PE)$. So $f(PX + PE)$ need not equal $P f(X + PE)$; "
              "the check below measures by how much.",
        "zh": "打乱把词元乘以置换矩阵 $P$，但位置留在原处：打乱后的输入是 $PX + PE$，而不是 $P(X + PE)$。"
              "所以 $f(PX + PE)$ 不一定等于 $P f(X + PE)$；下面的检查给出相差多少。"},
    "pg.order_p": {"en": "Permutation matrix P", "zh": "置换矩阵 P"},
    "pg.order_p_help": {"en": "Row r has its 1 in the column of the token it now holds.",
                        "zh": "第 r 行的 1 在它现在所放词元的那一列。"},
    "pg.order_before": {"en": "Outputs, original order", "zh": "输出（原顺序）"},
    "pg.order_after": {"en": "Outputs after the shuffle", "zh": "输出（打乱后）"},
    "pg.order_verdict_same": {
        "en": "Every output only moved: each row of the shuffled outputs equals its token's output before, to within "
              "{diff} (rounding; the check allows {tol}). Self-attention did not see the new order.",
        "zh": "每个输出都只是换了位置：打乱后输出的每一行都等于它的词元原来的输出，最大相差 {diff}"
              "（舍入误差；检查允许 {tol}）。自注意力没有看出新的顺序。"},
    "pg.order_verdict_changed": {
        "en": "The outputs changed, not only their order: they differ from the moved outputs by up to {diff}.{why}",
        "zh": "输出变了，不只是换了顺序：与移动后的原输出最多相差 {diff}。{why}"},
    "pg.order_why_pe": {"en": "The positions stayed in place while the tokens moved, so each token now gets another "
                              "position vector.",
                        "zh": "词元移动了，位置向量却留在原处，所以每个词元现在加上的是另一个位置向量。"},
    "pg.order_why_causal": {"en": "The causal mask lets each token see only the tokens before it, and which tokens "
                                  "come before changes with the order.",
                            "zh": "因果掩码只让每个词元看到它前面的词元，而哪些词元在前面会随顺序改变。"},
    "pg.order_row_same": {"en": "Output of {label} (row {old}) is unchanged; it moved to row {new} "
                                "(difference {diff}).",
                          "zh": "{label}（第 {old} 行）的输出没有变，只是移到了第 {new} 行（相差 {diff}）。"},
    "pg.order_row_changed": {"en": "Output of {label} (row {old}) changed: in row {new} it differs from before by "
                                   "up to {diff}.",
                             "zh": "{label}（第 {old} 行）的输出变了：移到第 {new} 行后，与原来最多相差 {diff}。"},
    "pg.order_kept": {"en": "The last good order, **{order}**, is used below.",
                      "zh": "下面仍使用上一个有效的顺序 **{order}**。"},
    "pg.order_more": {"en": "The other {n} tokens", "zh": "其余 {n} 个词元"},
    "err.pos_whole": {"en": "{name} must be a whole number from {lo} to {hi}; it is {value}.",
                      "zh": "{name} 必须是 {lo} 到 {hi} 之间的整数，现在是 {value}。"},
    "err.pos_kind": {"en": "Positions must be one of {choices}; “{kind}” is not one.",
                     "zh": "位置编码只能是 {choices} 之一，不能是“{kind}”。"},
    "err.pos_too_big": {"en": "{n} × {d} position numbers are too many: at most {top} are made.",
                        "zh": "{n} × {d} 个位置数值太多了：最多生成 {top} 个。"},
    "err.pos_shape": {"en": "PE is {pe} but X is {x}: they must have the same shape.",
                      "zh": "PE 的形状是 {pe}，X 的是 {x}：两者必须相同。"},
    "err.order_too_long": {"en": "An order is at most {top} characters long.", "zh": "顺序最多 {top} 个字符。"},
    "err.order_not_numbers": {
        "en": "“{what}” is not a token number: write the numbers 1 to {n}, each once, in the new order.",
        "zh": "“{what}”不是词元编号：请按新顺序写出 1 到 {n}，每个数一次。"},
    "err.order_length": {"en": "The order names {got} tokens, but there are {n}: write each of 1 to {n} once.",
                         "zh": "这个顺序写了 {got} 个词元，但一共有 {n} 个：请把 1 到 {n} 各写一次。"},
    "err.order_range": {"en": "{value} is not a token number: the tokens are numbered 1 to {n}.",
                        "zh": "{value} 不是词元编号：词元的编号是 1 到 {n}。"},
    "err.order_repeat": {"en": "{value} appears twice and {missing} is missing: a new order names every token once.",
                         "zh": "{value} 出现了两次，{missing} 没有出现：新顺序要把每个词元写一次。"},
    "err.order_bad": {"en": "The order must name each of the {n} tokens once.",
                      "zh": "顺序必须把 {n} 个词元各写一次。"},
})
