// Node 20 lacks the iterator helpers (Iterator.prototype.map, find,
// toArray, ...) that DevTools' trace engine calls; Node 22 has them. This
// adds what the engine uses, so that the oracle runs on this machine's
// Node 20. It changes nothing on a Node that has them.
const IteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));

const helpers = {
  * map(fn) {
    let i = 0;
    for (const v of this) {
      yield fn(v, i++);
    }
  },
  * filter(fn) {
    let i = 0;
    for (const v of this) {
      if (fn(v, i++)) {
        yield v;
      }
    }
  },
  * flatMap(fn) {
    let i = 0;
    for (const v of this) {
      yield* fn(v, i++);
    }
  },
  * take(n) {
    if (n <= 0) {
      return;
    }
    for (const v of this) {
      yield v;
      if (--n <= 0) {
        return;
      }
    }
  },
  * drop(n) {
    for (const v of this) {
      if (n > 0) {
        n--;
        continue;
      }
      yield v;
    }
  },
  toArray() {
    return [...this];
  },
  find(fn) {
    let i = 0;
    for (const v of this) {
      if (fn(v, i++)) {
        return v;
      }
    }
    return undefined;
  },
  some(fn) {
    let i = 0;
    for (const v of this) {
      if (fn(v, i++)) {
        return true;
      }
    }
    return false;
  },
  every(fn) {
    let i = 0;
    for (const v of this) {
      if (!fn(v, i++)) {
        return false;
      }
    }
    return true;
  },
  forEach(fn) {
    let i = 0;
    for (const v of this) {
      fn(v, i++);
    }
  },
  reduce(fn, ...init) {
    let i = 0;
    let acc;
    let started = init.length > 0;
    if (started) {
      acc = init[0];
    }
    for (const v of this) {
      if (!started) {
        acc = v;
        started = true;
        i++;
        continue;
      }
      acc = fn(acc, v, i++);
    }
    if (!started) {
      throw new TypeError('Reduce of empty iterator with no initial value');
    }
    return acc;
  },
};

for (const [name, fn] of Object.entries(helpers)) {
  if (typeof IteratorPrototype[name] !== 'function') {
    Object.defineProperty(IteratorPrototype, name, {value: fn, writable: true, configurable: true});
  }
}
