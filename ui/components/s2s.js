// The fourth implementation of the maths, in the browser: an encoder–decoder, for the preview of the
// Encoder–decoder page. The first, and the truth, is selfattn/core/decoder.py (encoder_decoder and decoder_layer,
// held to torch.nn.Transformer and torch.nn.TransformerDecoderLayer by the tests); attention.js (the Playground's
// steps) and block.js (an encoder layer) are the second and third. This file works the page's model out again, in
// float64, from the numbers typed in its editors (the source X, the target Y and the weights of the layer being
// edited) and the other layers' weights the server sends as exact numbers, and writes every linked box of the
// decoder layer shown as the server writes a map's cells (mapText). Its arithmetic is maths.js's, shared with
// block.js: an encoder layer and each decoder sub-layer are maths.js's attentionSublayer and feedForward.
//
// Why: an edit should answer at once. On Enter, heatmap.js asks s2sCells for the maps of group "s2s" and redraws
// them in the key press's own task; the server's numbers follow (a fragment rerun) and are the truth: a map changes
// again only where they differ, which tests/test_seq2seq_preview_browser.py keeps from happening.
//
// Same steps as the core (post-LN, or pre-LN with norm_first): the source through the encoder layers (self-attention
// unmasked, then the feed-forward net), then the encoder's final LayerNorm: the memory. The target through each
// decoder layer: masked self-attention (token i reads tokens 0..i), cross-attention (queries from the decoder, keys
// and values from the memory, unmasked), the feed-forward net, each with its Add & Norm; then the decoder's final
// LayerNorm. Both final norms are torch.nn.Transformer's, γ = 1 and β = 0. Only plain decimal numbers are read (the
// server alone reads other forms and names a bad cell); the generation's maps (not linked) wait for the server.

const ENCODER_PARTS = ["wq", "wk", "wv", "wo", "b", "ln", "w1", "b1", "w2", "b2"];
const DECODER_PARTS = ["wq", "wk", "wv", "wo", "cq", "ck", "cv", "co", "b", "ln", "w1", "b1", "w2", "b2"];

// One decoder layer over the memory: {input, self, cross (attentionSublayer's), output}.
function decoderLayer(y, memory, p, o) {
  const [g1, b1, g2, b2, g3, b3] = p.ln;
  const self = attentionSublayer(y, null, [p.wq, p.wk, p.wv, p.wo], p.b.slice(0, 4), g1, b1, o, true);
  const cross = attentionSublayer(self.out, memory, [p.cq, p.ck, p.cv, p.co], p.b.slice(4), g2, b2, o, false);
  return { input: y, self, cross, output: feedForward(cross.out, p, g3, b3, o).output };
}

// Whether a layer's tables have the page's shapes (d_model d, d_ff dff; a decoder's b and γ, β have 8 and 6 rows).
function layerFits(p, parts, d, dff) {
  const rows = { b: parts === DECODER_PARTS ? 8 : 4, ln: parts === DECODER_PARTS ? 6 : 4, w1: d, b1: 1, w2: dff,
                 b2: 1 };
  const cols = { w1: dff, b1: dff };
  return parts.every((part) => p[part] && fits(p[part], rows[part] ?? d, cols[part] ?? d));
}

// The cells of every linked box of the page, {link: {cells, lo, hi}} ("src:x", "src:memory", "src:k", "src:v",
// "row:input", "row:h1", "row:h2", "row:out", "row:final", "self:<head>", "cross:<head>", heads counted from 0),
// worked out from the typed tables ({editor name: {instance, cells}}) and ``engine`` (the settings, every layer's
// tables but those of the layer being edited as exact numbers (those too while the weights' editors are closed),
// the decoder layer shown, and which editor instance holds each table now); or null when a table is missing or
// stale, a cell is not a plain number, a shape is off or a number is not finite.
function s2sCells(tables, engine) {
  const typed = (id) => {
    const name = "s2s_" + id, table = tables[name];
    if (!table || table.instance !== engine.instances[name]) return null;
    return readNumbers(table);
  };
  const { n, m, d, dff, heads } = engine;
  const src = typed("src"), tgt = typed("tgt");
  if (!src || !tgt || !fits(src, n, d) || !fits(tgt, m, d) || d % heads) return null;
  const layers = (side, parts, given) => given.map((tablesOf, k) => {
    if (tablesOf) return tablesOf;
    const p = {};
    for (const part of parts) p[part] = typed(`${side}${k + 1}${part}`);
    return p;
  });
  const encoder = layers("e", ENCODER_PARTS, engine.encoder), decoder = layers("d", DECODER_PARTS, engine.decoder);
  if (!encoder.length || !decoder.length || !encoder.every((p) => layerFits(p, ENCODER_PARTS, d, dff))
      || !decoder.every((p) => layerFits(p, DECODER_PARTS, d, dff)) || engine.layer >= decoder.length) return null;
  const ones = new Array(d).fill(1), zeros = new Array(d).fill(0);
  let state = src;
  for (const p of encoder) {
    const att = attentionSublayer(state, null, [p.wq, p.wk, p.wv, p.wo], p.b, p.ln[0], p.ln[1], engine, false);
    state = feedForward(att.out, p, p.ln[2], p.ln[3], engine).output;
  }
  const memory = layerNorm(state, ones, zeros, engine.eps);
  let shown = null;
  state = tgt;
  decoder.forEach((p, k) => {
    const layer = decoderLayer(state, memory, p, engine);
    if (k === engine.layer) shown = layer;
    state = layer.output;
  });
  const boxes = { "src:x": src, "src:memory": memory, "src:k": shown.cross.k, "src:v": shown.cross.v,
                  "row:input": shown.input, "row:h1": shown.self.out, "row:h2": shown.cross.out,
                  "row:out": shown.output, "row:final": layerNorm(state, ones, zeros, engine.eps) };
  // A head's self-attention is its weights, 0 above the diagonal: the map draws those cells masked (their mask comes
  // with the server's map data), as the server writes them.
  shown.self.heads.forEach((w, h) => { boxes[`self:${h}`] = w; });
  shown.cross.heads.forEach((w, h) => { boxes[`cross:${h}`] = w; });
  const cells = {};
  for (const [link, matrix] of Object.entries(boxes)) {
    if (!matrix.every((row) => row.every(Number.isFinite))) return null;
    cells[link] = boxOf(matrix);
  }
  return cells;
}

// The Encoder–decoder page's maps (group "s2s"): worked out from the typed tables and the options its source map
// brings (engine); the maps that link to nothing (generation's) are not in the group and wait for the server.
function seq2seqPreview(views, tables) {
  const source = views.get("src:x");
  return source && source.data.engine ? s2sCells(tables, source.data.engine) : null;
}

window.selfattnPreviews.set("s2s", { cells: seq2seqPreview, whole: false });
window.selfattnS2s ||= { s2sCells };
