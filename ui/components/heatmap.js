// The Playground's step maps: one table per matrix, each cell coloured by its value with the
// value written in it (a heatmap and its table in one), drawn in the browser from a little JSON.
//
// Data in (ui/components/heatmap.py): the map's name, row and column headers, the cells as text
// (as the server formats them; "−∞" for a masked score), on a weights map under a mask the cells the mask
// forbids (mask: rows of 0/1; their weight, 0, is written in them and they are drawn masked) and the note that
// says so (mask_note), the colour scale (low, high, stops,
// masked grey; fixed for a 0..1 scale), its place in the linked steps ("q", "k", "v", "scores",
// "scaled", "weights", "wv", "out") and group, the focus token, the editors' revisions the server
// read, and on the outputs map the options the preview works with (engine).
// Trigger out: {pick: i} when a query's row is clicked (the page makes token i the focus).
//
// Linking happens here, in the browser, with no message to the server: hovering (or tapping) a
// cell tells every map of the same group through one window event, and each map outlines the
// rows, columns or cells that took part.
//
// This code travels once, in one script after attention.js (the preview's arithmetic): it comes
// with one element of its own outside the page's fragment (heatmap.py's ``library``), which
// installs it as ``window.selfattnMaps``; every map element carries only a few lines
// (heatmap_loader.js) that call it, so an edit does not send it again. A map drawn before this
// code arrived waits in ``window.selfattnMapsQueue``.

const maps = new Map(); // group -> Map(link -> view): the maps on the page, found by their place
const EVENT = "selfattn-link";
const QUERY_ROWS = ["q", "scores", "scaled", "weights", "out"]; // maps whose row i is query i: a click picks it
// The Transformer block's maps: "row:<step>" is a matrix whose row i is token i (every step of the block), and
// "att:<head>" a head's weights (row i the query, column j the key). A token's row lights up in all of them.
const tokenRows = (link) => typeof link === "string" && link.startsWith("row:");
const headWeights = (link) => typeof link === "string" && link.startsWith("att:");
// The Encoder–decoder page's two kinds of rows: i a target position, j a source position, in every map of its
// group. "row:" maps have target rows, "src:" maps source rows, "self:" a head's m × m masked self-attention
// (it lights its target row), "cross:" a head's m × n cross-attention (target row i, source column j).
const sourceRows = (link) => typeof link === "string" && link.startsWith("src:");
const selfWeights = (link) => typeof link === "string" && link.startsWith("self:");
const crossWeights = (link) => typeof link === "string" && link.startsWith("cross:");
const picks = (link) => QUERY_ROWS.includes(link) || tokenRows(link) || headWeights(link) || selfWeights(link)
  || crossWeights(link);
const sheet = new CSSStyleSheet();
sheet.replaceSync(STYLE);

function mount(component) {
  const { parentElement, setTriggerValue } = component;
  const data = JSON.parse(component.data); // one JSON string: Streamlit does not walk a string's keys
  const root = parentElement.getRootNode();
  if (root.adoptedStyleSheets && !root.adoptedStyleSheets.includes(sheet)) {
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  }
  if (data.maps) return mountRow(parentElement, setTriggerValue, data);
  let view = parentElement.__heatmap;
  if (!view) {
    view = build(parentElement);
    parentElement.__heatmap = view;
  }
  view.pick = setTriggerValue;
  view.draw(data);
  return () => forget(view);
}

// A map leaves the page: it no longer lights up with its group, nor takes a preview.
function forget(view) {
  const group = maps.get(view.group);
  if (group && group.get(view.link) === view) group.delete(view.link);
}

