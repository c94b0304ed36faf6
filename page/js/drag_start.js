function () {
  const w = this.ownerDocument.defaultView;
  const st = {ev: null, w, on: null};
  st.on = (e) => { st.ev = e; };
  w.addEventListener('dragstart', st.on, {capture: true, once: true});
  return st;
}