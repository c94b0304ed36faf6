// The fixture extension's service worker: it logs when it starts, and its
// action marks the page it is clicked on (title and data-action).
console.log('fixture worker started');
chrome.action.onClicked.addListener((tab) => {
  console.log('action clicked on tab ' + tab.id + ' ' + tab.url + (tab.active ? ' (active)' : ''));
  chrome.scripting.executeScript({
    target: {tabId: tab.id},
    func: () => { document.body.dataset.action = 'clicked'; document.title = 'Action clicked'; },
  });
});