// Maps side by side in one element (heatmap.py's MapRow): {maps: [{key, width, data}], scroll}. Each map is a slot of
// the row (data-map: its key), drawn as a map element draws it; a slot whose key is gone is taken away, and a click
// on a row of one sends {pick: {map: key, row: i}}.
function mountRow(parentElement, setTriggerValue, data) {
  let row = parentElement.__mapRow;
  if (!row) {
    const box = document.createElement("div");
    box.className = "map-row";
    parentElement.appendChild(box);
    row = parentElement.__mapRow = { box, views: new Map() };
  }
  const drawn = new Set();
  data.maps.forEach(({ key, width, data: map }, i) => {
    let view = row.views.get(key);
    if (!view) {
      const slot = document.createElement("div");
      slot.className = "slot";
      slot.dataset.map = key;
      view = build(slot);
      view.slot = slot;
      row.views.set(key, view);
    }
    // in the order drawn; a slot already in its place stays put (moved, its map would lose its scroll and focus)
    if (row.box.children[i] !== view.slot) row.box.insertBefore(view.slot, row.box.children[i] ?? null);
    view.slot.classList.toggle("stretch", width === "stretch");
    view.slot.style.width = typeof width === "number" ? `${width}px` : "";
    view.pick = (name, r) => setTriggerValue(name, { map: key, row: r });
    view.draw({ ...map, scroll: data.scroll });
    drawn.add(key);
  });
  for (const [key, view] of row.views) {
    if (drawn.has(key)) continue;
    forget(view);
    view.slot.remove();
    row.views.delete(key);
  }
  return () => { for (const view of row.views.values()) forget(view); };
}

function hexRgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

