// The third implementation of the maths, in the browser: a Transformer encoder layer, for the preview of the
// Transformer block page. The first, and the truth, is selfattn/core/block.py (transformer_layer, held to
// torch.nn.TransformerEncoderLayer by the tests); attention.js is the second (the Playground's steps). This file
// works one layer out again, in float64, from the numbers typed in the block page's editors, and writes every
// box of the flow as the server writes a map's cells (mapText, from attention.js).
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

const BLOCK_PLAIN = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function blockNumbers(table) {
  if (!table) return null;
  const rows = [];
  for (const row of table.cells) {
    const out = [];
    for (const cell of row) {
      const text = String(cell).trim();
      if (!BLOCK_PLAIN.test(text)) return null;
      const v = Number(text);
      if (!Number.isFinite(v)) return null;
      out.push(v);
    }
    rows.push(out);
  }
  return rows;
}

const mm = (a, b) => a.map((row) => b[0].map((_, j) => {
  let sum = 0;
  for (let k = 0; k < row.length; k++) sum += row[k] * b[k][j];
  return sum;
}));
const plusRow = (m, b) => m.map((row) => row.map((v, j) => v + b[j]));
const plus = (a, b) => a.map((row, i) => row.map((v, j) => v + b[i][j]));

// erf to about 1e-15: its Taylor series near 0, the continued fraction of erfc further out.
function erf(x) {
  const s = Math.sign(x), a = Math.abs(x);
  if (a < 2.5) {
    let term = a, sum = a;
    for (let n = 1; n < 80; n++) {
      term *= -a * a / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return s * (2 / Math.sqrt(Math.PI)) * sum;
  }
  // erfc(a) = exp(−a²)/√π · 1/(a + 1/2/(a + 1/(a + 3/2/(a + ...)))), evaluated from the tail.
  let f = a;
  for (let n = 60; n >= 1; n--) f = a + (n / 2) / f;
  return s * (1 - Math.exp(-a * a) / Math.sqrt(Math.PI) / f);
}

function activate(z, kind) {
  if (kind === "relu") return Math.max(z, 0);
  if (kind === "gelu") return 0.5 * z * (1 + erf(z / Math.SQRT2));
  const inner = Math.sqrt(2 / Math.PI) * (z + 0.044715 * z * z * z);
  return 0.5 * z * (1 + Math.tanh(inner));
}

function layerNorm(z, gamma, beta, eps) {
  return z.map((row) => {
    const d = row.length;
    let mean = 0;
    for (const v of row) mean += v;
    mean /= d;
    let variance = 0;
    for (const v of row) variance += (v - mean) * (v - mean);
    variance /= d;
    const root = Math.sqrt(variance + eps);
    return row.map((v, j) => ((v - mean) / root) * gamma[j] + beta[j]);
  });
}

// One layer's every box: {input, norm1, q, k, v, heads: [(n, n) per head], concat, projected, residual1,
// norm2, ff_pre, ff_act, ff_out, residual2, output}.
function blockLayer(x, p, o) {
  const n = x.length, d = x[0].length, h = o.heads, hd = d / h;
  const [bq, bk, bv, bo] = p.b, [g1, be1, g2, be2] = p.ln;
  const norm1Pre = o.norm_first ? layerNorm(x, g1, be1, o.eps) : null;
  const a = norm1Pre || x;
  const q = plusRow(mm(a, p.wq), bq), k = plusRow(mm(a, p.wk), bk), v = plusRow(mm(a, p.wv), bv);
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
      const top = Math.max(...scaled);
      const e = scaled.map((s) => Math.exp(s - top));
      let total = 0;
      for (const x of e) total += x;
      weights.push(e.map((x) => x / total));
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
  const projected = plusRow(mm(concat, p.wo), bo);
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
  const ffPre = plusRow(mm(ffIn, p.w1), p.b1[0]);
  const ffAct = ffPre.map((row) => row.map((z) => activate(z, o.activation)));
  const ffOut = plusRow(mm(ffAct, p.w2), p.b2[0]);
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
    return blockNumbers(table);
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
  const fits = (m, rows, cols) => m.length === rows && m.every((row) => row.length === cols);
  const dff = shown.w1[0] ? shown.w1[0].length : 0;
  if (!fits(shown.wq, d, d) || !fits(shown.wk, d, d) || !fits(shown.wv, d, d) || !fits(shown.wo, d, d)
      || !fits(shown.b, 4, d) || !fits(shown.ln, 4, d) || !fits(shown.w1, d, dff) || !fits(shown.b1, 1, dff)
      || !fits(shown.w2, dff, d) || !fits(shown.b2, 1, d) || d % engine.heads) return null;
  let state = x;
  for (const before of engine.before) state = blockLayer(state, before, engine).output;
  const steps = blockLayer(state, shown, engine);
  const cells = {};
  const write = (link, matrix) => {
    const flat = matrix.flat();
    if (!flat.every(Number.isFinite)) return false;
    cells[link] = { cells: matrix.map((row) => row.map(mapText)), lo: Math.min(...flat), hi: Math.max(...flat) };
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

window.selfattnBlock ||= { blockCells, erf };
