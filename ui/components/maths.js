// The arithmetic the browser's previews share (attention.js, block.js, s2s.js): reading a typed table as the server
// reads plain numbers, matrix products, bias rows, a stable softmax by row, LayerNorm, the activations, a layer's
// sub-layers (multi-head attention, self or cross, with its Add & Norm; the feed-forward net with its Add & Norm),
// and writing a number as the server writes a map's cell (mapText). One copy, so two previews cannot round or
// parse differently; tests/test_preview_browser.py, tests/test_block_preview_browser.py and
// tests/test_seq2seq_preview_browser.py hold every engine built on it to the core library (itself held to torch),
// to the last written character.
//
// Loaded first in the maps' one script (ui/components/heatmap.py, SCRIPTS): the engines after it call these
// functions directly. Each engine registers itself for its group of maps in window.selfattnPreviews
// (group -> {cells(views, tables), whole}); heatmap.js, which only draws, asks the engine of each group on an edit.

const PLAIN = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

// A number as the server writes it in a map (selfattn/display/numbers.py, map_text): rounded to 12
// significant digits, then to 4, each time half to even, written as %g does; −∞ for a masked score.
// (The first rounding makes a sum's last bits, which depend on its order, not matter.)
function mapText(v) {
  if (v === -Infinity) return "−∞";
  if (v === 0) return "0";
  const exact = Math.abs(v).toExponential(20); // 21 digits: enough to tell an exact tie of a double
  const at = exact.indexOf("e");
  let e = Number(exact.slice(at + 1));
  const all = exact[0] + exact.slice(2, at); // 21 digits
  let twelve = Number(all.slice(0, 12));
  const tail = all.slice(12);
  if (tail > "500000000" || (tail === "500000000" && twelve % 2 === 1)) twelve += 1;
  if (twelve === 1e12) { twelve = 1e11; e += 1; }
  const digits = String(twelve);
  let head = Number(digits.slice(0, 4));
  const rest = digits.slice(4);
  if (rest > "50000000" || (rest === "50000000" && head % 2 === 1)) head += 1;
  if (head === 10000) { head = 1000; e += 1; }
  const text = String(head);
  const sign = v < 0 ? "-" : "";
  if (e >= -4 && e < 4) {
    const point = e + 1;
    const whole = point > 0 ? text.slice(0, point) : "0";
    const frac = (point > 0 ? text.slice(point) : "0".repeat(-point) + text).replace(/0+$/, "");
    return sign + whole + (frac ? "." + frac : "");
  }
  const mantissa = (text[0] + "." + text.slice(1)).replace(/\.?0+$/, "");
  return sign + mantissa + "e" + (e < 0 ? "-" : "+") + String(Math.abs(e)).padStart(2, "0");
}

// A typed table's numbers, row by row ({cells, labels}: a column marked as labels is left out when
// ``skipLabels``), or null when a cell is not a plain decimal number (the server alone reads other forms, and says
// what is wrong with a cell) or not finite.
function readNumbers(table, skipLabels = false) {
  if (!table) return null;
  const rows = [];
  for (const row of table.cells) {
    const out = [];
    for (let j = 0; j < row.length; j++) {
      if (skipLabels && table.labels && table.labels[j]) continue;
      const text = String(row[j]).trim();
      if (!PLAIN.test(text)) return null;
      const v = Number(text);
      if (!Number.isFinite(v)) return null;
      out.push(v);
    }
    rows.push(out);
  }
  return rows;
}

// a b, summed over k from 0 up, as numpy's float64 products here are (the tests hold it to them).
const matmul = (a, b) => a.map((row) => b[0].map((_, j) => {
  let sum = 0;
  for (let k = 0; k < row.length; k++) sum += row[k] * b[k][j];
  return sum;
}));
const addRow = (m, b) => (b ? m.map((row) => row.map((v, j) => v + b[j])) : m); // a bias row added to every row
const plus = (a, b) => a.map((row, i) => row.map((v, j) => v + b[i][j]));
const fits = (m, rows, cols) => m.length === rows && m.every((row) => row.length === cols);

// softmax of one row, less its maximum first (selfattn.core.attention.stable_softmax): −∞ gets weight 0.
function softmaxRow(row) {
  const top = Math.max(...row);
  const e = row.map((s) => Math.exp(s - top));
  let total = 0;
  for (const x of e) total += x;
  return e.map((x) => x / total);
}

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

