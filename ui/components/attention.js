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
// Loaded with the maps' drawing code: heatmap.py sends maths.js (the arithmetic every preview shares), this file,
// block.js and heatmap.js as one script. This file registers the Playground's preview for the maps of group "pg"
// (window.selfattnPreviews); heatmap.js draws what it returns. Nothing here touches the page; the tests reach
// stepCells and mapText as window.selfattnAttention.
//
// Same steps as the core: q = x W_q + b_q (k, v alike); scores = q kᵀ; scaled = scores / √d_k
// (when scaling), −∞ above the diagonal (under the causal mask); weights = softmax by row (less
// the row's maximum first, as stable_softmax does); outputs = weights v. Only plain decimal
// numbers are read (the server alone reads full-width digits or a typographic minus, and says
// what is wrong with a cell), so the preview draws only where the two read the same numbers.

// Every step of self-attention as the server's trace has it: {q, k, v, scores, scaled, weights,
// wv (the focus token's weighted values), out}, or null when a number is not finite.
function attend(x, wq, wk, wv, bias, scale, causal, focus) {
  const q = addRow(matmul(x, wq), bias && bias.q), k = addRow(matmul(x, wk), bias && bias.k);
  const v = addRow(matmul(x, wv), bias && bias.v);
  const scores = q.map((qi) => k.map((kj) => qi.reduce((sum, a, t) => sum + a * kj[t], 0)));
  const root = Math.sqrt(k[0].length);
  const scaled = scores.map((row, i) => row.map((s, j) => (causal && j > i ? -Infinity : scale ? s / root : s)));
  const weights = scaled.map(softmaxRow);
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
    m[name] = readNumbers(tables[name], name === "x");
    if (!m[name] || !m[name].length || !m[name][0].length) return null;
  }
  const d = m.x[0].length, dk = m.w_q[0].length, dv = m.w_v[0].length;
  if (!fits(m.x, m.x.length, d) || !fits(m.w_q, d, dk) || !fits(m.w_k, d, dk) || !fits(m.w_v, d, dv)) return null;
  if (bias && !(fits(m.b_q, 1, dk) && fits(m.b_k, 1, dk) && fits(m.b_v, 1, dv))) return null;
  if (pe && !fits(pe, m.x.length, d)) return null;
  const x = pe ? m.x.map((row, i) => row.map((v, j) => v + pe[i][j])) : m.x; // X + PE, as the server adds them
  const steps = attend(x, m.w_q, m.w_k, m.w_v, bias && { q: m.b_q[0], k: m.b_k[0], v: m.b_v[0] },
                       scale, causal, focus);
  if (!steps) return null;
  const cells = {};
  for (const [link, matrix] of Object.entries(steps)) cells[link] = boxOf(matrix);
  return cells;
}

// The Playground's maps (group "pg"): the steps worked out from the typed tables with the options the outputs map
// brings (engine), for the focus row; all of them or none (a map left with older numbers than its neighbours
// would mislead), and only while the tokens typed are the tokens the maps show.
function playgroundPreview(views, typed) {
  // the Playground's editors are named pg_<table> (the kit's names: ui/editable_page.py)
  const tables = Object.fromEntries(Object.entries(typed).filter(([name]) => name.startsWith("pg_"))
    .map(([name, table]) => [name.slice(3), table]));
  const out = views.get("out");
  if (!out || !out.data.engine) return null;
  const x = tables.x;
  const labels = x ? x.cells.map((row) => row[x.labels.indexOf(true)].trim()) : [];
  if (labels.length !== out.data.rows.length || labels.some((label, i) => label !== out.data.rows[i])) return null;
  return stepCells(tables, out.data.engine, out.data.focus ?? 0);
}

window.selfattnPreviews.set("pg", { cells: playgroundPreview, whole: true });
window.selfattnAttention ||= { stepCells, mapText };
