(async () => {
  const value = await __RUN__;
  const json = JSON.stringify(value);
  if (json === undefined) return {json: 'undefined', size: 9};
  return {json: json.length > __MAX__ ? json.slice(0, __MAX__) : json, size: json.length};
})()