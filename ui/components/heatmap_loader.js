// Each map element's own code: draw with the library that heatmap.js installed, or wait for it.
export default function (component) {
  if (window.selfattnMaps) return window.selfattnMaps.mount(component);
  (window.selfattnMapsQueue ||= []).push(component);
  return () => component.parentElement.__cleanup?.(); // drawn later, from the queue (heatmap.js)
}