// The colour of t in [0, 1] along the stops, and whether white text reads better on it than black
// (relative luminance under 0.179: there both contrast ratios are 4.58, above it black wins).
function colourAt(stops, t) {
  const x = Math.min(1, Math.max(0, t)) * (stops.length - 1);
  const k = Math.min(stops.length - 2, Math.floor(x));
  const f = x - k, a = stops[k], b = stops[k + 1];
  const rgb = a.map((v, c) => Math.round(v + (b[c] - v) * f));
  const lum = rgb.map((v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
  const y = 0.2126 * lum[0] + 0.7152 * lum[1] + 0.0722 * lum[2];
  return [`rgb(${rgb.join(",")})`, y < 0.179];
}

function escape(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

function build(parent) {
  const box = document.createElement("div");
  box.className = "map";
  parent.appendChild(box);
  const view = { box, data: null, group: null, link: null, pick: null, cells: [], rowHeads: [], colHeads: [] };

  // A map wider or taller than its box scrolls inside it, and says so under it: how many of its columns and rows
  // are out of view, counted again as it scrolls or its box resizes, at most once a frame. Counted only while the
  // browser lays out its cells: a map far from the window has them skipped (content-visibility), and a count then
  // would see no overflow and empty the note; the map counts again when its cells come back (the browser says so
  // on the wrap), since its own box may keep its size and no resize would tell. The note says whether it is counted
  // (data-counted: "no" from a change until the count that follows it), since that comes a frame or two after the
  // cells are laid out, later on a busy machine: the wide-map test read it 400 ms after a scroll and found it empty.
  let counting = false;
  const count = () => {
    counting = false;
    const wrap = box.querySelector(".wrap"), more = box.querySelector(".more"), notes = view.data?.scroll;
    if (!wrap || !more || !notes || !view.seen) return;
    if (!wrap.firstElementChild.checkVisibility({ contentVisibilityAuto: true })) return;
    if (view.pending) view.pending = !view.restore(wrap); // laid out now: back to where its visitor scrolled it
    more.dataset.counted = "yes";
    const parts = [];
    if (wrap.scrollWidth > wrap.clientWidth + 1) {
      const left = wrap.scrollLeft + (view.rowHeads[0]?.offsetWidth || 0), right = wrap.scrollLeft + wrap.clientWidth;
      const hidden = view.colHeads.filter((th) => th.offsetLeft < left - 1 || th.offsetLeft + th.offsetWidth > right + 1).length;
      if (hidden) parts.push(notes.cols.replace("{hidden}", hidden).replace("{total}", view.colHeads.length));
    }
    if (wrap.scrollHeight > wrap.clientHeight + 1) {
      const head = wrap.querySelector("thead")?.offsetHeight || 0;
      const top = wrap.scrollTop + head, bottom = wrap.scrollTop + wrap.clientHeight;
      const hidden = view.rowHeads.filter((th) => th.offsetTop < top - 1 || th.offsetTop + th.offsetHeight > bottom + 1).length;
      if (hidden) parts.push(notes.rows.replace("{hidden}", hidden).replace("{total}", view.rowHeads.length));
    }
    const text = parts.join(" ");
    if (more.textContent !== text) more.textContent = text;
    more.hidden = !text;
  };
  view.recount = () => {
    const more = box.querySelector(".more");
    if (more) more.dataset.counted = "no";
    if (!counting) { counting = true; requestAnimationFrame(count); }
  };
  view.restore = (wrap) => { // the noted place, put back (on a table laid out): whether it took
    [wrap.scrollLeft, wrap.scrollTop] = view.scrolled;
    return Math.abs(wrap.scrollLeft - view.scrolled[0]) < 1 && Math.abs(wrap.scrollTop - view.scrolled[1]) < 1;
  };
  view.sized = new ResizeObserver(view.recount);
  new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting) && !view.seen) { view.seen = true; view.recount(); }
  }).observe(box);

  view.draw = (data, preview = false) => {
    // An answer computed from older tables than those typed since (a second edit went out before
    // it came) is not drawn: the preview of the newer ones stays until their answer comes.
    const tables = window.selfattnTables || {};
    for (const [name, [instance, rev]] of Object.entries(data.revs || {})) {
      const typed = tables[name];
      if (!preview && typed && typed.instance === instance && typed.rev > rev && view.data) return;
    }
    // A map already showing exactly this (the preview drew it before the server's numbers came) is
    // left as it is; its data is taken all the same.
    const shown = JSON.stringify([data.name, data.rows, data.cols, data.cells, data.low_text, data.high_text,
                                  data.stops, data.masked, data.mask, data.mask_note, data.focus, data.head]);
    const same = shown === view.shown && data.link === view.link && data.group === view.group;
    view.data = data;
    if (same) return;
    view.shown = shown;
    if (view.group !== data.group || view.link !== data.link) {
      const old = maps.get(view.group);
      if (old && old.get(view.link) === view) old.delete(view.link);
      view.group = data.group;
      view.link = data.link;
    }
    if (data.link) {
      if (!maps.has(data.group)) maps.set(data.group, new Map());
      maps.get(data.group).set(data.link, view);
    }
    const stops = data.stops.map(hexRgb);
    const span = data.hi - data.lo;
    // A cell is drawn masked when the mask forbids it (a weight: 0, written) or it holds no number (a score: −∞).
    const masked = (i, j, v) => !Number.isFinite(v) || !!data.mask?.[i]?.[j];
    // The same table with new numbers (an edit): its cells change in place, text and colour, instead of the
    // whole table being built again (about 6,000 cells at the block page's largest), and what is lit stays lit.
    const frame = JSON.stringify([data.name, data.rows, data.cols, data.focus, data.masked, data.mask, data.mask_note,
                                  data.head]);
    if (frame === view.frame && view.cells.length === data.cells.length
        && view.cells.every((row, i) => row.length === data.cells[i].length)) {
      data.cells.forEach((row, i) => row.forEach((text, j) => {
        const td = view.cells[i][j];
        if (td.textContent !== text) td.textContent = text;
        const v = parseFloat(text);
        if (!masked(i, j, v)) {
          const [bg, dark] = colourAt(stops, span > 0 ? (v - data.lo) / span : 0.5);
          td.style.background = bg;
          td.classList.toggle("dark", dark);
          td.classList.remove("masked");
        } else {
          td.style.background = "";
          td.style.backgroundColor = data.masked; // the hatching over it is the style sheet's
          td.classList.remove("dark");
          td.classList.add("masked");
        }
      }));
      const legend = box.querySelector(".legend");
      legend.firstElementChild.textContent = data.low_text;
      legend.lastElementChild.textContent = data.high_text;
      legend.querySelector(".ramp").style.background = `linear-gradient(to right,${data.stops.join(",")})`;
      view.recount();
      return;
    }
    view.frame = frame;
    // A map of the Transformer block's and the Encoder–decoder's pages says itself what it is (its name and shape,
    // a note, the line under it), in one element with the map instead of three of Streamlit's.
    const head = data.head;
    box.classList.toggle("framed", !!head);
    let html = !head ? "" : `<div class="head"><strong>${escape(head.title)}</strong>&nbsp; ` +
      `<code>${escape(head.shape)}</code>${head.note ? ` · ${escape(head.note)}` : ""}</div>` +
      (head.caption ? `<div class="caption">${escape(head.caption)}</div>` : "");
    html += `<div class="wrap"><table aria-label="${escape(data.name)}"><thead><tr><th class="corner"></th>`;
    for (const c of data.cols) html += `<th scope="col">${escape(c)}</th>`;
    html += "</tr></thead><tbody>";
    data.cells.forEach((row, i) => {
      html += `<tr><th scope="row" tabindex="${i === 0 ? 0 : -1}"${i === data.focus ? ' class="focus"' : ""}>` +
              `${escape(data.rows[i])}</th>`;
      row.forEach((text, j) => {
        const v = parseFloat(text);
        if (!masked(i, j, v)) {
          const [bg, dark] = colourAt(stops, span > 0 ? (v - data.lo) / span : 0.5);
          html += `<td style="background:${bg}"${dark ? ' class="dark"' : ""}>${escape(text)}</td>`;
        } else {
          html += `<td class="masked" style="background-color:${data.masked}">${escape(text)}</td>`;
        }
      });
      html += "</tr>";
    });
    html += "</tbody></table></div>";
    const ramp = data.stops.join(",");
    html += `<div class="legend" aria-hidden="true"><span>${escape(data.low_text)}</span>` +
            `<span class="ramp" style="background:linear-gradient(to right,${ramp})"></span>` +
            `<span>${escape(data.high_text)}</span></div>`;
    if (data.mask_note) {
      html += `<div class="mask-note"><span class="key" style="background-color:${data.masked}"></span>` +
              `<span>${escape(data.mask_note)}</span></div>`;
    }
    html += `<div class="more" aria-live="polite" data-counted="no" hidden></div>`;
    box.innerHTML = html;
    const wrap = box.querySelector(".wrap");
    // A table built anew (another focus token, new labels) keeps the place its visitor scrolled it to, noted at each
    // scroll: a map out of the window has its cells skipped (it reads 0 and takes no scroll), so until it is laid out
    // again the place waits (count puts it back).
    view.pending = !!view.scrolled; // put back once laid out (count): a new table is skipped until its first frame
    view.sized.disconnect();
    view.sized.observe(wrap);
    wrap.addEventListener("scroll", () => {
      const laidOut = wrap.firstElementChild.checkVisibility({ contentVisibilityAuto: true }); // skipped, it reads 0
      if (!view.pending && laidOut) view.scrolled = [wrap.scrollLeft, wrap.scrollTop];
      view.recount();
    }, { passive: true });
    wrap.addEventListener("contentvisibilityautostatechange", (event) => { if (!event.skipped) view.recount(); });
    const table = box.querySelector("table");
    view.rowHeads = [...table.tBodies[0].rows].map((tr) => tr.cells[0]);
    view.cells = [...table.tBodies[0].rows].map((tr) => [...tr.cells].slice(1));
    view.colHeads = [...table.tHead.rows[0].cells].slice(1);
    view.lit = [];
    if (current.group === view.group && current.from) light(view, current);
  };

  // Where a cell sits among the steps: which query i and which key j it belongs to.
  const place = (td) => {
    const cell = td.closest("td, th[scope='row']");
    if (!cell || !view.data) return null;
    const tr = cell.parentElement;
    const r = tr.sectionRowIndex;
    const c = cell.tagName === "TD" ? cell.cellIndex - 1 : null;
    switch (view.link) {
      case "q": case "out": return { i: r, j: null };
      case "k": case "v": return { i: null, j: r };
      case "wv": return { i: view.data.focus, j: r };
      case "scores": case "scaled": case "weights": return { i: r, j: c };
      default:
        if (tokenRows(view.link) || selfWeights(view.link)) return { i: r, j: null };
        if (headWeights(view.link) || crossWeights(view.link)) return { i: r, j: c };
        if (sourceRows(view.link)) return { i: null, j: r };
        return null;
    }
  };
  const announce = (where) => {
    if (!view.link) return;
    window.dispatchEvent(new CustomEvent(EVENT, { detail: { group: view.group, from: view.link, ...where } }));
  };
  box.addEventListener("pointerover", (event) => {
    if (event.pointerType === "touch") return; // a tap lights up on pointerdown, and stays
    const where = place(event.target);
    if (where) announce(where);
  });
  box.addEventListener("pointerleave", (event) => {
    if (event.pointerType !== "touch") announce({ i: null, j: null });
  });
  // The keyboard: one stop a map, its row names; arrows move between them, a focused row lights up
  // as a pointed-at one does, and Enter (or Space) on a query's row makes that token the focus.
  box.addEventListener("focusin", (event) => {
    const where = place(event.target);
    if (where) announce(where);
  });
  box.addEventListener("focusout", () => announce({ i: null, j: null }));
  box.addEventListener("keydown", (event) => {
    const th = event.target.closest("tbody th");
    if (!th) return;
    const r = th.parentElement.sectionRowIndex;
    const to = { ArrowUp: r - 1, ArrowDown: r + 1, Home: 0, End: view.rowHeads.length - 1 }[event.key];
    if (to !== undefined) {
      event.preventDefault();
      const next = view.rowHeads[Math.max(0, Math.min(view.rowHeads.length - 1, to))];
      th.tabIndex = -1;
      next.tabIndex = 0;
      next.focus();
    } else if ((event.key === "Enter" || event.key === " ") && picks(view.link) && view.pick) {
      event.preventDefault();
      view.pick("pick", r);
    }
  });
  // A tap lights up what a pointer would; a second tap on the same place is the click that picks.
  let tapped = null, again = false;
  box.addEventListener("pointerdown", (event) => {
    const where = place(event.target);
    if (!where || event.pointerType !== "touch") return;
    const key = `${where.i},${where.j}`;
    again = key === tapped;
    tapped = key;
    announce(where);
  });
  box.addEventListener("click", (event) => {
    const where = place(event.target);
    if (event.pointerType === "touch" && !again) return;
    if (where && where.i !== null && picks(view.link) && view.pick) {
      view.pick("pick", where.i); // the query of that row becomes the focus of steps 4-7
    }
  });
  return view;
}

