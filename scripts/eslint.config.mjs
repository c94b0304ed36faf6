// ESLint's configuration for scripts/jscheck.sh: the page-side JavaScript
// tabhive embeds (page/js, browser/js, browser/storagestate/js).
import vm from 'node:vm';

// asSent lints a source as Chrome compiles it: a script as it is, a
// function declaration or expression (Runtime.callFunctionOn, most of
// page/js) inside parentheses.
const asSent = {
  meta: { name: 'as-sent' },
  preprocess(text) {
    try {
      new vm.Script(text);
      return [text];
    } catch {
      return ['(' + text + '\n)'];
    }
  },
  postprocess: (messages) => messages.flat(),
};

// replaceable names what a page's scripts can replace: every global of the
// realm (Node's, which has the language's and many web APIs) and the
// browser's own, but for the three no script can change.
const browser = ['window', 'self', 'document', 'location', 'navigator', 'navigation',
  'requestAnimationFrame', 'cancelAnimationFrame', 'XMLHttpRequest', 'MutationObserver',
  'MessageChannel', 'MessagePort', 'EventTarget', 'Performance', 'FileReader', 'HTMLElement',
  'Node', 'Element', 'Document', 'Window', 'Blob', 'indexedDB', 'localStorage', 'eval'];
const fixed = new Set(['undefined', 'NaN', 'Infinity']);
const replaceable = [...new Set([...Object.getOwnPropertyNames(globalThis), ...browser])]
  .filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && !fixed.has(n))
  .map((name) => ({
    name,
    message: 'a page can replace this global after tabhive took its references: use the reference taken at install.',
  }));

export default [
  {
    files: ['**/*.js'],
    processor: asSent,
    languageOptions: { ecmaVersion: 'latest', sourceType: 'script' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  {
    // Run in the page's main world after its scripts: the causal tracker
    // past its install (its first section takes the references, between
    // eslint-disable and eslint-enable) and the calls made on the tracker
    // or on a result it keeps.
    files: ['page/js/causal.js', 'page/js/tracker_*.js', 'page/js/function_wrapper.js',
      'page/js/script_wrapper.js', 'page/js/read_chunk.js', 'page/js/result_size.js',
      'page/js/identity.js'],
    rules: { 'no-restricted-globals': ['error', ...replaceable] },
  },
];
