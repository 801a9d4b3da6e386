// The Playground's matrix editor: one <input> per cell, made for small matrices of numbers.
//
// Data in (from ui/components/matrix_editor.py, as JSON): the instance's key, the matrix's name,
// row and column headers, the cells as text (as at the mount), each column's most characters,
// which columns hold labels, the bad cell [row, col] or null with the revision the server read
// it in (0 without one), and the texts of the current language.
// State out: {table: {rev, cells}}: the full table of cell texts as typed, with a revision number,
// sent at once on Enter, Tab, blur and paste (one message, so one rerun, per commit).
//
// Streamlit calls this function again with new data on every rerun. Within one instance the
// cells typed here are the truth (the server only ever learns them from us), so a late rerun
// never overwrites a newer keystroke; a change from outside (preset, upload, undo...) comes as a
// new instance key, which rebuilds the table from the data.

const editors = new WeakMap(); // parentElement -> editor

export default function (component) {
  const { parentElement, setStateValue } = component;
  const data = JSON.parse(component.data); // one JSON string (matrix_editor.payload)
  let ed = editors.get(parentElement);
  if (!ed || ed.instance !== data.instance) {
    ed = build(parentElement, data);
    editors.set(parentElement, ed);
  }
  ed.send = setStateValue;
  ed.update(data);
  return () => editors.delete(parentElement);
}

function fill(template, params) {
  return template.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ""));
}