// The one hovered place of the page, shared by every map (a map drawn anew lights up the same).
let current = { group: null, from: null, i: null, j: null };
window.addEventListener(EVENT, (event) => {
  current = event.detail;
  const group = maps.get(current.group);
  if (group) for (const view of group.values()) light(view, current);
});

// The values that output row i mixed: the keys j whose weight w[i][j] is not 0 (under the mask, j <= i).
function mixed(group, i) {
  const weights = maps.get(group)?.get("weights");
  if (!weights || !weights.data || !weights.data.cells[i]) return null;
  return weights.data.cells[i].map((text, j) => (parseFloat(text) !== 0 ? j : -1)).filter((j) => j >= 0);
}

function light(view, where) {
  for (const el of view.lit) el.classList.remove("lit", "lit-row", "lit-col");
  view.lit = [];
  const { i, j } = where;
  if (i === null && j === null) return;
  const mark = (el, cls) => { if (el) { el.classList.add(cls); view.lit.push(el); } };
  const row = (r) => { if (r !== null && view.cells[r]) { mark(view.rowHeads[r], "lit-row"); for (const td of view.cells[r]) mark(td, "lit"); } };
  const col = (c) => { if (c !== null && view.colHeads[c]) { mark(view.colHeads[c], "lit-col"); for (const tr of view.cells) mark(tr[c], "lit"); } };
  switch (view.link) {
    case "q": row(i); break;
    case "out": row(i); break;
    case "k": case "v":
      if (j !== null) row(j);
      else if (i !== null) for (const k of mixed(view.group, i) || []) row(k);
      break;
    case "wv":
      if (j !== null && (i === null || i === view.data.focus)) row(j);
      else if (j === null && i === view.data.focus) for (const k of mixed(view.group, i) || []) row(k);
      break;
    case "scores": case "scaled": case "weights":
      if (i !== null && j !== null) { mark(view.rowHeads[i], "lit-row"); mark(view.colHeads[j], "lit-col"); mark(view.cells[i]?.[j], "lit"); }
      else if (i !== null) row(i);
      else col(j);
      break;
    default:
      if (tokenRows(view.link) || selfWeights(view.link)) row(i);
      else if (sourceRows(view.link)) row(j);
      else if (crossWeights(view.link)) {
        if (i !== null && j !== null) { mark(view.rowHeads[i], "lit-row"); mark(view.colHeads[j], "lit-col"); mark(view.cells[i]?.[j], "lit"); }
        else if (i !== null) row(i);
        else col(j);
      } else if (headWeights(view.link)) {
        if (i !== null && j !== null) { mark(view.rowHeads[i], "lit-row"); mark(view.colHeads[j], "lit-col"); mark(view.cells[i]?.[j], "lit"); }
        else if (i !== null) row(i);
      }
  }
}

