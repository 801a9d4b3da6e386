"""UI strings shared by every page: navigation, home, common buttons, input errors."""

STRINGS: dict[str, dict[str, str]] = {
    # ── settings.txt in a page's ZIP (the Playground's, the block page's): the lines they share ──
    "common.settings_link": {"en": "Link to this view: {link}", "zh": "本视图的链接：{link}"},
    "common.settings_link_short": {"en": "The tables did not fit in a link, so it carries the settings only; the "
                                         "tables are the CSV files beside this one.",
                                   "zh": "表格太大，放不进链接，所以链接只带设置；表格就是旁边的 CSV 文件。"},
    "common.settings_line": {"en": "{name}: {value}", "zh": "{name}：{value}"},
    "common.settings_on": {"en": "on", "zh": "开"},
    "common.settings_off": {"en": "off", "zh": "关"},
    "common.settings_lang": {"en": "Language: {language}", "zh": "语言：{language}"},
    "nav.home": {"en": "Home", "zh": "首页"},
    "nav.playground": {"en": "Playground", "zh": "动手实验"},
    "nav.embeddings": {"en": "Sentence embeddings", "zh": "句子嵌入"},
    "nav.heads": {"en": "Heads & devices", "zh": "多头与设备"},
    "common.list_sep": {"en": ", ", "zh": "，"},  # between the items of a list written in a sentence
    "common.names_sep": {"en": ", ", "zh": "、"},  # between short names listed in a sentence (ui.widgets.listed)
    "nav.tab_title": {"en": "{page} · selfattn", "zh": "{page} · selfattn"},  # the browser tab
    "home.title": {"en": "Self-Attention Explorer", "zh": "自注意力探索器"},
    "home.intro": {
        "en": "Self-attention, step by step, with numbers you can change. Every matrix is "
              "recomputed as you edit it, checked against PyTorch, and downloadable as CSV.",
        "zh": "一步一步看懂自注意力：每个数字都可以修改，每个矩阵随编辑即时重算，"
              "结果与 PyTorch 核对（差异只在舍入误差之内），并可下载为 CSV。",
    },
    "home.start": {
        "en": "**Where to start.** New to attention? Take these four in order: the **Playground** (one attention, "
              "step by step, on numbers you can change), the **Transformer block** (the whole layer built around it), "
              "the **Encoder–decoder** (cross-attention and writing one position at a time), then its **tiny "
              "translator** (the same machinery, trained, on real Chinese sentences). The other pages go deeper.",
        "zh": "**从哪里开始。** 第一次学注意力？请按顺序看这四步：先看**动手实验**（一次注意力，一步一步算，"
              "数字都可以改），再看 **Transformer 块**（围绕注意力搭起的完整一层），然后是**编码器–解码器**"
              "（交叉注意力，以及一次写一个位置的生成），最后是其中的**小翻译模型**（同样的结构，训练过，翻译真实的中文句子）。"
              "其他页面可以之后再深入。"},
    "home.playground": {
        "en": "Edit the inputs X and the weights W_q, W_k, W_v and follow the eight steps: "
              "queries, keys and values, scores, softmax, weighted values, their sum, for every "
              "token. Starts with the tutorials' worked example (3 inputs of dimension 4).",
        "zh": "编辑输入 X 和权重 W_q、W_k、W_v，跟着八个步骤走：查询、键、值，打分，softmax，"
              "加权值，求和，再对每个词元重复。默认载入教程中的例子（3 个 4 维输入）。",
    },
    "home.embeddings": {
        "en": "Type a Chinese or English sentence and see its embeddings, the raw form "
              "Softmax(XXᵀ/√d)X, and what the heads of a real pretrained model attend to.",
        "zh": "输入一句中文或英文，查看它的词元向量、不带权重的 Softmax(XXᵀ/√d)X，"
              "以及真实预训练模型中各个注意力头的关注模式。",
    },
    "home.heads": {
        "en": "Split attention into heads: compare one head with many, check the result against "
              "`torch.nn.MultiheadAttention`, see two classic bugs, and time it on CPU and GPU.",
        "zh": "把注意力拆成多个头：比较单头与多头，与 PyTorch 多头模块（`torch.nn.MultiheadAttention`）核对结果，"
              "看两个常见错误，并在 CPU 和 GPU 上测速。",
    },
    "home.footer": {
        "en": "Open source. Runs offline; the numbers are computed in float64 by the selfattn library.",
        "zh": "开源项目，可离线运行；所有数字由 selfattn 库以 float64 计算。",
    },
    "common.download_csv": {"en": "CSV", "zh": "CSV"},
    # Placeholders Streamlit would otherwise show in English.
    "common.projector": {"en": "Projector view", "zh": "投影视图"},
    "common.projector_help": {"en": "Larger text, maps, axis labels and legends, to read from the back of a classroom "
                                    "(kept in the link).",
                              "zh": "放大文字、热力图、坐标轴标签和图例，方便在教室后排阅读（保存在链接中）。"},
    "common.queue": {"en": "Many visitors are opening large views on this server right now; yours starts in a "
                           "moment ({n} waiting).",
                     "zh": "此刻有许多访客正在这台服务器上打开大型视图，您的页面马上开始（{n} 位在等待）。"},
    "common.busy": {"en": "This server is busy right now; your page starts in a moment ({n} waiting).",
                    "zh": "这台服务器此刻很忙，您的页面马上开始（{n} 位在等待）。"},
    "common.choose_one": {"en": "Choose an option", "zh": "请选择"},
    # Legends and tooltips of every heatmap (selfattn.display.charts.WORDS).
    "chart.row": {"en": "row", "zh": "行"},
    "chart.column": {"en": "column", "zh": "列"},
    "chart.value": {"en": "value", "zh": "数值"},
    "chart.head": {"en": "head", "zh": "头"},
    "chart.query": {"en": "query", "zh": "查询"},
    "chart.key": {"en": "key", "zh": "键"},
    "chart.weight": {"en": "weight", "zh": "权重"},
    "common.kept_last_good": {
        "en": "The last good result is still shown below.",
        "zh": "下方仍显示上一次正确的结果。",
    },
    # Input errors, keyed by InputError.code (see selfattn/errors.py).
    "err.not_numeric": {"en": "{name} must contain only numbers.", "zh": "{name} 只能包含数字。"},
    "err.wrong_ndim": {"en": "{name} has the wrong shape {shape}.", "zh": "{name} 的形状 {shape} 不对。"},
    "err.empty": {"en": "{name} is empty: it needs at least one row and one column.",
                  "zh": "{name} 是空的：至少需要一行一列。"},
    "err.not_finite": {"en": "{name} holds {value} at position ({where}); only finite numbers are allowed.",
                       "zh": "{name} 在位置 ({where}) 的值为 {value}；只允许有限的数字。"},
    "err.mask_kind": {"en": "The mask must be causal or a True/False matrix.",
                      "zh": "掩码必须是因果掩码或由真/假值组成的矩阵。"},
    "err.mask_shape": {"en": "The mask must be {n} × {n} for {n} tokens; it is {shape}.",
                       "zh": "{n} 个词元需要 {n} × {n} 的掩码，当前为 {shape}。"},
    "err.mask_empty_row": {"en": "The mask leaves token {row} with nothing to attend to.",
                           "zh": "掩码让第 {row} 个词元没有任何可以关注的位置。"},
    "err.rows_mismatch": {"en": "{name} has {rows} rows but X has {d_in} columns; they must be equal.",
                          "zh": "{name} 有 {rows} 行，而 X 有 {d_in} 列；两者必须相等。"},
    "err.dk_mismatch": {"en": "W_q has {q} columns but W_k has {k}: queries and keys need the same d_k.",
                        "zh": "W_q 有 {q} 列而 W_k 有 {k} 列：查询和键的维度 d_k 必须相同。"},
    "err.bias_len": {"en": "{name} must have {width} entries, not {got}.",
                     "zh": "{name} 应有 {width} 个数，而不是 {got} 个。"},
    "err.overflow": {"en": "The scores overflowed to infinity: the numbers in X or W are too large.",
                     "zh": "分数溢出为无穷大：X 或 W 中的数字太大了。"},
    "err.cell_not_number": {"en": "{matrix}, row {row}, column {col}: “{value}” is not a number. "
                                  "Write numbers like 0.5, -2 or 1e-3 (a dot for decimals).",
                            "zh": "{matrix} 第 {row} 行、第 {col} 列：“{value}”不是数字。"
                                  "请写成 0.5、-2 或 1e-3 这样的形式（小数点用英文句点）。"},
    "err.cell_empty": {"en": "{matrix}, row {row}, column {col} is empty. Type a number.",
                       "zh": "{matrix} 第 {row} 行、第 {col} 列是空的，请输入一个数字。"},
    "err.cell_too_large": {"en": "{matrix}, row {row}, column {col}: {value} is too large to compute with; "
                                 "numbers must stay within ±1.8e308.",
                           "zh": "{matrix} 第 {row} 行、第 {col} 列：{value} 太大，无法计算；数字必须在 ±1.8e308 以内。"},
    "err.cell_not_finite": {"en": "{matrix}, row {row}, column {col} is {value}; only finite numbers are allowed.",
                            "zh": "{matrix} 第 {row} 行、第 {col} 列为 {value}；只允许有限的数字。"},
    "err.upload_too_big": {"en": "The file is {size_kb} KB; files up to {limit_kb} KB are accepted.",
                           "zh": "文件大小为 {size_kb} KB，最多只接受 {limit_kb} KB。"},
    "err.upload_gone": {"en": "The uploaded file is no longer on the server; please upload it again.",
                        "zh": "服务器上已没有这个上传的文件，请重新上传。"},
    "err.upload_not_text": {"en": "The file is not UTF-8 text. Save it as a CSV file and try again.",
                            "zh": "该文件不是 UTF-8 文本，请另存为 CSV 文件后重试。"},
    "err.upload_not_csv": {"en": "The file could not be read as CSV: every row must hold the same number of "
                                 "comma-separated values.",
                           "zh": "无法把该文件读取为 CSV：每一行都必须有相同数量、以英文逗号分隔的数值。"},
    "err.upload_empty": {"en": "The file is empty: it needs one row of numbers per matrix row.",
                         "zh": "文件是空的：矩阵的每一行都需要在文件中占一行数字。"},
    "err.upload_shape": {"en": "{matrix} must be {want_rows} × {want_cols} (rows × columns); the file holds "
                               "{rows} × {cols}.",
                         "zh": "{matrix} 需要 {want_rows} 行、{want_cols} 列，而文件有 {rows} 行、{cols} 列。"},
    # ── Shareable links (ui/state.py) ──
    "share.caption": {"en": "Share exactly this view: copy the link below (its Copy button, or select it).",
                      "zh": "分享当前视图：复制下面的链接（点击“复制”按钮，或选中文本）。"},
    "share.copy": {"en": "Copy", "zh": "复制"},
    "share.copied": {"en": "Copied", "zh": "已复制"},
    "share.ignored": {"en": "This link was opened, except for these settings, which were left as they were:",
                      "zh": "已按链接打开，但以下设置未被采用，保持原样："},
    "share.more": {"en": "and {n} more", "zh": "另有 {n} 项"},
    "share.too_long": {"en": "Your numbers do not fit in a link of at most {n} characters, so this link holds "
                             "the preset, sizes and options but not the edited cells. Download the ZIP below to "
                             "share the numbers.",
                       "zh": "您的数字放不进最长 {n} 个字符的链接，所以此链接只包含预设、尺寸和选项，不包含编辑过的单元格。"
                             "请下载下方的 ZIP 来分享这些数字。"},
    "share.why_not_whole": {"en": "not a whole number from {lo} to {hi}", "zh": "不是 {lo} 到 {hi} 之间的整数"},
    "share.why_out_of_range": {"en": "outside {lo} to {hi}", "zh": "超出 {lo} 到 {hi} 的范围"},
    "share.why_not_bool": {"en": "must be 1 (on) or 0 (off)", "zh": "只能是 1（开）或 0（关）"},
    "share.why_not_offered": {"en": "not one of: {options}", "zh": "不在可选项中：{options}"},
    "share.why_repeated": {"en": "a choice appears twice", "zh": "有重复的选项"},
    "share.why_too_long": {"en": "longer than {n} characters", "zh": "超过 {n} 个字符"},
    "share.why_control_chars": {"en": "contains control characters", "zh": "包含控制字符"},
    "share.why_garbled": {"en": "garbled (cut short or changed by hand?)", "zh": "格式已损坏（被截断或手动改过？）"},
    "share.why_ragged": {"en": "its rows have different lengths", "zh": "各行长度不一致"},
    "share.why_table_size": {"en": "more than {rows} rows or {cols} columns", "zh": "超过 {rows} 行或 {cols} 列"},
    "share.why_wrong_shape": {"en": "must be {rows} × {cols} for the sizes in this link",
                              "zh": "按链接中的尺寸应为 {rows} × {cols}"},
    "share.why_cell_outside": {"en": "names a cell outside the {rows} × {cols} table",
                               "zh": "指向了 {rows} × {cols} 表格之外的单元格"},
    "share.why_bad_sizes": {"en": "must be four whole numbers n.d_in.d_k.d_v, n from 1 to {n}, the others from 1 "
                                  "to {d}",
                            "zh": "应为四个整数 n.d_in.d_k.d_v，n 为 1 到 {n}，其余为 1 到 {d}"},
    "share.why_unknown": {"en": "not a setting of this page", "zh": "不是此页面的设置"},
    # ── What the browser sent and the server refused (ui/guard.py) ──
    "guard.settings": {"en": "Your browser sent a value for {names} that this page does not offer, so it was not "
                             "used: the setting is as it was.",
                       "zh": "浏览器为 {names} 发送了本页面不提供的值，因此未被采用，设置保持原样。"},
    "guard.editor": {"en": "A change to {matrix} was not used, because {why}. The table is as it was before it.",
                     "zh": "对 {matrix} 的修改未被采用，因为{why}。表格保持修改前的样子。"},
    "common.undo": {"en": "Undo", "zh": "撤销"},
    "guard.editor_why.format": {"en": "it was not an edit of a table", "zh": "它不是对表格的编辑"},
    "guard.editor_why.rows": {"en": "it added, removed or named rows this table of fixed size does not have",
                              "zh": "它增加、删除或指向了这个固定大小的表格没有的行"},
    "guard.editor_why.columns": {"en": "it named a column this table does not have", "zh": "它指向了表格没有的列"},
    "guard.editor_why.cell": {"en": "a cell was longer than its column takes (numbers {n} characters, labels "
                                    "{labels})",
                              "zh": "有单元格超出了该列允许的长度（数字 {n} 个字符，标签 {labels} 个）"},
    # ── A map wider or taller than its box (ui/components/heatmap.js fills in the counts as it scrolls) ──
    "common.map_hidden_cols": {"en": "Scroll sideways: {hidden} of {total} columns are out of view.",
                               "zh": "可左右滚动：{total} 列中有 {hidden} 列不在视野内。"},
    "common.map_hidden_rows": {"en": "Scroll down: {hidden} of {total} rows are out of view.",
                               "zh": "可上下滚动：{total} 行中有 {hidden} 行不在视野内。"},
    # ── A box the server wrote, while the maps above already show a newer edit (ui/components/outdated.js) ──
    "common.updating": {"en": "Updating…", "zh": "正在更新…"},
    # ── A weights map under a mask (ui/components/heatmap.js writes it under the map, beside a masked cell's colour) ──
    "common.map_masked": {"en": "Masked: the score was −∞ before softmax, so the weight is 0.",
                          "zh": "被掩码遮住：softmax 之前分数为 −∞，所以权重为 0。"},
}
