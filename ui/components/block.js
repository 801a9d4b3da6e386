// The third implementation of the maths, in the browser: a Transformer encoder layer, for the preview of the
// Transformer block page. The first, and the truth, is selfattn/core/block.py (transformer_layer, held to
// torch.nn.TransformerEncoderLayer by the tests); attention.js is the second (the Playground's steps). This file
// works one layer out again, in float64, from the numbers typed in the block page's editors, and writes every
// box of the flow as the server writes a map's cells (mapText); its arithmetic is maths.js's, shared with
// attention.js and s2s.js (the attention and feed-forward sub-layers are maths.js's attentionSublayer and
// feedForward).
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
// norm2, ff_pre, ff_act, ff_out, residual2, output}, from maths.js's two sub-layers (shared with s2s.js).
function blockLayer(x, p, o) {
  const [g1, be1, g2, be2] = p.ln;
  const att = attentionSublayer(x, null, [p.wq, p.wk, p.wv, p.wo], p.b, g1, be1, o, o.causal);
  const ff = feedForward(att.out, p, g2, be2, o);
  return { input: x, norm1: att.norm, q: att.q, k: att.k, v: att.v, heads: att.heads, concat: att.concat,
           projected: att.projected, residual1: att.residual, norm2: ff.norm, ff_pre: ff.ffPre, ff_act: ff.ffAct,
           ff_out: ff.ffOut, residual2: ff.residual, output: ff.output };
}

const PARTS = ["wq", "wk", "wv", "wo", "b", "ln", "w1", "b1", "w2", "b2"];

// The cells of every box of the layer shown, {link: {cells, lo, hi}} ("row:<box>" and "att:<head>"), worked out
// from the typed tables ({editor name: {instance, cells}}) and ``engine`` (the settings, the position vectors,
// the layers before the one shown as exact numbers, the layer shown's too while the weights' editors are closed,
// and which editor instance holds each table now); or null
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
  const shown = {};  // the layer's weights as typed, or as the server sent them while their editors are closed
  for (const part of PARTS) {
    shown[part] = engine.shown ? engine.shown[part] : typed(`${engine.layer + 1}${part}`);
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
