document.visibilityState === 'hidden' ? false :
new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))