"""UI strings of the Efficient attention page (pages/efficient.py, ui/efficient/page.py), and the core's errors
(selfattn/core/efficient.py, selfattn/efficient/compute.py)."""

STRINGS = {
    "nav.efficient": {"en": "Efficient attention", "zh": "高效注意力"},
    "home.efficient": {
        "en": "How fast kernels compute attention, checked against PyTorch: FlashAttention's tiles and online "
              "softmax step by step, the memory traffic they save, grouped-query heads, sliding windows and rotary "
              "positions.",
        "zh": "高效内核如何计算注意力，并与 PyTorch 核对：一步步看 FlashAttention 的分块与在线 softmax、"
              "它省下的显存读写、分组查询注意力、滑动窗口和旋转位置编码。",
    },
    "ef.title": {"en": "Efficient attention", "zh": "高效注意力"},
    "ef.intro": {
        "en": "The same softmax(QKᵀ/√d)V, computed the way fast kernels do. Every result below is checked live "
              "against PyTorch or transformers.",
        "zh": "同样的 softmax(QKᵀ/√d)V，按高效内核的方式计算。下面每个结果都当场与 PyTorch 或 `transformers` 核对。",
    },
    "ef.part_tiles": {"en": "Tiles, step by step", "zh": "分块，逐步计算"},
    "ef.part_traffic": {"en": "Memory traffic", "zh": "显存读写量"},
    "ef.part_heads": {"en": "Grouped-query heads", "zh": "分组查询注意力"},
    "ef.part_window": {"en": "Sliding window", "zh": "滑动窗口"},
    "ef.part_rotary": {"en": "Rotary positions", "zh": "旋转位置编码"},
    # widgets
    "ef.seed": {"en": "Seed", "zh": "随机种子"},
    "ef.seed_help": {"en": "Q, K and V are random numbers drawn with this seed, rounded to 2 decimals.",
                     "zh": "Q、K、V 是用这个种子抽取的随机数，保留两位小数。"},
    "ef.n": {"en": "Queries n", "zh": "查询数 n"},
    "ef.d": {"en": "Width d", "zh": "宽度 d"},
    "ef.block_q": {"en": "Query block B_r", "zh": "查询块 B_r"},
    "ef.block_k": {"en": "Key block B_c", "zh": "键块 B_c"},
    "ef.causal": {"en": "Causal", "zh": "因果掩码"},
    "ef.windowed": {"en": "Sliding window", "zh": "滑动窗口"},
    "ef.windowed_help": {"en": "Query i sees keys j with i − w < j ≤ i (causal, and at most w keys).",
                         "zh": "查询 i 只看键 j，满足 i − w < j ≤ i（因果，且最多 w 个键）。"},
    "ef.window": {"en": "Window w", "zh": "窗口 w"},
    "ef.typed": {"en": "Type Q, K, V", "zh": "输入 Q、K、V"},
    "ef.typed_help": {"en": "Paste or type Q, K and V as CSV instead of the seed's random numbers.",
                      "zh": "以 CSV 粘贴或输入 Q、K、V，代替随机种子生成的数。"},
    "ef.qkv_box": {"en": "Q, K, V as CSV (each after a line # Q, # K, # V; a row a line, numbers separated by commas)",
                   "zh": "以 CSV 表示的 Q、K、V（分别写在 # Q、# K、# V 一行之后；每行一行数字，用逗号分隔）"},
    "ef.qkv_box_help": {
        "en": "Q, K and V must all be n × d. It starts from the seed's numbers; Ctrl+Enter or a click outside "
              "applies it. Seed, n and d are not used while this is on.",
        "zh": "Q、K、V 必须都是 n × d。初始内容是随机种子生成的数；按 Ctrl+Enter 或点击框外即可应用。"
              "打开时不使用随机种子、n 和 d。",
    },
    "ef.qkv_no_preview": {
        "en": "No preview in the browser here, unlike the Playground's editors: the server recomputes the tiles in "
              "a few milliseconds, so the answer comes back as fast as a preview would.",
        "zh": "这里不像动手实验页面的编辑器那样在浏览器中预览：服务器重新计算分块只需几毫秒，"
              "结果返回得和预览一样快。",
    },
    "ef.step": {"en": "Step", "zh": "步骤"},
    "ef.step_help": {"en": "How many tiles the loop has computed.", "zh": "循环已经算完的块数。"},
    "ef.first": {"en": "Start", "zh": "开头"},
    "ef.back": {"en": "Back", "zh": "上一步"},
    "ef.next": {"en": "Next", "zh": "下一步"},
    "ef.last": {"en": "End", "zh": "结尾"},
    "ef.play": {"en": "Play", "zh": "播放"},
    "ef.pause": {"en": "Pause", "zh": "暂停"},
    "ef.play_help": {"en": "Walk the tiles one a second, from the step shown to the last.",
                     "zh": "从当前步骤开始，每秒走一块，直到最后一块。"},
    # 1. tiles
    "ef.tiles_intro": {
        "en": "FlashAttention never writes the n × n score matrix to slow memory. It walks it a tile at a time: a block "
              "of B_r queries against a block of B_c keys. For each query row it keeps only a running maximum m, a "
              "running sum ℓ and an accumulator; when a new tile raises the maximum, the factor exp(m_old − m_new) "
              "rescales what was summed so far. This online softmax is exact, not an approximation: the last step "
              "checks it against PyTorch.",
        "zh": "FlashAttention 从不把 n × n 的打分矩阵写回慢速显存，而是一块一块地走：每次一个含 B_r 个查询的块对一个含 "
              "B_c 个键的块。每一行查询只保留当前最大值 m、当前的和 ℓ 以及一个累加向量；新的一块抬高最大值时，用因子 "
              "`exp(m_old − m_new)` 重新缩放之前的累计。这种在线 softmax 是精确的，不是近似：最后一步会与 PyTorch 核对。",
    },
    "ef.grid": {"en": "Scores QKᵀ/√d ({n} × {n}) in tiles of {bq} × {bk}",
                "zh": "打分 QKᵀ/√d（{n} × {n}），分成 {bq} × {bk} 的块"},
    "ef.grid_caption": {
        "en": "Bright cells: tiles computed so far; faded: not yet. The orange frame is the current tile; grey tiles "
              "are skipped (every cell masked).",
        "zh": "颜色饱满的格子是已算过的块，淡色的还没算。橙色框是当前块；灰色块被跳过（每个格子都被掩盖）。",
    },
    "ef.step_zero": {
        "en": "Nothing computed yet. The loop will compute {total} of the {tiles} tiles and skip {skipped}. Press Next.",
        "zh": "还没有计算。循环将计算 {tiles} 个块中的 {total} 个，跳过 {skipped} 个。请按“下一步”。",
    },
    "ef.step_at": {
        "en": "**Step {step} of {total}**: tile ({qb}, {kb}), queries q{r0}–q{r1} against keys k{c0}–k{c1}. "
              "Its scores, and each row's statistics after it:",
        "zh": "**第 {step} 步，共 {total} 步**：块（{qb}, {kb}），查询 q{r0}–q{r1} 对键 k{c0}–k{c1}。"
              "它的打分，以及算完它之后每一行的统计量：",
    },
    "ef.col_m_before": {"en": "m before", "zh": "之前的 m"},
    "ef.col_m": {"en": "m (new row max)", "zh": "m（新的行最大值）"},
    "ef.col_rescale": {"en": "exp(m_old − m_new)", "zh": "缩放因子"},
    "ef.col_l": {"en": "ℓ", "zh": "ℓ"},
    "ef.row_title": {"en": "**Row q{q}, written out:**", "zh": "**第 q{q} 行，逐项写出：**"},
    "ef.row_max": {
        "en": "- its scores in this tile: {scores}; the row max was {m_old}, now m = max({m_old}, the largest of "
              "these) = {m_new}",
        "zh": "- 它在这一块中的打分：{scores}；原来的行最大值是 {m_old}，新的行最大值 m 取 {m_old} 与本块最大打分中的较大者：{m_new}",
    },
    "ef.row_rescale": {
        "en": "- rescale factor exp(m_old − m_new) = exp({m_old} − {m_new}) = {rescale}",
        "zh": "- 缩放因子 `exp(m_old − m_new)` = `exp({m_old} − {m_new})` = {rescale}",
    },
    "ef.row_rescale_first": {
        "en": "- the row's first keys: m_old = {m_old}, so the factor exp({m_old} − {m_new}) = {rescale} (there is "
              "nothing to rescale yet)",
        "zh": "- 这一行第一次遇到键：m_old = {m_old}，所以因子 `exp({m_old} − {m_new})` = {rescale}（还没有需要缩放的累计）",
    },
    "ef.row_l": {
        "en": "- ℓ = ℓ_old · factor + Σ exp(s − m) = {l_old} · {rescale} + sum of {exps} = {l_old} · {rescale} + "
              "{exp_sum} = {l_new}",
        "zh": "- ℓ = ℓ_old · 因子 + `Σ exp(s − m)` = {l_old} · {rescale} + {exps} 之和 = {l_old} · {rescale} + "
              "{exp_sum} = {l_new}",
    },
    "ef.row_acc": {
        "en": "- accumulator = acc_old · factor + Σ exp(s − m) v = {acc_old} · {rescale} + … = {acc_new} (divided "
              "by ℓ only at the end)",
        "zh": "- 累加向量 = acc_old · 因子 + `Σ exp(s − m) v` = {acc_old} · {rescale} + … = {acc_new}（最后才除以 ℓ）",
    },
    "ef.skipped": {
        "en": "Skipped here: tiles {tiles} ({n}): every cell masked, so nothing was read or computed.",
        "zh": "此处跳过的块：{tiles}（共 {n} 个）：每个格子都被掩盖，不读取也不计算。",
    },
    "ef.never_stored": {
        "en": "Standard attention writes all {nn} = {n} × {n} scores to slow memory, and as many weights. The tiled "
              "loop computed {computed} tiles, skipped {skipped}, and stored none of the scores: **{never} scores "
              "never stored**.",
        "zh": "标准注意力把全部 {nn} = {n} × {n} 个打分写入慢速显存，权重也同样多。分块循环计算了 {computed} 个块，"
              "跳过 {skipped} 个，一个打分都没有存：**{never} 个打分从未存储**。",
    },
    "ef.outputs_so_far": {"en": "Rows' output so far, acc / ℓ (after {step} of {total} steps)",
                          "zh": "目前各行的输出 `acc / ℓ`（{total} 步中的第 {step} 步之后）"},
    "ef.torch_equal": {
        "en": "Equal to torch's `scaled_dot_product_attention`: largest difference {diff}.",
        "zh": "与 torch 的 `scaled_dot_product_attention` 相同：最大差值 {diff}。",
    },
    "ef.attend_equal": {
        "en": "And to the Playground's attention on the same numbers: largest difference {diff}.",
        "zh": "与动手实验页面的注意力在同样数字上的结果也相同：最大差值 {diff}。",
    },
    "ef.check_at_end": {"en": "{left} steps to go: the check against PyTorch comes after the last tile.",
                        "zh": "还差 {left} 步：走完最后一块后与 PyTorch 核对。"},
    "ef.qkv": {"en": "Q, K, V and the outputs (CSV)", "zh": "Q、K、V 与输出（CSV）"},
    "ef.download_outputs": {"en": "Outputs (CSV)", "zh": "输出（CSV）"},
    # 2. traffic
    "ef.traffic_intro": {
        "en": "Numbers moved between slow memory (`HBM`) and fast memory (`SRAM`), counted as the FlashAttention paper "
              "models them. Standard attention reads Q and K, writes the scores S, reads them, writes the weights P, "
              "reads P and V, writes O. The tiled loop reads each query block once, K and V once per query block, and "
              "writes O once.",
        "zh": "在慢速显存（`HBM`）和快速片上存储（`SRAM`）之间搬运的数字个数，按 FlashAttention 论文的模型计数。"
              "标准注意力读 Q 和 K，写打分 S，再读 S，写权重 P，读 P 和 V，写 O。分块循环每个查询块读一次，"
              "每个查询块读一遍 K 和 V，O 只写一次。",
    },
    "ef.tn": {"en": "Sequence length n", "zh": "序列长度 n"},
    "ef.td": {"en": "Head width d", "zh": "头宽度 d"},
    "ef.blocks": {"en": "Blocks from", "zh": "块大小来自"},
    "ef.blocks_sram": {"en": "fast memory size", "zh": "快速存储大小"},
    "ef.blocks_blocks": {"en": "block sizes", "zh": "直接给块大小"},
    "ef.sram": {"en": "Fast memory M (numbers)", "zh": "快速存储 M（个数）"},
    "ef.traffic_limits": {"en": "Up to n = {n:,} and d = {d}; at most {tiles:,} tiles counted.",
                          "zh": "n 最大 {n:,}，d 最大 {d}；最多计数 {tiles:,} 个块。"},
    "ef.paper_blocks": {
        "en": "From a fast memory of M = {sram:,} numbers, as the paper chooses: B_c = ⌈M / 4d⌉ = ⌈{sram:,} / "
              "(4 · {d})⌉ = {bk}, B_r = min(B_c, d) = {bq}.",
        "zh": "快速存储 M = {sram:,} 个数，按论文的选法：B_c = ⌈M / 4d⌉ = ⌈{sram:,} / (4 · {d})⌉ = {bk}，"
              "`B_r = min(B_c, d)` = {bq}。",
    },
    "ef.traffic_fewer": {
        "en": "At n = {n:,}, d = {d}, blocks B_r = {bq}, B_c = {bk}: standard attention moves {std:,} numbers "
              "({sr:,} reads, {sw:,} writes); the tiled loop moves {tiled:,} ({tr:,} reads, {tw:,} writes), "
              "**{ratio} times fewer**.",
        "zh": "在 n = {n:,}、d = {d}、块 B_r = {bq}、B_c = {bk} 时：标准注意力搬运 {std:,} 个数（读 {sr:,}，写 {sw:,}）；"
              "分块循环搬运 {tiled:,} 个（读 {tr:,}，写 {tw:,}），**少 {ratio} 倍**。",
    },
    "ef.traffic_more": {
        "en": "At n = {n:,}, d = {d}, blocks B_r = {bq}, B_c = {bk}: standard attention moves {std:,} numbers "
              "({sr:,} reads, {sw:,} writes); the tiled loop moves {tiled:,} ({tr:,} reads, {tw:,} writes), "
              "**{ratio} times more**.",
        "zh": "在 n = {n:,}、d = {d}、块 B_r = {bq}、B_c = {bk} 时：标准注意力搬运 {std:,} 个数（读 {sr:,}，写 {sw:,}）；"
              "分块循环搬运 {tiled:,} 个（读 {tr:,}，写 {tw:,}），**反而多 {ratio} 倍**。",
    },
    "ef.traffic_passes": {
        "en": "The tiled loop reads K and V {passes:,} times, once per query block of {bq} rows; each pass moves "
              "2 · n · d = 2 · {n:,} · {d} = {pass_numbers:,} numbers, {kv:,} in all: {share} of what it moves.",
        "zh": "分块循环把 K 和 V 读了 {passes:,} 遍，每个 {bq} 行的查询块一遍；每遍搬运 2 · n · d = 2 · {n:,} · {d} = "
              "{pass_numbers:,} 个数，共 {kv:,} 个，占它搬运总量的 {share}。",
    },
    "ef.traffic_big_d": {
        "en": "Here d = {d} is larger than the query block B_r = {bq}: the blocks are small, so K and V are read "
              "{passes:,} times for n = {n:,}, and the traffic grows with n² · d / B_r rather than staying near n · d.",
        "zh": "这里 d = {d} 大于查询块 B_r = {bq}：块很小，所以 n = {n:,} 时 K 和 V 要读 {passes:,} 遍，"
              "读写量随 n² · d / B_r 增长，而不是停留在 n · d 附近。",
    },
    "ef.traffic_stats": {
        "en": "Not counted above: m and ℓ, 2 numbers a query ({stats:,} at n = {n:,}), which the tiled loop also "
              "writes for the backward pass.",
        "zh": "上面没有计入：m 和 ℓ，每个查询 2 个数（n = {n:,} 时共 {stats:,} 个），分块循环也会为反向传播写出它们。",
    },
    "ef.standard": {"en": "standard (Algorithm 0)", "zh": "标准（算法 0）"},
    "ef.tiled": {"en": "tiled (FlashAttention)", "zh": "分块（FlashAttention）"},
    "ef.col_n": {"en": "n", "zh": "n"},
    "ef.col_standard_reads": {"en": "standard reads", "zh": "标准：读"},
    "ef.col_standard_writes": {"en": "standard writes", "zh": "标准：写"},
    "ef.col_tiled_reads": {"en": "tiled reads", "zh": "分块：读"},
    "ef.col_tiled_writes": {"en": "tiled writes", "zh": "分块：写"},
    # 2b. SDPA against the materialised softmax, measured
    "ef.sdpa_header": {"en": "Measured: torch's SDPA against the materialised softmax",
                       "zh": "实测：torch 的 SDPA 与存下整个矩阵的 softmax"},
    "ef.sdpa_intro": {
        "en": "The same attention two ways, one query head, d = 64, float32, on the CPU: torch's "
              "`scaled_dot_product_attention` (SDPA; on the CPU a fused kernel that works in tiles, as above), and "
              "`q @ k.T / √d → softmax → @ v`, which stores the n × n scores and weights. Time is the median of "
              "several calls; peak memory is measured with `torch.profiler` (`profile_memory=True`): the largest "
              "running total of torch's CPU allocations during one call, the output included, the inputs not.",
        "zh": "同一个注意力的两种算法，单个查询头，d = 64，`float32`，在 CPU 上：torch 的 "
              "`scaled_dot_product_attention`（SDPA；在 CPU 上是一个融合内核，像上面那样分块计算），以及 "
              "`q @ k.T / √d → softmax → @ v`，它会存下 n × n 的打分和权重。时间取多次调用的中位数；峰值内存用 "
              "`torch.profiler`（`profile_memory=True`）实测：一次调用中 torch 的 CPU 内存分配累计的最大值，"
              "含输出，不含输入。",
    },
    "ef.time_button": {"en": "Time it on this server", "zh": "在这台服务器上测速"},
    "ef.time_help": {
        "en": "Times both ways at n = {sizes} (d = {d}, float32), one size after another. One benchmark runs at a "
              "time on this server.",
        "zh": "依次在 n = {sizes}（d = {d}，`float32`）上为两种算法测速。这台服务器上同一时间只运行一个测速。",
    },
    "ef.time_hosted": {"en": "On this shared demo the button times small sizes only: n = {sizes}.",
                       "zh": "在这个共享演示上，按钮只测小规模：n = {sizes}。"},
    "ef.time_progress": {"en": "Timing n = {n:,} ({i} of {k}) …", "zh": "正在测 n = {n:,}（第 {i} 个，共 {k} 个）…"},
    "ef.sdpa_none": {"en": "No committed figures were found; press the button to measure them here.",
                     "zh": "没有找到已提交的测量结果；按上面的按钮在这里测量。"},
    "ef.sdpa_committed": {
        "en": "Committed figures, measured on {cpu} ({cores} cores, {threads} torch threads, torch {torch}) on "
              "{date} with `{command}`. Press the button to measure on this server.",
        "zh": "已提交的测量结果：在 {cpu}（{cores} 核，torch 线程数 {threads}，torch {torch}）上于 {date} 用 "
              "`{command}` 测得。按按钮可在这台服务器上重新测量。",
    },
    "ef.sdpa_ran": {
        "en": "Measured just now on this server: {cpu}, {threads} torch threads, torch {torch}, median of {repeats} "
              "calls.",
        "zh": "刚刚在这台服务器上测得：{cpu}，torch 线程数 {threads}，torch {torch}，取 {repeats} 次调用的中位数。",
    },
    "ef.sdpa_time_faster": {
        "en": "At n = {n:,}, SDPA took {s} ms and the materialised softmax {m} ms: **SDPA was {ratio} times as fast**. "
              "SDPA was the faster at {at} of the {sizes} sizes.",
        "zh": "在 n = {n:,} 时，SDPA 用了 {s} 毫秒，存下整个矩阵的 softmax 用了 {m} 毫秒：**SDPA 快 {ratio} 倍**。"
              "在 {sizes} 个规模中，SDPA 有 {at} 个更快。",
    },
    "ef.sdpa_time_slower": {
        "en": "At n = {n:,}, SDPA took {s} ms and the materialised softmax {m} ms: **SDPA was {ratio} times as "
              "slow**. The materialised softmax was the faster at {at} of the {sizes} sizes.",
        "zh": "在 n = {n:,} 时，SDPA 用了 {s} 毫秒，存下整个矩阵的 softmax 用了 {m} 毫秒：**SDPA 反而慢 {ratio} 倍**。"
              "在 {sizes} 个规模中，存下整个矩阵的 softmax 有 {at} 个更快。",
    },
    "ef.sdpa_memory_less": {
        "en": "Its peak memory there was {s} MiB against {m} MiB: **{ratio} times less** (one n × n float32 matrix "
              "is {nn} MiB). SDPA peaked lower at {at} of the {sizes} sizes.",
        "zh": "此时它的峰值内存是 {s} MiB，对比 {m} MiB：**少 {ratio} 倍**（一个 n × n 的 `float32` 矩阵是 {nn} MiB）。"
              "在 {sizes} 个规模中，SDPA 有 {at} 个峰值更低。",
    },
    "ef.sdpa_memory_more": {
        "en": "Its peak memory there was {s} MiB against {m} MiB: **{ratio} times more** (one n × n float32 matrix "
              "is {nn} MiB). The materialised softmax peaked lower at {at} of the {sizes} sizes.",
        "zh": "此时它的峰值内存是 {s} MiB，对比 {m} MiB：**反而多 {ratio} 倍**（一个 n × n 的 `float32` 矩阵是 {nn} MiB）。"
              "在 {sizes} 个规模中，存下整个矩阵的 softmax 有 {at} 个峰值更低。",
    },
    "ef.sdpa_how": {
        "en": "Time: wall time on whatever else the machine is doing, so read it as a rough figure. Peak memory: "
              "measured (torch.profiler); the n × n column is computed, n · n · 4 bytes.",
        "zh": "时间是墙钟时间，受机器上其他任务影响，只能当作粗略数字。峰值内存是实测的（`torch.profiler`）；"
              "n × n 一列是算出来的，n · n · 4 字节。",
    },
    "ef.way_sdpa": {"en": "SDPA", "zh": "SDPA"},
    "ef.way_materialised": {"en": "softmax, n × n stored", "zh": "softmax，存下 n × n"},
    "ef.chart_ms": {"en": "milliseconds", "zh": "毫秒"},
    "ef.chart_mib": {"en": "peak memory (MiB)", "zh": "峰值内存（MiB）"},
    "ef.col_sdpa_ms": {"en": "SDPA ms", "zh": "SDPA 毫秒"},
    "ef.col_mat_ms": {"en": "softmax ms", "zh": "softmax 毫秒"},
    "ef.col_sdpa_mib": {"en": "SDPA peak MiB", "zh": "SDPA 峰值 MiB"},
    "ef.col_mat_mib": {"en": "softmax peak MiB", "zh": "softmax 峰值 MiB"},
    "ef.col_nn_mib": {"en": "n × n MiB (computed)", "zh": "n × n 的 MiB（计算值）"},
    # 3. grouped-query heads
    "ef.heads_intro": {
        "en": "With grouped-query attention, h query heads share g key/value heads (g divides h): g = h is multi-head "
              "attention, g = 1 multi-query. Only the g key/value heads are cached, so the cache shrinks h / g times.",
        "zh": "分组查询注意力中，h 个查询头共享 g 个键/值头（g 整除 h）：g = h 就是多头注意力，g = 1 是多查询注意力。"
              "缓存里只存 g 个键/值头，所以缓存缩小为 1 / (h / g)。",
    },
    "ef.h": {"en": "Query heads h", "zh": "查询头 h"},
    "ef.g": {"en": "Key/value heads g", "zh": "键/值头 g"},
    "ef.tile_mistake": {"en": "The `tile` mistake", "zh": "`tile` 错误"},
    "ef.tile_mistake_help": {
        "en": "Repeat the g key/value heads with tile (0, 1, 0, 1, …) instead of repeat_interleave (0, 0, 1, 1, …).",
        "zh": "用 `tile` 重复 g 个键/值头（0, 1, 0, 1, …），而不是 `repeat_interleave`（0, 0, 1, 1, …）。",
    },
    "ef.divisors": {"en": "g must divide h = {h}: {divisors}.", "zh": "g 必须整除 h = {h}：{divisors}。"},
    "ef.heads_kind_mha": {"en": "g = h = {h}: multi-head attention, every query head has its own keys and values.",
                          "zh": "g = h = {h}：多头注意力，每个查询头有自己的键和值。"},
    "ef.heads_kind_mqa": {"en": "g = 1: multi-query attention, all {h} query heads read the same keys and values.",
                          "zh": "g = 1：多查询注意力，{h} 个查询头都读同一组键和值。"},
    "ef.heads_kind_gqa": {"en": "h = {h} query heads share g = {g} key/value heads, {group} query heads a group.",
                          "zh": "h = {h} 个查询头共享 g = {g} 个键/值头，每组 {group} 个查询头。"},
    "ef.heads_rule": {
        "en": "Query head i reads key/value head i // (h / g) = i // {group}, as `repeat_interleave` and "
              "`enable_gqa=True` lay them out.",
        "zh": "查询头 i 读键/值头 i // (h / g) = i // {group}，与 `repeat_interleave` 和 `enable_gqa=True` 的排列一致。",
    },
    "ef.heads_tile_rule": {
        "en": "With `tile`, query head i reads key/value head i mod g = i mod {g}; torch reads i // (h / g) = i // "
              "{group}. Red lines are the heads that read the wrong keys.",
        "zh": "用 `tile` 时，查询头 i 读键/值头 `i mod g` = `i mod {g}`；torch 读的是 i // (h / g) = i // {group}。"
              "红线是读错键的头。",
    },
    "ef.q_head_n": {"en": "query head {i}", "zh": "查询头 {i}"},
    "ef.col_kv_head": {"en": "reads K/V head", "zh": "读的键/值头"},
    "ef.col_torch_kv_head": {"en": "torch's", "zh": "torch 的"},
    "ef.col_difference": {"en": "largest difference to torch", "zh": "与 torch 的最大差值"},
    "ef.heads_wrong": {
        "en": "Query heads {heads} ({n} of {h}) read the wrong keys and values: their outputs differ from torch's "
              "`scaled_dot_product_attention(..., enable_gqa=True)` by up to {diff}.",
        "zh": "查询头 {heads}（{h} 个中的 {n} 个）读错了键和值：它们的输出与 torch 的 "
              "`scaled_dot_product_attention(..., enable_gqa=True)` 最多相差 {diff}。",
    },
    "ef.heads_tile_same": {
        "en": "With h = {h} and g = {g}, `tile` and `repeat_interleave` give the same order here: no head reads the "
              "wrong keys (try 1 < g < h).",
        "zh": "h = {h}、g = {g} 时，`tile` 与 `repeat_interleave` 的顺序恰好相同：没有头读错键（试试 1 < g < h）。",
    },
    "ef.heads_equal": {
        "en": "All {h} heads over {g} key/value heads equal torch's `scaled_dot_product_attention(..., "
              "enable_gqa=True)`: largest difference {diff}.",
        "zh": "{g} 个键/值头上的全部 {h} 个头与 torch 的 `scaled_dot_product_attention(..., enable_gqa=True)` 相同："
              "最大差值 {diff}。",
    },
    "ef.head_maps": {"en": "Each head's weights ({h} heads; rows: queries, columns: keys)",
                     "zh": "每个头的注意力权重（{h} 个头；行是查询，列是键）"},
    "ef.head_map": {"en": "Query head {i} · K/V head {j}", "zh": "查询头 {i} · 键/值头 {j}"},
    "ef.head_map_wrong": {"en": "**Query head {i} · K/V head {j}, wrong** (torch's: {right})",
                          "zh": "**查询头 {i} · 键/值头 {j}，读错了**（torch 的是 {right}）"},
    "ef.download_weights": {"en": "Each head's weights (CSV)", "zh": "每个头的权重（CSV）"},
    "ef.col_q_head": {"en": "query head", "zh": "查询头"},
    "ef.col_query": {"en": "query", "zh": "查询"},
    "ef.kv_header": {"en": "KV-cache bytes per token", "zh": "每个词元的 KV 缓存字节数"},
    "ef.kv_line": {
        "en": "- **{model}**: {layers} layers, {h} query heads, g = {g} key/value heads of {hd}: 2 · {layers} · {g} · "
              "{hd} · 2 bytes = {kib:,} KiB a token in float16; with g = h it would be {mha:,} KiB ({saved} times "
              "more).",
        "zh": "- **{model}**：{layers} 层，{h} 个查询头，g = {g} 个宽 {hd} 的键/值头：2 · {layers} · {g} · {hd} · 2 "
              "字节 = 每个词元 {kib:,} `KiB`（float16）；若 g = h 则是 {mha:,} `KiB`（{saved} 倍）。",
    },
    "ef.kv_line_mha": {
        "en": "- **{model}**: {layers} layers, g = h = {h} key/value heads of {hd}: 2 · {layers} · {g} · {hd} · 2 bytes "
              "= {kib:,} KiB a token in float16, nothing shared.",
        "zh": "- **{model}**：{layers} 层，g = h = {h} 个宽 {hd} 的键/值头：2 · {layers} · {g} · {hd} · 2 字节 = 每个词元 "
              "{kib:,} `KiB`（float16），没有共享。",
    },
    "ef.kv_source": {
        "en": "Figures from each model's config.json on its model card (num_hidden_layers, num_attention_heads, "
              "num_key_value_heads, hidden_size / num_attention_heads): {sources}.",
        "zh": "数字来自各模型卡上的 `config.json`（`num_hidden_layers`、`num_attention_heads`、"
              "`num_key_value_heads`、`hidden_size / num_attention_heads`）：{sources}。",
    },
    "ef.col_model": {"en": "model", "zh": "模型"},
    "ef.col_layers": {"en": "layers", "zh": "层数"},
    "ef.col_heads": {"en": "query heads", "zh": "查询头"},
    "ef.col_kv_heads": {"en": "K/V heads g", "zh": "键/值头 g"},
    "ef.col_head_dim": {"en": "head width", "zh": "头宽度"},
    "ef.col_bytes": {"en": "bytes a token", "zh": "每词元字节"},
    "ef.col_bytes_mha": {"en": "bytes with g = h", "zh": "g = h 时的字节"},
    # 4. sliding window
    "ef.window_intro": {
        "en": "With a sliding window of w, query i sees only the keys i − w < j ≤ i. One layer sees w tokens back, "
              "but a stack sees further: each layer adds w − 1 positions to what the last token's output depends on.",
        "zh": "窗口为 w 的滑动窗口中，查询 i 只看键 i − w < j ≤ i。一层只能往回看 w 个词元，但叠起来能看得更远："
              "每多一层，最后一个词元的输出所依赖的位置就多 w − 1 个。",
    },
    "ef.layers": {"en": "Layers L", "zh": "层数 L"},
    "ef.mask_title": {"en": "The banded mask, n = {n}, w = {w}", "zh": "带状掩码，n = {n}，w = {w}"},
    "ef.window_equal": {
        "en": "Attention under this mask equals torch's `scaled_dot_product_attention` with the same mask (w = {w}): "
              "largest difference {diff}.",
        "zh": "这个掩码下的注意力与 torch 的 `scaled_dot_product_attention` 加同样掩码（w = {w}）相同：最大差值 {diff}。",
    },
    "ef.reach_title": {"en": "What the last token (position {n}) depends on, layer by layer",
                       "zh": "最后一个词元（位置 {n}）逐层依赖的位置"},
    "ef.reach_line": {
        "en": "After L = {layers} layers the last token's output depends on {field} of the {n} positions: "
              "1 + L · (w − 1) = {formula}, at most n.",
        "zh": "经过 L = {layers} 层，最后一个词元的输出依赖 {n} 个位置中的 {field} 个：1 + L · (w − 1) = {formula}，"
              "最多为 n。",
    },
    "ef.reach_mismatch": {"en": "The counted field differs from 1 + L · (w − 1): this is a bug.",
                          "zh": "数出的感受野与 1 + L · (w − 1) 不同：这是程序错误。"},
    "ef.col_layers_n": {"en": "layers L", "zh": "层数 L"},
    "ef.col_field": {"en": "positions reached (counted)", "zh": "能到达的位置（数出）"},
    "ef.col_formula": {"en": "min(n, 1 + L · (w − 1))", "zh": "1 + L · (w − 1)，不超过 n"},
    # 5. rotary positions
    "ef.rotary_intro": {
        "en": "Rotary positions turn each pair of dimensions of a query or key at position m by the angle m · θ_i, "
              "θ_i = 10000^(−2i/d). A rotated query and key then score the same whatever their positions, as long as "
              "their distance is the same.",
        "zh": "旋转位置编码把位置 m 上的查询或键的每对维度转过角度 m · θ_i，θ_i = 10000^(−2i/d)。这样旋转后的查询"
              "与键的打分只取决于两者的距离，与绝对位置无关。",
    },
    "ef.m": {"en": "Query position m", "zh": "查询位置 m"},
    "ef.kn": {"en": "Key position n", "zh": "键位置 n"},
    "ef.pair": {"en": "Pair i", "zh": "维度对 i"},
    "ef.dim_n": {"en": "dimension {i}", "zh": "维度 {i}"},
    "ef.angle": {
        "en": "θ_{i} = 10000^(−2 · {i} / {d}) = {theta}; the query at m = {m} turns by m · θ_{i} = {angle} radians "
              "({degrees}°).",
        "zh": "θ_{i} = 10000^(−2 · {i} / {d}) = {theta}；位置 m = {m} 的查询转过 m · θ_{i} = {angle} 弧度（{degrees}°）。",
    },
    "ef.pair_moved": {
        "en": "In the half pairing, pair {i} is dimensions ({i}, {j}): ({a}, {b}) becomes ({a2}, {b2}), the same "
              "length.",
        "zh": "按对半配对，第 {i} 对是维度（{i}, {j}）：（{a}, {b}）变为（{a2}, {b2}），长度不变。",
    },
    "ef.pairings_header": {"en": "Two ways to pair dimensions", "zh": "两种维度配对方式"},
    "ef.half_pairs": {
        "en": "**Half** (GPT-NeoX; transformers' Llama `rotate_half`): pairs {pairs}",
        "zh": "**对半配对**（`GPT-NeoX`；`transformers` 中 `Llama` 的 `rotate_half`）：{pairs}",
    },
    "ef.interleaved_pairs": {
        "en": "**Interleaved** (GPT-J, Meta's original Llama): pairs {pairs}",
        "zh": "**相邻配对**（GPT-J，`Meta` 原版 `Llama`）：{pairs}",
    },
    "ef.row_q": {"en": "q", "zh": "q"},
    "ef.row_rotated": {"en": "rotated", "zh": "旋转后"},
    "ef.permutation": {
        "en": "The permutation p = [{p}] makes them equal: `rotary(q[p], \"half\")` = `rotary(q, \"interleaved\")[p]`.",
        "zh": "置换 p = [{p}] 让两者相等：`rotary(q[p], \"half\")` = `rotary(q, \"interleaved\")[p]`。",
    },
    "ef.permutation_equal": {"en": "Checked: largest difference {diff}.", "zh": "已核对：最大差值 {diff}。"},
    "ef.llama_equal": {
        "en": "The half pairing at m = {m} equals transformers' Llama `apply_rotary_pos_emb`: largest difference {diff}.",
        "zh": "m = {m} 处的对半配对与 `transformers` 中 `Llama` 的 `apply_rotary_pos_emb` 相同：最大差值 {diff}。",
    },
    "ef.gptj_equal": {
        "en": "The interleaved pairing at m = {m} equals transformers' GPT-J `apply_rotary_pos_emb`: largest "
              "difference {diff}.",
        "zh": "m = {m} 处的相邻配对与 `transformers` 中 GPT-J 的 `apply_rotary_pos_emb` 相同：最大差值 {diff}。",
    },
    "ef.shift_header": {"en": "Why: the score depends only on the distance", "zh": "原因：打分只取决于距离"},
    "ef.shift_intro": {
        "en": "The same query and key, moved together by s positions (query at m + s, key at n + s, distance "
              "{distance}), starting from m = {m}, n = {n}:",
        "zh": "同一个查询和键一起平移 s 个位置（查询在 m + s，键在 n + s，距离 {distance}），从 m = {m}、n = {n} 开始：",
    },
    "ef.col_shift": {"en": "shift s", "zh": "平移 s"},
    "ef.col_qpos": {"en": "query at", "zh": "查询位置"},
    "ef.col_kpos": {"en": "key at", "zh": "键位置"},
    "ef.col_rotary_score": {"en": "score, rotated", "zh": "打分（旋转）"},
    "ef.col_added_score": {"en": "score, sinusoidal positions added", "zh": "打分（加上正弦位置）"},
    "ef.shift_words": {
        "en": "Over these {k} shifts the rotated score changes by at most {rotary}; with the Playground's added "
              "sinusoidal positions it moves by {added}.",
        "zh": "在这 {k} 个平移下，旋转后的打分最多变化 {rotary}；换成动手实验页面那样加上正弦位置，它变化 {added}。",
    },
    # charts
    "ef.chart_query": {"en": "query", "zh": "查询"},
    "ef.chart_key": {"en": "key", "zh": "键"},
    "ef.chart_score": {"en": "score", "zh": "打分"},
    "ef.chart_cell": {"en": "cell", "zh": "格子"},
    "ef.chart_tile": {"en": "tile", "zh": "块"},
    "ef.chart_seen": {"en": "seen", "zh": "可见"},
    "ef.chart_masked": {"en": "masked", "zh": "被掩盖"},
    "ef.chart_reached": {"en": "reached", "zh": "能到达"},
    "ef.chart_unreached": {"en": "not reached", "zh": "到不了"},
    "ef.chart_position": {"en": "position", "zh": "位置"},
    "ef.chart_layers": {"en": "layers", "zh": "层数"},
    "ef.chart_n": {"en": "sequence length n", "zh": "序列长度 n"},
    "ef.chart_moved": {"en": "numbers moved", "zh": "搬运的数字个数"},
    "ef.chart_q_head": {"en": "query head", "zh": "查询头"},
    "ef.chart_kv_head": {"en": "K/V head", "zh": "键/值头"},
    "ef.chart_g": {"en": "key/value heads g", "zh": "键/值头 g"},
    "ef.chart_kib": {"en": "KiB a token", "zh": "每词元千字节"},
    "ef.chart_before": {"en": "before", "zh": "旋转前"},
    "ef.chart_after": {"en": "after", "zh": "旋转后"},
    "ef.chart_first": {"en": "first", "zh": "第一维"},
    "ef.chart_second": {"en": "second", "zh": "第二维"},
    # errors (selfattn/core/efficient.py, selfattn/efficient/compute.py)
    "err.ef_too_big": {"en": "{name} = {value} is over this page's limit of {most}.",
                       "zh": "{name} = {value} 超过了本页的上限 {most}。"},
    "err.ef_csv_tables": {
        "en": "Paste three tables, Q, K and V, each after a line # Q, # K, # V: found {found}.",
        "zh": "请粘贴三个表 Q、K、V，分别写在 # Q、# K、# V 一行之后：现在找到 {found} 个。",
    },
    "err.ef_csv_number": {"en": "{name}, row {row}, column {col}: “{value}” is not a finite number.",
                          "zh": "{name} 第 {row} 行第 {col} 列：“{value}”不是有限的数。"},
    "err.ef_csv_ragged": {"en": "{name}, row {row} has {got} numbers; its first row has {want}.",
                          "zh": "{name} 第 {row} 行有 {got} 个数，而它的第一行有 {want} 个。"},
    "err.ef_csv_shapes": {"en": "Q, K and V must all be n × d: Q is {q}, K is {k}, V is {v}.",
                          "zh": "Q、K、V 必须都是 n × d：Q 是 {q}，K 是 {k}，V 是 {v}。"},
    "err.ef_too_many_tiles": {
        "en": "These blocks make {tiles:,} tiles to count; the most is {most:,}. Pick larger blocks or a smaller n.",
        "zh": "这样的块要计数 {tiles:,} 个块，上限是 {most:,}。请选更大的块或更小的 n。",
    },
    "err.bad_window": {"en": "The window must be a whole number of at least 1, got {value}.",
                       "zh": "窗口必须是不小于 1 的整数，现在是 {value}。"},
    "err.blind_query": {"en": "Query {row} sees no key under this mask: its softmax is undefined.",
                        "zh": "在这个掩码下查询 {row} 看不到任何键：它的 softmax 没有定义。"},
    "err.bad_block": {"en": "{name} must be a whole number of at least 1, got {value}.",
                      "zh": "{name} 必须是不小于 1 的整数，现在是 {value}。"},
    "err.qk_width": {"en": "Q and K need the same width to be multiplied: {q} and {k}.",
                     "zh": "Q 和 K 的宽度必须相同才能相乘：现在是 {q} 和 {k}。"},
    "err.kv_rows": {"en": "K and V need one row per key: {k} and {v} rows.",
                    "zh": "K 和 V 每个键各一行：现在分别有 {k} 行和 {v} 行。"},
    "err.kv_heads": {"en": "K and V need the same number of heads: {k} and {v}.",
                     "zh": "K 和 V 的头数必须相同：现在是 {k} 和 {v}。"},
    "err.gqa_groups": {"en": "The {g} key/value heads must divide the {h} query heads: pick g among the divisors of {h}.",
                       "zh": "{g} 个键/值头必须整除 {h} 个查询头：请从 {h} 的因数中选 g。"},
    "err.bad_mistake": {"en": "Unknown mistake {value}: the only one offered is tile.",
                        "zh": "未知的错误 {value}：只提供 `tile` 这一种。"},
    "err.bad_pairing": {"en": "The pairing must be half or interleaved, got {value}.",
                        "zh": "配对方式必须是对半或相邻，现在是 {value}。"},
    "err.odd_width": {"en": "Rotary positions turn pairs of dimensions: d must be even, got {d}.",
                      "zh": "旋转位置编码按维度对旋转：d 必须是偶数，现在是 {d}。"},
    "err.positions_rows": {"en": "One position a row: {positions} positions for {n} rows.",
                           "zh": "每行一个位置：{n} 行却有 {positions} 个位置。"},
}
