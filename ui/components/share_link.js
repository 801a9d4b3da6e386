// The page's link in the sidebar and a button that copies it. Streamlit's code box drew it before: that box loads
// Streamlit's code highlighter, on every page, for this one line (0.15-0.5 s of Chromium's CPU a page load,
// docs/benchmarks.md). Data in (ui/components/share_link.py): the link, the button's words and what it says once
// copied. Over plain http (a classroom's server) the clipboard API is missing: a selected hidden text box is copied.
function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  return ok ? Promise.resolve() : Promise.reject(new Error("copy refused"));
}

export default function (component) {
  const data = JSON.parse(component.data);
  const root = component.parentElement;
  let box = root.querySelector(".link");
  if (!box) {
    box = document.createElement("div");
    box.className = "link";
    const code = document.createElement("code");
    const button = document.createElement("button");
    button.type = "button";
    box.append(code, button);
    root.appendChild(box);
    button.addEventListener("click", () => {
      copyText(code.textContent).then(() => {
        button.textContent = button.dataset.copied;
        setTimeout(() => { button.textContent = button.dataset.copy; }, 1500);
      }, () => {});
    });
  }
  const code = box.querySelector("code"), button = box.querySelector("button");
  code.textContent = data.link;
  button.dataset.copy = data.copy;
  button.dataset.copied = data.copied;
  button.textContent = data.copy;
  button.title = data.copy;
}
