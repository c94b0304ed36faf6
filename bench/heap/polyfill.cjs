// Promise.withResolvers is in Node >= 22; DevTools' heap-snapshot worker,
// which chrome-devtools-mcp 1.11 runs, calls it. Preloaded with
// NODE_OPTIONS=--require so that worker threads get it too.
if (!Promise.withResolvers) {
  Promise.withResolvers = function withResolvers() {
    let resolve;
    let reject;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return {promise, resolve, reject};
  };
}
