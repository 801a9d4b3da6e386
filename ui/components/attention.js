// The second implementation of the steps of self-attention, in the browser. The first, and the
// truth, is selfattn/core/attention.py (attend, through self_attention): this file works the same
// steps out again, in float64, from the numbers typed in the Playground's editors, and writes them
// as the server writes a map's cells (selfattn/display/numbers.py, map_text).
//
// Why a second one: an edit should answer at once. On Enter the maps redraw from these numbers in
// the key press's own task, before the server has even been asked; the server's numbers follow
// (a fragment rerun) and are the truth, and a map changes only where the two differ, which the
// tests keep from happening: tests/test_preview_browser.py holds stepCells to the core's trace,
// step by step, over random examples (scale, mask, biases and positions each on or off), and
// mapText to map_text and to a reference worked out with Python's decimal, to the last character.
//
// Loaded with the maps' drawing code: heatmap.py sends this file and heatmap.js as one script,
// this one first, and heatmap.js's preview calls stepCells and mapText. Nothing here touches the
// page; the tests reach the two functions as window.selfattnAttention.
//
// Same steps as the core: q = x W_q + b_q (k, v alike); scores = q kᵀ; scaled = scores / √d_k
// (when scaling), −∞ above the diagonal (under the causal mask); weights = softmax by row (less
// the row's maximum first, as stable_softmax does); outputs = weights v. Only plain decimal
// numbers are read (the server alone reads full-width digits or a typographic minus, and says
// what is wrong with a cell), so the preview draws only where the two read the same numbers.

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

function numbers(table, skipLabels) {
  const rows = [];
  for (const row of table.cells) {
    const out = [];
    for (let j = 0; j < row.length; j++) {
      if (skipLabels && table.labels[j]) continue;
      const text = row[j].trim();
      if (!PLAIN.test(text)) return null;
      const v = Number(text);
      if (!Number.isFinite(v)) return null;
      out.push(v);
    }
    rows.push(out);
  }
  return rows;
}

const matmul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((sum, v, k) => sum + v * b[k][j], 0)));
const addRow = (m, b) => (b ? m.map((row) => row.map((v, j) => v + b[j])) : m);

// Every step of self-attention as the server's trace has it: {q, k, v, scores, scaled, weights,
// wv (the focus token's weighted values), out}, or null when a number is not finite.
function attend(x, wq, wk, wv, bias, scale, causal, focus) {
  const q = addRow(matmul(x, wq), bias && bias.q), k = addRow(matmul(x, wk), bias && bias.k);
  const v = addRow(matmul(x, wv), bias && bias.v);
  const scores = q.map((qi) => k.map((kj) => qi.reduce((sum, a, t) => sum + a * kj[t], 0)));
  const root = Math.sqrt(k[0].length);
  const scaled = scores.map((row, i) => row.map((s, j) => (causal && j > i ? -Infinity : scale ? s / root : s)));
  const weights = scaled.map((row) => {
    const top = Math.max(...row);
    const e = row.map((s) => Math.exp(s - top));
    const total = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / total);
  });
  const out = weights.map((w) => v[0].map((_, c) => w.reduce((sum, wj, j) => sum + wj * v[j][c], 0)));
  const f = focus < weights.length ? focus : 0;
  const wvs = v.map((vj, j) => vj.map((x) => weights[f][j] * x));
  const steps = { q, k, v, scores, scaled, weights, wv: wvs, out };
  for (const [name, m] of Object.entries(steps)) {
    for (const row of m) for (const x of row) if (!(Number.isFinite(x) || (name === "scaled" && x === -Infinity))) return null;
  }
  return steps;
}

// Every step's cells as the maps write them, {link: {cells, lo, hi}}, worked out from the typed
// ``tables`` ({name: {cells, labels}}) with the options ``engine`` for the focus row ``focus``; or
// null when a cell is not a plain number, a shape is off or a number is not finite.
function stepCells(tables, engine, focus) {
  const { scale, causal, bias, pe } = engine;
  const names = ["x", "w_q", "w_k", "w_v", ...(bias ? ["b_q", "b_k", "b_v"] : [])];
  const m = {};
  for (const name of names) {
    m[name] = tables[name] && numbers(tables[name], name === "x");
    if (!m[name] || !m[name].length || !m[name][0].length) return null;
  }
  const d = m.x[0].length, dk = m.w_q[0].length, dv = m.w_v[0].length;
  const fits = (a, rows, cols) => a.length === rows && a.every((row) => row.length === cols);
  if (!fits(m.x, m.x.length, d) || !fits(m.w_q, d, dk) || !fits(m.w_k, d, dk) || !fits(m.w_v, d, dv)) return null;
  if (bias && !(fits(m.b_q, 1, dk) && fits(m.b_k, 1, dk) && fits(m.b_v, 1, dv))) return null;
  if (pe && !fits(pe, m.x.length, d)) return null;
  const x = pe ? m.x.map((row, i) => row.map((v, j) => v + pe[i][j])) : m.x; // X + PE, as the server adds them
  const steps = attend(x, m.w_q, m.w_k, m.w_v, bias && { q: m.b_q[0], k: m.b_k[0], v: m.b_v[0] },
                       scale, causal, focus);
  if (!steps) return null;
  const cells = {};
  for (const [link, matrix] of Object.entries(steps)) {
    const finite = matrix.flat().filter(Number.isFinite);
    cells[link] = { cells: matrix.map((row) => row.map(mapText)), lo: Math.min(...finite), hi: Math.max(...finite) };
  }
  return cells;
}

window.selfattnAttention ||= { stepCells, mapText };