// ── The preview: the maps redrawn the moment a cell is committed ─────────────────────────────
// Each page's engine (attention.js for the Playground's group "pg", block.js for the block page's "tb", s2s.js for
// the Encoder–decoder's "s2s") registered itself in window.selfattnPreviews: {cells(views, tables) -> {link:
// {cells, lo, hi}} | null, whole}. On an edit each group's engine works its maps out from the typed tables; this
// file only draws them. The server's numbers follow within a few hundred milliseconds and are the truth: a map
// whose preview matches them is left alone, one that does not is redrawn. A map the engine has no box for, or whose
// shape differs, waits for the server; with ``whole``, one such map makes the whole group wait (its maps are steps
// of one computation).

function previewOf(group, engine) {
  const views = maps.get(group);
  const tables = window.selfattnTables;
  if (!views || !tables) return null;
  const boxes = engine.cells(views, tables);
  if (!boxes) return null;
  const drawn = new Map();
  for (const [link, view] of views) {
    const box = boxes[link];
    if (!box || !view.data || box.cells.length !== view.data.cells.length
        || box.cells[0].length !== view.data.cells[0].length) {
      if (engine.whole) return null;
      continue;
    }
    const next = { ...view.data, cells: box.cells };
    if (!view.data.fixed) Object.assign(next, { lo: box.lo, hi: box.hi, low_text: mapText(box.lo), high_text: mapText(box.hi) });
    drawn.set(view, next);
  }
  return drawn;
}

window.addEventListener("selfattn-edit", () => {
  for (const [group, engine] of window.selfattnPreviews || []) {
    const drawn = previewOf(group, engine);
    if (drawn) for (const [view, data] of drawn) view.draw(data, true);
  }
});

if (!window.selfattnMaps) {
  window.selfattnMaps = { mount, colourAt, hexRgb };
  // a map drawn from the queue keeps its cleanup where its loader finds it when the element goes (heatmap_loader.js)
  for (const waiting of window.selfattnMapsQueue?.splice(0) || []) waiting.parentElement.__cleanup = mount(waiting);
}

export default function () {}