// ReLU, GELU (exact, with erf) or GELU's tanh form, of one number.
function activate(z, kind) {
  if (kind === "relu") return Math.max(z, 0);
  if (kind === "gelu") return 0.5 * z * (1 + erf(z / Math.SQRT2));
  const inner = Math.sqrt(2 / Math.PI) * (z + 0.044715 * z * z * z);
  return 0.5 * z * (1 + Math.tanh(inner));
}

// LayerNorm by row: (z − μ) / √(σ² + ε) · γ + β, σ² the mean squared distance from μ (divided by d, as torch).
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

// Multi-head attention with queries from qIn and keys and values from kvIn: the same rows for self-attention, the
// encoder's memory for cross-attention (selfattn/core/decoder.py, attention; the encoder layer's is the same).
// q = qIn W_q + b_q, k = kvIn W_k + b_k, v = kvIn W_v + b_v, split by columns into heads; each head's weights =
// softmax(q kᵀ / √head_dim) by row, −∞ above the diagonal when causal; concat = the heads' weights v side by side;
// projected = concat W_o + b_o. w = [W_q, W_k, W_v, W_o], b = [b_q, b_k, b_v, b_o].
function attendHeads(qIn, kvIn, w, b, heads, causal) {
  const [wq, wk, wv, wo] = w, [bq, bk, bv, bo] = b;
  const q = addRow(matmul(qIn, wq), bq), k = addRow(matmul(kvIn, wk), bk), v = addRow(matmul(kvIn, wv), bv);
  const m = q.length, n = k.length, d = q[0].length, hd = d / heads, root = Math.sqrt(hd);
  const weights = [], concat = q.map(() => new Array(d).fill(0));
  for (let head = 0; head < heads; head++) {
    const c0 = head * hd, rows = [];
    for (let i = 0; i < m; i++) {
      const scaled = [];
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let t = 0; t < hd; t++) s += q[i][c0 + t] * k[j][c0 + t];
        scaled.push((causal && j > i) ? -Infinity : s / root);
      }
      rows.push(softmaxRow(scaled));
    }
    weights.push(rows);
    for (let i = 0; i < m; i++) {
      for (let t = 0; t < hd; t++) {
        let s = 0;
        for (let j = 0; j < n; j++) s += rows[i][j] * v[j][c0 + t];
        concat[i][c0 + t] = s;
      }
    }
  }
  return { q, k, v, heads: weights, concat, projected: addRow(matmul(concat, wo), bo) };
}

// An attention sub-layer with its Add & Norm, on x (the sub-layer's input), keys and values from kv (null: from
// the same rows as the queries): pre-LN (o.norm_first) a = LN(x), out = x + attention(a); post-LN
// out = LN(x + attention(x)). {...attendHeads's, norm (pre-LN: LN(x), post-LN: LN(residual)), residual, out}.
function attentionSublayer(x, kv, w, b, gamma, beta, o, causal) {
  const pre = o.norm_first ? layerNorm(x, gamma, beta, o.eps) : null;
  const a = pre || x;
  const att = attendHeads(a, kv || a, w, b, o.heads, causal);
  const residual = plus(x, att.projected);
  const norm = pre || layerNorm(residual, gamma, beta, o.eps);
  return { ...att, norm, residual, out: o.norm_first ? residual : norm };
}

// A layer's feed-forward sub-layer with its Add & Norm, on h (selfattn/core/block.py, feed_forward): pre-LN
// h + FF(LN(h)), post-LN LN(h + FF(h)), FF(z) = act(z W_1 + b_1) W_2 + b_2. p holds w1, b1 (one row), w2, b2.
function feedForward(h, p, gamma, beta, o) {
  const pre = o.norm_first ? layerNorm(h, gamma, beta, o.eps) : null;
  const ffPre = addRow(matmul(pre || h, p.w1), p.b1[0]);
  const ffAct = ffPre.map((row) => row.map((z) => activate(z, o.activation)));
  const ffOut = addRow(matmul(ffAct, p.w2), p.b2[0]);
  const residual = plus(h, ffOut);
  const norm = pre || layerNorm(residual, gamma, beta, o.eps);
  return { ffPre, ffAct, ffOut, residual, norm, output: o.norm_first ? residual : norm };
}

// A matrix as a map shows it: {cells (as written), lo, hi (its finite extent)}.
function boxOf(matrix) {
  const finite = matrix.flat().filter(Number.isFinite);
  return { cells: matrix.map((row) => row.map(mapText)), lo: Math.min(...finite), hi: Math.max(...finite) };
}

window.selfattnPreviews ||= new Map(); // group -> {cells(views, tables) -> {link: box} | null, whole}
