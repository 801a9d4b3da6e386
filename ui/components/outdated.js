// A box of numbers the server wrote (a written-out sum, a check's difference, the generation's maps), marked out of
// date while the editors hold tables typed since the server read them: the step maps above it are redrawn at once by
// the browser's preview (heatmap.js), the server's answer takes a second or more, and until it comes this box would
// show old numbers beside new ones, unmarked.
//
// Data in (ui/components/outdated.py): the key of the box (a Streamlit container, class st-key-<box>), the editors'
// revisions the server read for this run ({editor name: [instance, rev]}, as every map carries), and the note to show
// ("updating…"). window.selfattnTables holds what is typed (matrix_editor.js), and "selfattn-edit" says when it
// changes. While a table of the same editor instance is at a later revision than the one read, the box carries
// data-outdated="<note>": its contents are dimmed and the note shown over its corner (STYLE below, once a page; this
// element itself takes no room in the box). The
// server's answer mounts this element again with the new revisions, which clears it; an answer computed from tables
// older than those typed since keeps it.

const STYLE = `
[class*="st-key-outdated_"] { display: none; }
[data-outdated] { position: relative; }
[data-outdated] > * { opacity: 0.3; }
[data-outdated]::after {
  content: attr(data-outdated); position: absolute; top: 0.25rem; right: 0.5rem; z-index: 2;
  padding: 0.125rem 0.5rem; border-radius: 0.5rem; font-size: 0.875rem;
  color: #31333f; background: #fff; border: 1px solid rgba(49, 51, 63, 0.3);
}`;

function ahead(revs) {
  const tables = window.selfattnTables || {};
  return Object.entries(revs || {}).some(([name, [instance, rev]]) => {
    const typed = tables[name];
    return !!typed && typed.instance === instance && typed.rev > rev;
  });
}

export default function (component) {
  const data = JSON.parse(component.data);
  if (!document.getElementById("selfattn-outdated")) {
    const style = document.createElement("style");
    style.id = "selfattn-outdated";
    style.textContent = STYLE;
    document.head.appendChild(style);
  }
  const root = component.parentElement.getRootNode();
  const host = root.host || component.parentElement;
  const mark = () => {
    const box = host.closest(`.st-key-${data.box}`) || document.querySelector(`.st-key-${data.box}`);
    if (!box) return;
    if (ahead(data.revs)) box.dataset.outdated = data.note;
    else delete box.dataset.outdated;
  };
  mark();
  window.addEventListener("selfattn-edit", mark);
  return () => window.removeEventListener("selfattn-edit", mark);
}
