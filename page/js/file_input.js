function () {
  const ok = this instanceof HTMLInputElement && this.type === 'file';
  return {file: ok, multiple: ok && this.multiple};
}