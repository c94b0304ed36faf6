// A synchronous script in the head: it blocks rendering until it has run.
(function () {
  var start = performance.now();
  while (performance.now() - start < 20) {}
  window.appReady = true;
})();
