function (op, a, b) {
const w = globalThis.__tabhiveWalker ??= (__WALKER__);
return w.call(this, op, a, b);
}