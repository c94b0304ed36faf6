// gen.mjs writes node.json, the table of JavaScript's own answers that
// jsfmt's tests hold the Go code to (the tests do not run Node). Regenerate
// with: node internal/jsfmt/testdata/gen.mjs > internal/jsfmt/testdata/node.json
//
// Numbers are given by their IEEE 754 bits in hex, so that the table is
// exact; strings by their UTF-16 code units, so that lone surrogates survive
// the JSON file. The inputs are fixed cases and a seeded pseudo-random run,
// so the file only changes when this script does.

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);
const bits = (x) => { f64[0] = x; return u64[0].toString(16).padStart(16, "0"); };
const fromBits = (b) => { u64[0] = b; return f64[0]; };

// xorshift64*, seeded: the same inputs on every run.
let state = 0x9e3779b97f4a7c15n;
const mask = (1n << 64n) - 1n;
function next() {
  state ^= state >> 12n; state ^= (state << 25n) & mask; state ^= state >> 27n;
  return (state * 0x2545f4914f6cdd1dn) & mask;
}

const numbers = [
  0, -0, 1, -1, 0.1, 0.2, 0.1 + 0.2, 1 / 3, 2 / 3, 42, 123.456, -1.5, 0.5, 1.005,
  1e20, 1e21, 123456789012345680000, 1.5e300, Number.MAX_VALUE, Number.MIN_VALUE,
  Number.MAX_SAFE_INTEGER, Number.EPSILON, 0.000001, 0.0000001, 1e-7, -1.25e-7, 1.5e-7,
  5e-324, 2 ** 53 + 2, 2 ** 63, 2 ** 64, 645366074.9999999, 2080328921, 1e100, 1e-100,
  123e-20, 0.000123, 9.999999999999999e20, 9.999999999999999e-7, 1e-6, 100, 1e15, 1e16,
  NaN, Infinity, -Infinity,
];
for (let e = -30; e <= 30; e++) numbers.push(10 ** e, 1.5 * 10 ** e, -7.25 * 10 ** e);
for (let i = 0; i < 1000; i++) {
  const x = fromBits(next());
  numbers.push(x);
  // Values of ordinary size as well, where the fixed notation applies.
  numbers.push(Number((next() % 1000000000000n)) / 10 ** Number(next() % 12n));
}

const toFixedCases = [];
for (const d of [0, 1, 2, 4]) {
  for (const x of [0, 0.5, 1.5, 2.5, -2.5, 0.125, 1.005, 0.0424, 1.45, 8.345, 123.456, 1e20, 0.000001, -0.0001, 99.995]) {
    toFixedCases.push([x, d]);
  }
}
for (let i = 0; i < 500; i++) {
  toFixedCases.push([Number(next() % 100000000n) / 10 ** Number(next() % 9n), Number(next() % 5n)]);
}

const units = (s) => Array.from({ length: s.length }, (_, i) => s.charCodeAt(i));
const strings = [
  "", "a", "café", "😀", "a😀b", "\u2028\u2029", "<&>'", "\"\\/", "\b\f\n\r\t", "\u007f\u0080\u00ff",
  "\ufeff\ufffd\uffff", "\ud800", "\udc00", "\ud83d\ude00\ud83d", "\ue000", "\u{10ffff}",
];
let ctrl = "";
for (let c = 0; c < 0x20; c++) ctrl += String.fromCharCode(c);
strings.push(ctrl);
const alphabet = ["a", "Z", "0", "é", "ß", "€", "\u2028", "\ue000", "\uffff", "😀", "\u{10000}", "\u{10ffff}", "\ud800", "\udfff", "\n", "\"", "\\", "\u0001"];
for (let i = 0; i < 300; i++) {
  let s = "";
  for (let n = Number(next() % 8n); n > 0; n--) s += alphabet[Number(next() % BigInt(alphabet.length))];
  strings.push(s);
}

// Pairs to compare: each string with the next, and every two letters of
// the alphabet after a common prefix.
const compare = [];
for (let i = 0; i + 1 < strings.length; i++) compare.push([strings[i], strings[i + 1]]);
for (const a of alphabet) for (const b of alphabet) compare.push(["x" + a + "y", "x" + b]);

const out = {
  number: numbers.map((x) => [bits(x), String(x)]),
  toFixed: toFixedCases.map(([x, d]) => [bits(x), d, x.toFixed(d)]),
  string: strings.map((s) => ({
    units: units(s),
    stringify: JSON.stringify(s),
    length: s.length,
    // s.slice(0, n) for n from 0 to s.length.
    slice: Array.from({ length: s.length + 1 }, (_, n) => units(s.slice(0, n))),
  })),
  // a < b as JavaScript compares strings: by UTF-16 code units.
  compare: compare.map(([a, b]) => [units(a), units(b), a < b ? -1 : a > b ? 1 : 0]),
};
process.stdout.write(JSON.stringify(out) + "\n");
