// A third-party widget: some main-thread work on another site's behalf.
(function () {
  var start = performance.now(), n = 0;
  while (performance.now() - start < 60) { n += Math.sqrt(n + 1); }
  var p = document.createElement('p');
  p.textContent = 'Widget loaded (' + Math.round(n) + ').';
  document.body.appendChild(p);
})();
