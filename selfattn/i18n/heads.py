"""UI strings: the Heads & devices page."""

STRINGS: dict[str, dict[str, str]] = {
    "hd.title": {"en": "Heads & devices: one head or many, and what it costs", "zh": "多头与设备：单头还是多头，代价几何"},
    "hd.intro": {
        "en": r"Multi-head attention cuts $Q$, $K$ and $V$ into $h$ slices of $d_k = d_{model}/h$ columns, lets each "
              r"slice attend on its own, puts the results side by side and mixes them with $W_o$. Below: what "
              "that changes, proof that it matches PyTorch, two classic bugs, and timings.",
        "zh": r"多头注意力把 $Q$、$K$、$V$ 按列切成 $h$ 份（每份 $d_k = d_{model}/h$ 列），每一份各自计算注意力，"
              r"再把结果并排拼接，用 $W_o$ 混合。下面展示这带来的变化、与 PyTorch 一致的证明、两个常见错误，以及测速。",
    },
    "hd.part_compare": {"en": "One head or many", "zh": "单头还是多头"},
    "hd.part_check": {"en": "Checked against PyTorch, and two bugs", "zh": "与 PyTorch 核对，及两个常见错误"},
    "hd.part_bench": {"en": "Timing", "zh": "测速"},
    "hd.check_input": {"en": "The input of part 1: {what}, {n} tokens, `d_model` = {d}, {h} heads{mask}. Change it in "
                             "part 1.",
                       "zh": "输入与第 1 部分相同：{what}，{n} 个词元，`d_model` = {d}，{h} 个头{mask}。请在第 1 部分修改。"},
    "hd.check_mask": {"en": ", causal mask", "zh": "，因果掩码"},
    "hd.compare_header": {"en": "1 · One head vs several, same weights", "zh": "1 · 同一组权重：单头与多头"},
    "hd.input": {"en": "Input", "zh": "输入"},
    "hd.input_random": {"en": "Random", "zh": "随机"},
    "hd.input_sentence": {"en": "A sentence's token vectors", "zh": "一句话的词元向量"},
    "hd.seed": {"en": "Seed", "zh": "随机种子"},
    "hd.n": {"en": "Tokens n", "zh": "词元数 n"},
    "hd.d_model": {"en": "d_model", "zh": "d_model"},
    "hd.sentence": {"en": "Sentence", "zh": "句子"},
    "hd.sentence_placeholder": {"en": "Type a sentence", "zh": "输入一句话"},
    "hd.causal": {"en": "Causal mask", "zh": "因果掩码"},
    "hd.heads": {"en": "Heads h", "zh": "头数 h"},
    "hd.heads_help": {"en": "Only divisors of d_model: every head gets d_model / h columns.",
                      "zh": "只能是 `d_model` 的约数：每个头分到 `d_model / h` 列。"},
    # The formulas of the page, built from the state they describe (ui.heads.page.attention_tex).
    "hd.tex_attention": {"en": r"$\mathrm{{softmax}}(QK^\top/\sqrt{{{dk}}}{mask})$",
                         "zh": r"$\mathrm{{softmax}}(QK^\top/\sqrt{{{dk}}}{mask})$"},
    "hd.tex_mask": {"en": r" + M", "zh": r" + M"},
    "hd.mask_note": {"en": r"$M$ is the causal mask: $-\infty$ above the diagonal, so token $i$ sees tokens "
                           r"$1 \dots i$ only.",
                     "zh": r"$M$ 是因果掩码：对角线以上为 $-\infty$，因此第 $i$ 个词元只能看到第 $1 \dots i$ 个词元。"},
    "hd.shapes": {
        "en": "$X$ `{n} × {d}` → $Q, K, V = XW_q, XW_k, XW_v$ `{n} × {d}` → split into {h} heads `{h} × {n} × {hd}` → "
              "{attention} per head `{h} × {n} × {n}` → $\\times V$ `{h} × {n} × {hd}` → concat `{n} × {d}` → "
              "$\\times W_o$ `{d} × {d}` → output `{n} × {d}`",
        "zh": "$X$ `{n} × {d}` → $Q, K, V = XW_q, XW_k, XW_v$ `{n} × {d}` → 拆成 {h} 个头 `{h} × {n} × {hd}` → "
              "每个头 {attention} `{h} × {n} × {n}` → $\\times V$ `{h} × {n} × {hd}` → 拼接 `{n} × {d}` → "
              "$\\times W_o$ `{d} × {d}` → 输出 `{n} × {d}`",
    },
    "hd.single_map": {"en": "One head", "zh": "单头"},
    "hd.single_caption": {"en": "All {d} columns in one dot product: {attention}.",
                          "zh": "全部 {d} 列做一次点积：{attention}。"},
    "hd.multi_maps": {"en": "{h} heads", "zh": "{h} 个头"},
    "hd.multi_caption": {"en": "Each head uses its own slice of the columns ($d_k = {hd}$): {attention}; the "
                               "heads can look at different tokens.",
                         "zh": "每个头只用属于自己的一段列（$d_k = {hd}$）：{attention}；不同的头可以关注不同的词元。"},
    "hd.multi_caption_one": {"en": "With $h = 1$ the one head is the whole of $Q$, $K$ and $V$: the same map as on "
                                   "the left.",
                             "zh": "当 $h = 1$ 时，唯一的头就是完整的 $Q$、$K$、$V$：与左边的图相同。"},
    "hd.head_n": {"en": "head {i}", "zh": "头 {i}"},
    "hd.concat": {"en": "Concat of {h} heads × {hd} columns", "zh": "{h} 个头 × {hd} 列的拼接"},
    "hd.w_o": {"en": "$W_o$", "zh": "$W_o$"},
    "hd.output": {"en": "Output = concat · $W_o$", "zh": "输出 = 拼接 · $W_o$"},
    "hd.check_header": {"en": "2 · Checked against PyTorch", "zh": "2 · 与 PyTorch 核对"},
    "hd.check_intro": {
        "en": "The same $X$ (`{n} × {d}`) and weights go through `torch.nn.MultiheadAttention` with {h} heads in "
              "`float64`. The largest difference between its output and ours:",
        "zh": "把同样的 $X$（`{n} × {d}`）和权重以 `float64` 送入 {h} 个头的 `torch.nn.MultiheadAttention`，"
              "它的输出与本页输出之间的最大差异：",
    },
    "hd.check_no_mask": {"en": "max |ours − PyTorch|, no mask", "zh": "与 PyTorch 的最大绝对差，无掩码"},
    "hd.check_causal": {"en": "max |ours − PyTorch|, causal mask", "zh": "与 PyTorch 的最大绝对差，因果掩码"},
    "hd.check_help": {"en": "Around 1e-16 is float64 rounding; the tests require ≤ 1e-10.",
                      "zh": "1e-16 左右是 float64 的舍入误差；测试要求 ≤ 1e-10。"},
    "hd.check_failed": {"en": "The outputs disagree with PyTorch. Please report this.",
                        "zh": "输出与 PyTorch 不一致，请报告这个问题。"},
    "hd.mistake_bare_reshape": {"en": "Mistake 1: splitting heads with a bare reshape",
                                "zh": "错误 1：只用一次变形拆分多头"},
    "hd.mistake_bare_reshape_explain": {
        "en": "Reshaping $Q$ from `({n}, {d})` straight to `({h}, {n}, {hd})` keeps the memory order, so "
              "“head 1” gets the first rows of $Q$, that is, pieces of several tokens, not the first "
              "{hd} columns of every token. The shapes look right; the answer is not. The right way "
              "is reshape to `({n}, {h}, {hd})`, then transpose to `({h}, {n}, {hd})`. Both outputs below share "
              "one colour scale.",
        "zh": "把 $Q$ 从 `({n}, {d})` 直接变形成 `({h}, {n}, {hd})` 会保持内存顺序，于是“第 1 个头”拿到的是 "
              "$Q$ 的前几行——几个词元的碎片——而不是每个词元的前 {hd} 列。形状看起来没错，结果却错了。"
              "正确做法是先变形成 `({n}, {h}, {hd})`，再转置成 `({h}, {n}, {hd})`。下面两个输出共用同一个色标。",
    },
    "hd.mistake_scale_after_softmax": {"en": r"Mistake 2: dividing by $\sqrt{d_k}$ after the softmax",
                                       "zh": r"错误 2：在 softmax 之后才除以 $\sqrt{d_k}$"},
    "hd.mistake_scale_after_softmax_explain": {
        "en": "The scale belongs inside: {right}. The wrong code computes {wrong}: it only shrinks the weights "
              "(here $d_k = {hd}$, so by $\\sqrt{{{hd}}} = {root}$) and leaves the softmax as sharp as without "
              "scaling. Below: head 1's attention weights and every row's sum, both computed, for the right and the "
              "wrong code, on one colour scale.",
        "zh": "缩放应该放在里面：{right}。错误的代码算的是 {wrong}：它只会把权重整体缩小（这里 $d_k = {hd}$，"
              "即除以 $\\sqrt{{{hd}}} = {root}$），而 softmax 的尖锐程度与不缩放时一样。下面是正确与错误两种代码"
              "算出的第 1 个头的注意力权重及每行之和（都是实际算出的），共用同一个色标。",
    },
    "hd.tex_wrong": {"en": r"$\mathrm{{softmax}}(QK^\top{mask})/\sqrt{{{dk}}}$",
                     "zh": r"$\mathrm{{softmax}}(QK^\top{mask})/\sqrt{{{dk}}}$"},
    "hd.weights_of": {"en": "{which}: head 1's weights", "zh": "{which}：第 1 个头的权重"},
    "hd.row_sums": {"en": "Row sums of head 1's weights", "zh": "第 1 个头权重的行和"},
    "hd.row_sums_range": {"en": "Row sums over all {h} heads, right: {right_lo} to {right_hi}; wrong: {wrong_lo} to "
                                "{wrong_hi}.",
                          "zh": "全部 {h} 个头的行和，正确：{right_lo} 至 {right_hi}；错误：{wrong_lo} 至 {wrong_hi}。"},
    "hd.query_token": {"en": "query token", "zh": "查询词元"},
    "hd.mistake_diff": {"en": "max |wrong − right|", "zh": "错误与正确的最大绝对差"},
    "hd.right": {"en": "Right", "zh": "正确"},
    "hd.wrong": {"en": "Wrong", "zh": "错误"},
    "hd.difference": {"en": "Wrong − right", "zh": "错误 − 正确"},
    "hd.right_output": {"en": "Right output", "zh": "正确的输出"},
    "hd.wrong_output": {"en": "Wrong output", "zh": "错误的输出"},
    "hd.bench_header": {"en": "3 · Timing: three steps, fused, and PyTorch's multi-head module",
                        "zh": "3 · 测速：分步实现、融合实现与 PyTorch 多头模块"},
    "hd.bench_intro": {
        "en": r"**{naive}** computes $QK^\top$, the softmax and $\cdot V$ as three steps and keeps the full "
              r"$n \times n$ score matrix in memory; **{fused}** calls torch's `scaled_dot_product_attention`; "
              r"**{torch_mha}** is `torch.nn.MultiheadAttention`. All three include the $Q$, $K$, $V$ and output "
              "projections.",
        "zh": r"**{naive}**分三步计算 $QK^\top$、softmax 和 $\cdot V$，并在内存中保留完整的 $n \times n$ 分数矩阵；"
              r"**{fused}**调用 torch 的 `scaled_dot_product_attention`；**{torch_mha}**即 "
              "`torch.nn.MultiheadAttention`。三者都包含 $Q$、$K$、$V$ 和输出投影。",
    },
    "hd.bench_method": {
        "en": "How your runs are timed: on {threads} CPU thread(s), which other programs on the machine disturb least; "
              "{warmup} warm-up call(s); then {rounds} rounds in which the implementations of one configuration take "
              "turns, so that a busy moment hits them all; about {ms} ms of calls per configuration. Shown: the "
              "median of the rounds with its spread (IQR), and the best round.",
        "zh": "本页测速的方法：在 {threads} 个 CPU 线程上运行（机器上其他程序对它的干扰最小）；先预热 {warmup} 次调用；"
              "再进行 {rounds} 轮，每轮中同一配置的各实现轮流计时，机器忙时各实现同样受影响；每个配置约 {ms} 毫秒的调用。"
              "显示各轮的中位数及其四分位距，以及最快的一轮。",
    },
    "hd.impl_naive": {"en": "three steps", "zh": "分步实现"},
    "hd.impl_fused": {"en": "fused", "zh": "融合实现"},
    "hd.impl_torch_mha": {"en": "PyTorch multi-head module", "zh": "PyTorch 多头模块"},
    "hd.device": {"en": "Device", "zh": "设备"},
    "hd.device_cpu": {"en": "CPU", "zh": "CPU"},
    "hd.device_cuda": {"en": "GPU", "zh": "GPU"},
    "hd.device_caption": {"en": "Runs on {name}, {threads} thread(s), {dtype}.",
                          "zh": "运行于 {name}，{threads} 个线程，{dtype}。"},
    "hd.dtype": {"en": "Precision", "zh": "精度"},
    "hd.dtype_help": {"en": "bfloat16 and float16 are meant for GPUs; on a CPU they are often slower.",
                      "zh": "`bfloat16` 和 `float16` 主要用于 GPU；在 CPU 上往往更慢。"},
    "hd.batch": {"en": "Batch B", "zh": "批大小 B"},
    "hd.bench_d_model": {"en": "d_model", "zh": "d_model"},
    "hd.bench_heads": {"en": "Heads", "zh": "头数"},
    "hd.bench_lens": {"en": "Sequence lengths n", "zh": "序列长度 n"},
    "hd.bench_impls": {"en": "Implementations", "zh": "实现"},
    "hd.bench_limits": {"en": "Offered here: n up to {n}, d_model up to {d}, up to {heads} heads, batch up to {batch}, "
                              "at most {runs} runs per sweep; runs that would not fit in memory are refused before "
                              "they start.",
                        "zh": "此处可选：n 最大 {n}，`d_model` 最大 {d}，最多 {heads} 个头，批大小最大 {batch}，"
                              "每次最多 {runs} 个配置；放不进内存的配置会在开始前被拒绝。"},
    "hd.bench_shared": {"en": "This is a shared server: a sweep may take about {budget} s of computing on one core, "
                              "one sweep runs at a time for everyone, and you can run again {cooldown} s after your "
                              "last sweep.",
                        "zh": "这是一台共享服务器：一次测速最多约占用一个核心 {budget} 秒的计算，所有人同一时间只能运行一次测速，"
                              "上一次测速结束 {cooldown} 秒后才能再运行。"},
    "hd.bench_run": {"en": "Run benchmark", "zh": "开始测速"},
    "hd.bench_starting": {"en": "Starting…", "zh": "正在开始……"},
    "hd.bench_progress": {"en": "Run {run} of {total}: {label}", "zh": "正在运行第 {run}/{total} 个配置：{label}"},
    "hd.bench_finished": {"en": "Finished all {total} runs.", "zh": "全部 {total} 个配置已完成。"},
    "hd.bench_noisy": {
        "en": "Noisy timings ({n} of the {total} shown, marked {mark} in the table): the IQR is above {share} of the "
              "median. Something else was using the machine; time them again before comparing.",
        "zh": "波动较大的计时：所显示的 {total} 个计时中有 {n} 个的四分位距超过中位数的 {share}（表中以 {mark} 标出）。"
              "说明当时机器还在做别的事；比较之前请重新计时。",
    },
    "hd.bench_quiet": {"en": "All {total} timings shown are steady: every IQR is within {share} of its median.",
                       "zh": "所显示的 {total} 个计时都很稳定：每个四分位距都不超过其中位数的 {share}。"},
    "hd.bench_not_ok": {"en": "{n} run(s) did not complete (refused or out of memory); see the status column.",
                        "zh": "有 {n} 个配置未完成（被拒绝或内存不足），见状态列。"},
    "hd.bench_empty": {"en": "Run a benchmark, or show a bundled or uploaded results file.",
                       "zh": "运行一次测速，或显示内置的、上传的结果文件。"},
    "hd.bench_shown": {"en": "Shown: {sources}. Choose others under “Compare with results from another machine”.",
                       "zh": "当前显示：{sources}。可在“与其他机器的结果比较”中另选。"},
    "hd.upload": {"en": "Compare with results from another machine", "zh": "与其他机器的结果比较"},
    "hd.upload_help": {
        "en": "Run `python -m selfattn.bench --device cuda ... --out results.json` on a GPU server and upload "
              "the file (JSON or CSV, up to 2 MB). Results committed with the project can be shown too.",
        "zh": "在 GPU 服务器上运行 `python -m selfattn.bench --device cuda ... --out results.json`，然后上传结果文件"
              "（JSON 或 CSV，不超过 2 MB）。也可以显示项目自带的结果。",
    },
    "hd.bundled": {"en": "Results bundled with the project", "zh": "项目自带的结果"},
    "hd.bundled_name": {"en": "{device} · {dtype} (bundled)", "zh": "{device} · {dtype}（项目自带）"},
    "hd.bundled_about": {
        "en": "**{name}**: measured {date} on {machine}; {dtype}, batch {batch}, d_model {d_model}, heads {heads}, "
              "n {lens}, torch {torch}, {threads} thread(s).",
        "zh": "**{name}**：{date} 测于 {machine}；{dtype}，批大小 {batch}，`d_model` {d_model}，头数 {heads}，"
              "n 取 {lens}，torch {torch}，{threads} 个线程。",
    },
    "hd.upload_file": {"en": "Results file", "zh": "结果文件"},
    "hd.upload_file_help": {"en": "A .json or .csv file written by python -m selfattn.bench, up to {mb} MB.",
                            "zh": "由 `python -m selfattn.bench` 生成的 `.json` 或 `.csv` 文件，不超过 {mb} MB。"},
    "hd.upload_ok": {"en": "Loaded {name}: {n} runs.", "zh": "已载入 {name}：{n} 个配置。"},
    "hd.this_run": {"en": "your run", "zh": "本次运行"},
    "hd.chart_time": {"en": "Time vs sequence length (log–log)", "zh": "时间与序列长度（双对数坐标）"},
    "hd.chart_mem": {"en": "Peak memory vs sequence length (log–log)", "zh": "峰值内存与序列长度（双对数坐标）"},
    "hd.axis_time": {"en": "median time (ms)", "zh": "中位时间（毫秒）"},
    "hd.axis_mem": {"en": "peak memory (MiB, GiB)", "zh": "峰值内存（MiB、GiB）"},
    "hd.axis_n": {"en": "sequence length n", "zh": "序列长度 n"},
    "hd.ratios": {"en": "Ratios (above 1: the second is faster or smaller)", "zh": "比值（大于 1 表示后者更快或更省）"},
    # Column headers of the results tables and chart tooltips; exports keep the field names.
    "hd.col_source": {"en": "results", "zh": "来源"},
    "hd.col_impl": {"en": "implementation", "zh": "实现"},
    "hd.col_series": {"en": "implementation · heads", "zh": "实现 · 头数"},
    "hd.col_heads": {"en": "heads", "zh": "头数"},
    "hd.col_seq_len": {"en": "sequence length n", "zh": "序列长度 n"},
    "hd.col_batch": {"en": "batch B", "zh": "批大小 B"},
    "hd.col_d_model": {"en": "d_model", "zh": "d_model"},
    "hd.col_dtype": {"en": "precision", "zh": "精度"},
    "hd.col_device_name": {"en": "device", "zh": "设备"},
    "hd.col_median_ms": {"en": "median (ms)", "zh": "中位时间（毫秒）"},
    "hd.col_iqr_ms": {"en": "IQR (ms)", "zh": "四分位距（毫秒）"},
    "hd.col_min_ms": {"en": "best round (ms)", "zh": "最快一轮（毫秒）"},
    "hd.col_iqr_share": {"en": "IQR / median (%)", "zh": "四分位距 / 中位数（%）"},
    "hd.col_noisy": {"en": "noisy", "zh": "波动大"},
    "hd.col_gflops": {"en": "GFLOP/s", "zh": "GFLOP/s"},
    "hd.col_peak_mem": {"en": "peak memory", "zh": "峰值内存"},
    "hd.col_num_threads": {"en": "CPU threads", "zh": "CPU 线程数"},
    "hd.col_status": {"en": "status", "zh": "状态"},
    "hd.col_error": {"en": "error", "zh": "错误"},
    # Values of the status column (exports keep the codes).
    "hd.status_ok": {"en": "ok", "zh": "完成"},
    "hd.status_refused": {"en": "refused", "zh": "已拒绝"},
    "hd.status_oom": {"en": "out of memory", "zh": "内存不足"},
    "hd.status_error": {"en": "error", "zh": "出错"},
    "hd.error_bench_memory": {"en": "needs about {mib} MiB, more than may be used here",
                              "zh": "大约需要 {mib} MiB，超过了此处可用的内存"},
    "hd.error_bench_time": {"en": "skipped: the sweep had used the computing time this server allows",
                            "zh": "已跳过：这次测速已用完此服务器允许的计算时间"},
    "hd.error_bench_rss": {"en": "skipped: the sweep had used the memory this server allows",
                           "zh": "已跳过：这次测速已用完此服务器允许的内存"},
    "hd.shown_heads": {"en": "the first {k} of {h} heads shown, to keep the page light; the CSV has every head",
                       "zh": "为使页面轻便，只显示 {h} 个头中的前 {k} 个；CSV 中有全部的头"},
    "hd.shown_block": {"en": "{r} of {rows} rows and {c} of {cols} columns shown, to keep the page light; the CSV "
                             "has them all",
                       "zh": "为使页面轻便，只显示 {rows} 行中的 {r} 行、{cols} 列中的 {c} 列；CSV 中有全部数据"},
    "hd.bundled_placeholder": {"en": "Choose result files", "zh": "选择结果文件"},
    "hd.bench_placeholder": {"en": "Choose at least one", "zh": "请至少选择一项"},
    "hd.col_time_ratio": {"en": "time {a} / {b}", "zh": "时间 {a} / {b}"},
    "hd.col_best_ratio": {"en": "best rounds {a} / {b}", "zh": "最快一轮 {a} / {b}"},
    "hd.best_missing": {"en": "not in this file (written before best rounds were kept)",
                        "zh": "此文件没有（写入时还不记录最快一轮）"},
    # One setup (machine, precision, batch, d_model) per chart, and what its runs show (selfattn.bench.summary).
    "hd.setup_title": {"en": "{device}, {dtype}, batch {batch}, d_model {d_model}",
                       "zh": "{device}，{dtype}，批大小 {batch}，d_model {d_model}"},
    "hd.setup_sizes": {"en": "{source}: batch {batch}, d_model {d_model}",
                       "zh": "{source}：批大小 {batch}，d_model {d_model}"},
    "hd.setup_source": {"en": "{title} — {source}", "zh": "{title}——{source}"},
    "hd.charts_capped": {"en": "Charts for the first {shown} of {total} machines, sizes and head counts; the table "
                                "below holds every run.",
                         "zh": "只画出 {total} 组（设备、尺寸与头数）中的前 {shown} 组；下面的表格列出全部结果。"},
    "hd.setup_heads": {"en": "{title} · heads {heads}", "zh": "{title} · 头数 {heads}"},
    "hd.sum_faster": {"en": "With h = {heads}, fused is {times}× as fast as three steps (n = {n_lo} to {n_hi}).",
                      "zh": "h = {heads} 时，融合实现的速度是分步实现的 {times} 倍（n = {n_lo} 至 {n_hi}）。"},
    "hd.sum_slower": {"en": "With h = {heads}, fused is the slower: time three steps / fused is {ratio}, so fused "
                            "takes {times}× as long (n = {n_lo} to {n_hi}).",
                      "zh": "h = {heads} 时，融合实现反而更慢：分步 / 融合的时间比为 {ratio}，即融合实现耗时是分步实现的 "
                            "{times} 倍（n = {n_lo} 至 {n_hi}）。"},
    "hd.sum_noise": {"en": "With h = {heads}, fused and three steps take the same time within noise: time three steps "
                           "/ fused is {ratio}, inside the runs' spread of up to {spread} % (n = {n_lo} to {n_hi}).",
                     "zh": "h = {heads} 时，在噪声范围内融合实现与分步实现耗时相同：分步 / 融合的时间比为 {ratio}，"
                           "落在各轮最多 {spread}% 的波动之内（n = {n_lo} 至 {n_hi}）。"},
    "hd.sum_mixed": {"en": "With h = {heads}, time three steps / fused goes from {first} at n = {n_lo} to {last} at "
                           "n = {n_hi} (above 1: fused is faster).",
                     "zh": "h = {heads} 时，分步 / 融合的时间比从 n = {n_lo} 时的 {first} 变为 n = {n_hi} 时的 {last}"
                           "（大于 1 表示融合实现更快）。"},
    "hd.sum_memory": {"en": "At n = {n} and h = {heads}, three steps peaks at {naive} of memory and fused at {fused} "
                            "(three steps / fused: {ratio}).",
                      "zh": "n = {n}、h = {heads} 时，分步实现的峰值内存为 {naive}，融合实现为 {fused}（分步 / 融合：{ratio}）。"},
    "hd.why_unmeasured": {
        "en": "Why fused loses at h = {heads}: that head is {head_dim} wide. The SDPA backends measured on this GPU "
              "(`{file}`) were timed at head_dim {measured} only; there the default kernel ran at {default} TFLOP/s, "
              "at the pace of {backend}. Here fused reaches {fused} TFLOP/s at head_dim {head_dim}, while three "
              "steps, plain matrix products, reach {naive}. Which backend runs at head_dim {head_dim} that file does "
              "not show: `python benchmarks/bench_sdpa_backends.py --heads {heads}` on this GPU measures it.",
        "zh": "为什么 h = {heads} 时融合实现更慢：这个头宽 {head_dim}。在这块 GPU 上测得的各个 SDPA 后端"
              "（`{file}`）只测了 head_dim {measured}：那里默认内核跑到 {default} TFLOP/s，与 {backend} 的速度相当。"
              "这里 head_dim {head_dim} 时融合实现只有 {fused} TFLOP/s，而分步实现（普通矩阵乘法）达到 {naive}。"
              "head_dim {head_dim} 时究竟用哪个后端，该文件没有测：在这块 GPU 上运行 "
              "`python benchmarks/bench_sdpa_backends.py --heads {heads}` 即可测出。"},
    "hd.why_backend": {
        "en": "Why fused loses at h = {heads}: that head is {head_dim} wide, and the SDPA backends timed at that "
              "size on this GPU (`{file}`) show {refused} refusing it and the default kernel running at the pace of "
              "{backend}. Here fused reaches {fused} TFLOP/s, three steps, plain matrix products, {naive}.",
        "zh": "为什么 h = {heads} 时融合实现更慢：这个头宽 {head_dim}；在这块 GPU 上按这个大小测得的各个 SDPA 后端"
              "（`{file}`）显示 {refused} 不接受它，默认内核的速度与 {backend} 相当。这里融合实现达到 {fused} "
              "TFLOP/s，分步实现（普通矩阵乘法）达到 {naive}。"},
    "hd.backend_cudnn": {"en": "cuDNN", "zh": "cuDNN"},
    "hd.backend_flash": {"en": "FlashAttention", "zh": "FlashAttention"},
    "hd.backend_efficient": {"en": "memory-efficient", "zh": "内存高效后端"},
    "hd.backend_none": {"en": "no backend", "zh": "没有后端"},
    "hd.col_mem_ratio": {"en": "memory {a} / {b}", "zh": "内存 {a} / {b}"},
    "hd.results": {"en": "All runs", "zh": "全部结果"},
    "hd.download_csv": {"en": "Download results (CSV)", "zh": "下载结果（CSV）"},
    "hd.download_json": {"en": "Download results (JSON)", "zh": "下载结果（JSON）"},
    "hd.mistake_same_heads": {"en": "With one head the bare reshape happens to give the right answer; choose more "
                                    "heads to see it fail.",
                              "zh": "只有一个头时，直接变形恰好得到正确结果；选择更多的头就能看到它出错。"},
    "hd.mistake_same_tokens": {"en": "With one token the bare reshape happens to give the right answer; choose more "
                                     "tokens to see it fail.",
                               "zh": "只有一个词元时，直接变形恰好得到正确结果；选择更多的词元就能看到它出错。"},
    # Errors of selfattn.core.heads, selfattn.core.torch_attention and selfattn.bench.
    "err.heads_not_positive": {"en": "The number of heads must be a positive whole number, not {num_heads}.",
                               "zh": "头数必须是正整数，而不是 {num_heads}。"},
    "err.heads_not_divisible": {"en": "{num_heads} heads do not divide d_model = {d_model}; every head needs the "
                                      "same number of columns.",
                                "zh": "{num_heads} 个头不能整除 d_model = {d_model}；每个头必须分到相同的列数。"},
    "err.weight_shape": {"en": "{name} must be {expected}, not {got}.", "zh": "{name} 的形状应为 {expected}，而不是 {got}。"},
    "err.unknown_mistake": {"en": "Unknown mistake {mistake}; choose one of {allowed}.",
                            "zh": "未知的错误类型 {mistake}；可选：{allowed}。"},
    "err.bench_device": {"en": "Unknown device {device}; choose cpu or cuda.", "zh": "未知设备 {device}；请选择 `cpu` 或 `cuda`。"},
    "err.bench_cuda_unavailable": {"en": "CUDA was chosen, but PyTorch sees no GPU on this machine.",
                                   "zh": "选择了 CUDA，但 PyTorch 在本机上找不到 GPU。"},
    "err.bench_dtype": {"en": "Unknown precision {dtype}; choose one of {allowed}.", "zh": "未知精度 {dtype}；可选：{allowed}。"},
    "err.bench_impl": {"en": "Unknown implementation {impl}; choose from {allowed}.", "zh": "未知实现 {impl}；可选：{allowed}。"},
    "err.bench_empty": {"en": "Choose at least one value for {name}.", "zh": "请为 {name} 至少选择一个值。"},
    "err.bench_empty.heads": {"en": "Choose at least one number of heads.", "zh": "请至少选择一个头数。"},
    "err.bench_empty.seq_lens": {"en": "Choose at least one sequence length n.", "zh": "请至少选择一个序列长度 n。"},
    "err.bench_empty.impls": {"en": "Choose at least one implementation.", "zh": "请至少选择一种实现。"},
    "err.bench_positive": {"en": "{name} must be a positive number, not {value}.", "zh": "{name} 必须是正数，而不是 {value}。"},
    "err.bench_limit": {"en": "{name} = {value} is above this server's limit of {limit}.",
                        "zh": "{name} = {value} 超过了此服务器的上限 {limit}。"},
    "err.bench_limit.runs": {
        "en": "This sweep has {value} runs; this server allows at most {limit}. Choose fewer head counts, "
              "sequence lengths or implementations.",
        "zh": "这次测速共有 {value} 个配置，此服务器最多允许 {limit} 个。请减少头数、序列长度或实现的选择。",
    },
    "err.bench_limit.attention_elements": {
        "en": "The largest run would hold {value} attention weights (batch × heads × n²); this server allows at most "
              "{limit}. Choose shorter sequences, fewer heads or a smaller batch.",
        "zh": "最大的配置会产生 {value} 个注意力权重（批大小 × 头数 × n²），此服务器最多允许 {limit} 个。"
              "请选择更短的序列、更少的头或更小的批大小。",
    },
    "err.bench_limit.batch": {"en": "Batch B = {value} is above this server's limit of {limit}.",
                              "zh": "批大小 B = {value} 超过了此服务器的上限 {limit}。"},
    "err.bench_limit.seq_len": {"en": "Sequence length n = {value} is above this server's limit of {limit}.",
                                "zh": "序列长度 n = {value} 超过了此服务器的上限 {limit}。"},
    "err.bench_limit.heads": {"en": "{value} heads are more than this server's limit of {limit}.",
                              "zh": "{value} 个头超过了此服务器的上限 {limit}。"},
    "err.bench_limit.min_run_time": {"en": "{value} s of timing per run is above this server's limit of {limit} s.",
                                     "zh": "每个配置计时 {value} 秒，超过了此服务器的上限 {limit} 秒。"},
    "err.bench_limit.warmup": {"en": "{value} warm-up calls per run are more than this server's limit of {limit}.",
                               "zh": "每个配置预热 {value} 次，超过了此服务器的上限 {limit} 次。"},
    "err.bench_cost": {"en": "This sweep would take about {estimate_s} s of computing; this shared server allows "
                             "{budget_s} s per sweep. Choose fewer or shorter runs, a smaller batch or d_model, or "
                             "float32 or bfloat16 (float16 is slow on a CPU).",
                       "zh": "这次测速大约需要 {estimate_s} 秒的计算，而这台共享服务器每次只允许 {budget_s} 秒。"
                             "请减少或缩短配置，减小批大小或 d_model，或选择 `float32`、`bfloat16`（`float16` 在 CPU 上很慢）。"},
    "err.bench_busy": {"en": "Someone else's benchmark is running on this server right now (one runs at a time). "
                             "Try again in about {retry_s} s.",
                       "zh": "这台服务器上正在运行别人的测速（同一时间只能运行一个）。请大约 {retry_s} 秒后再试。"},
    "err.bench_cooldown": {"en": "You ran a benchmark moments ago. You can run again in {wait_s} s.",
                           "zh": "你刚刚运行过一次测速。{wait_s} 秒后可以再次运行。"},
    "err.bench_guard_required": {"en": "The memory guard can only be switched off for CUDA on your own machine.",
                                 "zh": "只有在自己机器上的 CUDA 才能关闭内存保护。"},
    "err.bench_memory": {"en": "This run needs about {estimate_mib} MiB, more than the {budget_mib} MiB available. "
                               "Choose shorter sequences, fewer heads or a smaller batch.",
                         "zh": "该配置大约需要 {estimate_mib} MiB，超过了可用的 {budget_mib} MiB。"
                               "请选择更短的序列、更少的头或更小的批大小。"},
    "err.results_too_big": {"en": "The file has {size} bytes; at most {limit} are accepted.",
                            "zh": "文件有 {size} 字节；最多接受 {limit} 字节。"},
    "err.results_too_deep": {"en": "The file's JSON nests {value} levels deep; a results file nests at most {limit}.",
                             "zh": "文件中的 JSON 嵌套了 {value} 层；结果文件最多嵌套 {limit} 层。"},
    "err.results_too_many_columns": {"en": "The file has {value} columns; a results file has at most {limit}.",
                                     "zh": "文件有 {value} 列；结果文件最多有 {limit} 列。"},
    "err.results_too_many_values": {"en": "The file holds far more values than a results file of at most {rows} runs; "
                                          "it was not read.",
                                    "zh": "文件中的数值远多于最多 {rows} 个配置的结果文件所能包含的数量，因此没有读取。"},
    "err.results_format": {"en": "{filename} is neither a .json nor a .csv file.", "zh": "{filename} 既不是 `.json` 也不是 `.csv` 文件。"},
    "err.results_encoding": {"en": "The file is not UTF-8 text (byte {position}).", "zh": "文件不是 UTF-8 文本（第 {position} 字节）。"},
    # {detail} is the parser's own English words, kept because they say what it tripped on.
    "err.results_bad_json": {"en": "The file is not valid JSON (line {line}; the parser says: {detail}).",
                             "zh": "文件不是有效的 JSON（第 {line} 行；解析器的原话：{detail}）。"},
    "err.results_json_unreadable": {"en": "The file's JSON nests too deeply or holds a number too long to read.",
                                    "zh": "文件中的 JSON 嵌套过深，或含有过长而无法读取的数字。"},
    "err.results_not_records": {"en": "The JSON must be a list of records, or an object with a “records” list.",
                                "zh": "JSON 必须是记录的列表，或含有 `records` 列表的对象。"},
    "err.results_bad_csv": {"en": "The file is not valid CSV (line {line}; the parser says: {detail}).",
                            "zh": "文件不是有效的 CSV（第 {line} 行；解析器的原话：{detail}）。"},
    "err.results_csv_cells": {"en": "Row {row} (line {line} of the file) has a different number of cells than the "
                                    "header.",
                              "zh": "第 {row} 行（文件第 {line} 行）的单元格个数与表头不同。"},
    "err.results_structure": {"en": "Row {row} is not a record of named fields.", "zh": "第 {row} 行不是由字段组成的记录。"},
    "err.results_empty": {"en": "The file holds no results.", "zh": "文件中没有任何结果。"},
    "err.results_too_many_rows": {"en": "The file has {rows} results; at most {limit} are accepted.",
                                  "zh": "文件有 {rows} 条结果；最多接受 {limit} 条。"},
    "err.results_missing_field": {"en": "Row {row} has no {field} field. Upload a file written by "
                                        "python -m selfattn.bench.",
                                  "zh": "第 {row} 行缺少 {field} 字段。请上传由 `python -m selfattn.bench` 生成的文件。"},
    "err.results_not_finite": {"en": "Row {row}: {field} is not a finite number.", "zh": "第 {row} 行：{field} 不是有限的数字。"},
    "err.results_bad_value": {"en": "Row {row}: {field} = {value} is not valid.",
                              "zh": "第 {row} 行：{field} = {value} 无效。"},
    "err.results_bad_value.not_text": {"en": "Row {row}: {field} must be text of at most {max_chars} characters.",
                                       "zh": "第 {row} 行：{field} 必须是不超过 {max_chars} 个字符的文本。"},
    "err.results_bad_value.not_allowed": {"en": "Row {row}: {field} = {value} is not valid; it must be one of "
                                                "{allowed}.",
                                          "zh": "第 {row} 行：{field} = {value} 无效，只能是 {allowed} 之一。"},
    "err.results_bad_value.not_number": {"en": "Row {row}: {field} = {value} is not a number.",
                                         "zh": "第 {row} 行：{field} = {value} 不是数字。"},
    "err.results_bad_value.out_of_range": {"en": "Row {row}: {field} = {value} is out of range.",
                                           "zh": "第 {row} 行：{field} = {value} 超出了允许的范围。"},
    "err.results_bad_value.not_whole": {"en": "Row {row}: {field} = {value} must be a whole number.",
                                        "zh": "第 {row} 行：{field} = {value} 必须是整数。"},
    "err.results_bad_value.not_divisor": {"en": "Row {row}: {field} = {value} does not divide d_model.",
                                          "zh": "第 {row} 行：{field} = {value} 不能整除 d_model。"},
    "err.results_bad_value.required_when_ok": {"en": "Row {row}: {field} needs a number when the status is “ok”.",
                                               "zh": "第 {row} 行：状态为“完成”（`ok`）时，{field} 必须有数值。"},
}
