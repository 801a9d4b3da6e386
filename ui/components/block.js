// The third implementation of the maths, in the browser: a Transformer encoder layer, for the preview of the
// Transformer block page. The first, and the truth, is selfattn/core/block.py (transformer_layer, held to
// torch.nn.TransformerEncoderLayer by the tests); attention.js is the second (the Playground's steps). This file
// works one layer out again, in float64, from the numbers typed in the block page's editors, and writes every
// box of the flow as the server writes a map's cells (mapText); its arithmetic is maths.js's, shared with
// attention.js.
//
// Why: an edit should answer at once. On Enter, heatmap.js asks blockCells for the maps of the layer shown and
// redraws them in the key press's own task; the server's numbers follow (a fragment rerun) and are the truth: a
// map changes again only where they differ, which tests/test_block_preview_browser.py keeps from happening.
//
// Same steps as the core: with norm_first (pre-LN) a = LN1(x), else a = x; q, k, v = a W + b, split by columns
// into heads; weights = softmax(q kᵀ / √head_dim) by row, under the key-padding and causal masks; concat = the
// heads' weights v side by side; projected = concat W_o + b_o; r1 = x + projected; post-LN: h = LN1(r1), pre-LN:
// h = r1; f = (pre-LN: LN2(h), post-LN: h); ff = act(f W_1 + b_1) W_2 + b_2; r2 = h + ff; y = post-LN: LN2(r2),
// pre-LN: r2. LN(z) = (z − μ) / √(σ² + ε) · γ + β by row, σ² the mean squared distance from μ.
// Only plain decimal numbers are read (the server alone reads other forms and names a bad cell).

// One layer's every box: {input, norm1, q, k, v, heads: [(n, n) per head], concat, projected, residual1,
// norm2, ff_pre, ff_act, ff_out, residual2, output}.
function blockLayer(x, p, o) {
  const n = x.length, d = x[0].length, h = o.heads, hd = d / h;
  const [bq, bk, bv, bo] = p.b, [g1, be1, g2, be2] = p.ln;
  const norm1Pre = o.norm_first ? layerNorm(x, g1, be1, o.eps) : null;
  const a = norm1Pre || x;
  const q = addRow(matmul(a, p.wq), bq), k = addRow(matmul(a, p.wk), bk), v = addRow(matmul(a, p.wv), bv);
  const root = Math.sqrt(hd);
  const heads = [], concat = x.map(() => new Array(d).fill(0));
  for (let head = 0; head < h; head++) {
    const c0 = head * hd;
    const weights = [];
    for (let i = 0; i < n; i++) {
      const scaled = [];
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let t = 0; t < hd; t++) s += q[i][c0 + t] * k[j][c0 + t];
        scaled.push((o.causal && j > i) ? -Infinity : s / root);
      }
      weights.push(softmaxRow(scaled));
    }
    heads.push(weights);
    for (let i = 0; i < n; i++) {
      for (let t = 0; t < hd; t++) {
        let s = 0;
        for (let j = 0; j < n; j++) s += weights[i][j] * v[j][c0 + t];
        concat[i][c0 + t] = s;
      }
    }
  }
  const projected = addRow(matmul(concat, p.wo), bo);
  const residual1 = plus(x, projected);
  let norm1, hState, norm2, ffIn;
  if (o.norm_first) {
    norm1 = norm1Pre;
    hState = residual1;
    norm2 = layerNorm(hState, g2, be2, o.eps);
    ffIn = norm2;
  } else {
    norm1 = layerNorm(residual1, g1, be1, o.eps);
    hState = norm1;
    ffIn = hState;
  }
  const ffPre = addRow(matmul(ffIn, p.w1), p.b1[0]);
  const ffAct = ffPre.map((row) => row.map((z) => activate(z, o.activation)));
  const ffOut = addRow(matmul(ffAct, p.w2), p.b2[0]);
  const residual2 = plus(hState, ffOut);
  if (!o.norm_first) norm2 = layerNorm(residual2, g2, be2, o.eps);
  const output = o.norm_first ? residual2 : norm2;
  return { input: x, norm1, q, k, v, heads, concat, projected, residual1, norm2, ff_pre: ffPre, ff_act: ffAct,
           ff_out: ffOut, residual2, output };
}

const PARTS = ["wq", "wk", "wv", "wo", "b", "ln", "w1", "b1", "w2", "b2"];

// The cells of every box of the layer shown, {link: {cells, lo, hi}} ("row:<box>" and "att:<head>"), worked out
// from the typed tables ({editor name: {instance, cells}}) and ``engine`` (the settings, the position vectors,
// the layers before the one shown as exact numbers, and which editor instance holds each table now); or null
// when a table is missing or stale, a cell is not a plain number, a shape is off or a number is not finite.
function blockCells(tables, engine) {
  const typed = (id) => {
    const name = "tb_" + id, table = tables[name];
    if (!table || table.instance !== engine.instances[name]) return null;
    return readNumbers(table);
  };
  let x = typed("x");
  if (!x || !x.length) return null;
  const d = x[0].length;
  if (engine.pe) {
    if (engine.pe.length !== x.length) return null;
    x = x.map((row, i) => row.map((v, j) => v + engine.pe[i][j]));
  }
  const shown = {};
  for (const part of PARTS) {
    shown[part] = typed(`${engine.layer + 1}${part}`);
    if (!shown[part]) return null;
  }
  const dff = shown.w1[0] ? shown.w1[0].length : 0;
  if (!fits(shown.wq, d, d) || !fits(shown.wk, d, d) || !fits(shown.wv, d, d) || !fits(shown.wo, d, d)
      || !fits(shown.b, 4, d) || !fits(shown.ln, 4, d) || !fits(shown.w1, d, dff) || !fits(shown.b1, 1, dff)
      || !fits(shown.w2, dff, d) || !fits(shown.b2, 1, d) || d % engine.heads) return null;
  let state = x;
  for (const before of engine.before) state = blockLayer(state, before, engine).output;
  const steps = blockLayer(state, shown, engine);
  const cells = {};
  const write = (link, matrix) => {
    if (!matrix.flat().every(Number.isFinite)) return false;
    cells[link] = boxOf(matrix);
    return true;
  };
  for (const [key, matrix] of Object.entries(steps)) {
    if (key === "heads") {
      for (let head = 0; head < matrix.length; head++) if (!write(`att:${head + 1}`, matrix[head])) return null;
    } else if (matrix && !write(`row:${key}`, matrix)) {
      return null;
    }
  }
  return cells;
}

// The block page's maps (group "tb"): the layer shown worked out from the typed tables and the options its input map
// brings (engine); each map it has a box for is redrawn, the others (a stack's, a batch's) wait for the server.
function blockPreview(views, tables) {
  const input = views.get("row:input");
  return input && input.data.engine ? blockCells(tables, input.data.engine) : null;
}

window.selfattnPreviews.set("tb", { cells: blockPreview, whole: false });
window.selfattnBlock ||= { blockCells, erf };