function build(parent, data) {
  parent.querySelector(".wrap")?.remove();
  parent.querySelector(".status")?.remove();
  const rows = data.cells.length;
  const cols = data.cols.length;
  const committed = data.cells.map((row) => row.slice()); // what the server has been sent
  const inputs = [];
  const ed = { instance: data.instance, rev: data.rev || 0, send: null };

  const wrap = document.createElement("div");
  wrap.className = "wrap";
  const table = document.createElement("table");
  table.setAttribute("aria-label", data.matrix);
  const head = table.createTHead().insertRow();
  const corner = document.createElement("th");
  corner.className = "corner";
  head.appendChild(corner);
  data.cols.forEach((name, j) => {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = name;
    if (data.labels[j]) th.className = "label";
    head.appendChild(th);
  });
  const body = table.createTBody();
  for (let i = 0; i < rows; i++) {
    const tr = body.insertRow();
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = data.rows[i];
    tr.appendChild(th);
    inputs.push([]);
    for (let j = 0; j < cols; j++) {
      const input = document.createElement("input");
      input.type = "text";
      input.value = committed[i][j];
      input.maxLength = data.max[j];
      input.spellcheck = false;
      input.autocomplete = "off";
      input.setAttribute("inputmode", data.labels[j] ? "text" : "decimal");
      if (data.labels[j]) input.className = "label";
      input.dataset.row = i;
      input.dataset.col = j;
      tr.insertCell().appendChild(input);
      inputs[i].push(input);
    }
  }
  wrap.appendChild(table);
  const status = document.createElement("p");
  status.className = "status";
  status.setAttribute("role", "status");
  parent.appendChild(wrap);
  parent.appendChild(status);

  // Accessible names, "X, Input 2, x3": X's rows are named by their (typed) labels.
  const labelCol = data.labels.indexOf(true);
  function rowName(i) {
    const label = labelCol >= 0 ? inputs[i][labelCol].value.trim() : "";
    return label || data.rows[i];
  }
  function nameRow(i) {
    for (let j = 0; j < cols; j++) {
      const row = data.labels[j] ? fill(data.texts.row, { i: i + 1 }) : rowName(i);
      const label = fill(data.texts.cell, { matrix: data.matrix, row, col: data.cols[j] });
      if (inputs[i][j].getAttribute("aria-label") !== label) inputs[i][j].setAttribute("aria-label", label);
    }
  }
  for (let i = 0; i < rows; i++) nameRow(i);

  function commit() {
    let changed = false;
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        if (inputs[i][j].value !== committed[i][j]) {
          committed[i][j] = inputs[i][j].value;
          changed = true;
        }
      }
    }
    if (!changed || !ed.send) return;
    ed.rev += 1;
    ed.send("table", { rev: ed.rev, cells: committed.map((row) => row.slice()) });
    share();
    window.dispatchEvent(new CustomEvent("selfattn-edit", { detail: { name: data.name } }));
  }

  // What is typed, where the step maps' preview (heatmap.js) reads it: the tables by name.
  function share() {
    const tables = (window.selfattnTables ||= {});
    tables[data.name] = { instance: data.instance, rev: ed.rev, cells: committed.map((row) => row.slice()),
                          labels: data.labels };
  }
  share();

  function select(i, j) {
    const input = inputs[Math.max(0, Math.min(rows - 1, i))][Math.max(0, Math.min(cols - 1, j))];
    input.focus();
    input.select();
  }

  const at = (input) => [Number(input.dataset.row), Number(input.dataset.col)];
  const allSelected = (input) => input.selectionStart === 0 && input.selectionEnd === input.value.length;

  // A block of cells picked with Shift+arrows or Shift+click, from an anchor cell to the focused
  // one: tinted, and what Ctrl+C copies (tab-separated, as a spreadsheet pastes it).
  let anchor = null;
  let block = null; // [top, left, bottom, right], inclusive
  function pick(from, to) {
    anchor = from;
    block = [Math.min(from[0], to[0]), Math.min(from[1], to[1]), Math.max(from[0], to[0]), Math.max(from[1], to[1])];
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const inside = i >= block[0] && i <= block[2] && j >= block[1] && j <= block[3];
        inputs[i][j].parentElement.classList.toggle("picked", inside);
      }
    }
  }
  function unpick() {
    if (!block) return;
    anchor = null;
    block = null;
    table.querySelectorAll("td.picked").forEach((td) => td.classList.remove("picked"));
  }
  const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

  table.addEventListener("keydown", (event) => {
    const input = event.target;
    if (input.tagName !== "INPUT" || event.isComposing) return; // an input method's Enter is its own
    const [i, j] = at(input);
    const key = event.key;
    const step = ARROWS[key];
    if (step && event.shiftKey && (block || key === "ArrowUp" || key === "ArrowDown" || allSelected(input))) {
      event.preventDefault(); // Shift+arrow: grow or shrink the block; the focus moves with its far corner
      const ti = Math.max(0, Math.min(rows - 1, i + step[0]));
      const tj = Math.max(0, Math.min(cols - 1, j + step[1]));
      pick(anchor || [i, j], [ti, tj]);
      select(ti, tj);
      return;
    }
    if (key !== "Shift" && !(event.ctrlKey || event.metaKey)) unpick();
    if (key === "Enter") {
      event.preventDefault();
      commit();
      select(event.shiftKey ? i - 1 : i + 1, j);
    } else if (key === "Escape") {
      event.preventDefault();
      input.value = committed[i][j];
      input.select();
    } else if (key === "ArrowUp" || key === "ArrowDown") {
      event.preventDefault();
      select(key === "ArrowUp" ? i - 1 : i + 1, j); // the blur commits
    } else if (key === "ArrowLeft" && (allSelected(input) || input.selectionEnd === 0) && j > 0) {
      event.preventDefault();
      select(i, j - 1);
    } else if (key === "ArrowRight" && (allSelected(input) || input.selectionStart === input.value.length)
               && j < cols - 1) {
      event.preventDefault();
      select(i, j + 1);
    }
    // Tab and Shift+Tab move by the browser's own order; the blur commits.
  });

  // Blur commits at once (Tab, a click elsewhere); moving within the table commits the cell left.
  table.addEventListener("focusout", () => commit());
  table.addEventListener("input", (event) => {
    const [i, j] = at(event.target);
    if (data.labels[j]) nameRow(i);
  });

  // The first click or tap selects the whole cell, as a spreadsheet does; a second places the caret.
  table.addEventListener("pointerdown", (event) => {
    const input = event.target;
    if (input.tagName !== "INPUT") return;
    const focused = inputs.flat().find((cell) => cell === document.activeElement || cell === parent.activeElement
                                        || cell.matches(":focus"));
    if (event.shiftKey && focused && focused !== input) { // Shift+click: the block from the focused cell
      event.preventDefault();
      pick(anchor || at(focused), at(input));
      input.focus();
      input.select();
      return;
    }
    unpick();
    if (input === parent.activeElement || input === document.activeElement) return;
    event.preventDefault();
    input.focus();
    input.select();
  });

  // A block pasted from a spreadsheet (tabs, else commas, between cells) fills from this cell.
  table.addEventListener("paste", (event) => {
    const input = event.target;
    const text = (event.clipboardData || window.clipboardData)?.getData("text/plain") ?? "";
    const lines = text.replace(/\r\n?/g, "\n").replace(/\n$/, "").split("\n");
    const sep = text.includes("\t") ? "\t" : ",";
    const block = lines.map((line) => line.split(sep));
    if (block.length === 1 && block[0].length === 1) return; // one value: the browser pastes it
    event.preventDefault();
    const [i0, j0] = at(input);
    let left = 0;
    let cut = 0;
    block.forEach((values, di) => values.forEach((value, dj) => {
      const i = i0 + di;
      const j = j0 + dj;
      if (i >= rows || j >= cols) { left += 1; return; }
      let v = value.trim();
      if (v.length > data.max[j]) { v = v.slice(0, data.max[j]); cut += 1; }
      inputs[i][j].value = v;
      if (data.labels[j]) nameRow(i);
    }));
    const width = Math.max(...block.map((values) => values.length));
    let message = fill(data.texts.pasted, { rows: block.length, cols: width });
    if (left) message += " " + fill(data.texts.pasted_left, { n: left });
    if (cut) message += " " + fill(data.texts.pasted_cut, { n: cut, chars: Math.min(...data.max) });
    status.textContent = message;
    commit();
  });

  // Copy with nothing selected inside a cell's text: the whole table, tab-separated, for a spreadsheet.
  table.addEventListener("copy", (event) => {
    const input = event.target;
    if (block && (block[2] > block[0] || block[3] > block[1])) { // a picked block of more than one cell
      event.preventDefault();
      const lines = [];
      for (let i = block[0]; i <= block[2]; i++) {
        lines.push(inputs[i].slice(block[1], block[3] + 1).map((cell) => cell.value).join("\t"));
      }
      event.clipboardData.setData("text/plain", lines.join("\n"));
      status.textContent = fill(data.texts.copied_block, { rows: block[2] - block[0] + 1, cols: block[3] - block[1] + 1 });
      return;
    }
    if (input.selectionStart !== input.selectionEnd) return; // the selected text, as usual
    event.preventDefault();
    event.clipboardData.setData("text/plain", inputs.map((row) => row.map((cell) => cell.value).join("\t")).join("\n"));
    status.textContent = fill(data.texts.copied, { rows, cols });
  });

  ed.update = (next) => {
    // Texts follow the language (a switch that relabels no token keeps this instance).
    if (next.texts.cell !== data.texts.cell || next.texts.row !== data.texts.row
        || next.cols.some((name, j) => name !== data.cols[j])) {  // a rerun changes nothing in the DOM otherwise
      data.texts = next.texts;
      data.cols = next.cols;
      data.cols.forEach((name, j) => { head.cells[j + 1].textContent = name; });
      for (let i = 0; i < rows; i++) nameRow(i);
    }
    data.texts = next.texts;
    // No bad cell: every mark goes. A bad cell is marked only when the server has seen what is
    // typed now (its revision comes with it; without a bad cell the server sends revision 0 and
    // the rest as at the mount, so that an edit re-sends nothing).
    if (next.bad && (next.rev || 0) < ed.rev) return;
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const bad = !!next.bad && next.bad[0] === i && next.bad[1] === j;
        if (bad === inputs[i][j].hasAttribute("aria-invalid")) continue;
        inputs[i][j].parentElement.classList.toggle("bad", bad);
        if (bad) inputs[i][j].setAttribute("aria-invalid", "true");
        else inputs[i][j].removeAttribute("aria-invalid");
      }
    }
  };
  return ed;
}
