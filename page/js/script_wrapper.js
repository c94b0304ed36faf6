async function (__s, __b, __l, __k) {
  const __r = await this.script(__s, __b, __l, __k);
  if (__k) return __r;
  const __j = __r.json, __z = __r.size;
  if (__j === undefined) return {};
  if (typeof __j !== 'string' || __j.length > __l) return {bad: true};
  return typeof __z === 'number' ? {json: __j, size: __z} : {json: __j};
}