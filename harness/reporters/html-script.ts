/**
 * The report's only script, inlined and static (no evidence data inside it): verdict filters,
 * the diagram's place filter, expanding a lazy cell when opened, opening a cell when its matrix
 * chip is clicked, and copying a reproduce command.
 */
export const REPORT_JS = `
(function () {
  var cells = Array.prototype.slice.call(document.querySelectorAll('details.cell'));
  // Lazy details: a collapsed cell's body is packed with the others (gzip + base64, one inert
  // script element) and inserted when the cell is first opened. Inflated once, without network.
  var packed = null;
  function bodies() {
    if (packed) return packed;
    var node = document.getElementById('cell-bodies');
    if (!node || typeof DecompressionStream === 'undefined') return (packed = Promise.resolve({}));
    var text = atob(node.textContent.replace(/\\s+/g, ''));
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    packed = new Response(stream).text().then(JSON.parse);
    return packed;
  }
  function expand(cell) {
    if (!cell.hasAttribute('data-lazy')) return;
    cell.removeAttribute('data-lazy');
    bodies().then(function (map) {
      var markup = map[cell.id];
      if (!markup) return;
      cell.insertAdjacentHTML('beforeend', markup);
      bindCopy(cell);
    });
  }
  cells.forEach(function (cell) {
    cell.addEventListener('toggle', function () { if (cell.open) expand(cell); });
  });
  // A badge on the protocol diagram shows only the cells whose fault sits at its place.
  var showAll = document.querySelector('button.show-all-places');
  function filterPlace(place) {
    cells.forEach(function (cell) { cell.hidden = place !== null && cell.getAttribute('data-place') !== place; });
    if (showAll) showAll.hidden = place === null;
  }
  Array.prototype.slice.call(document.querySelectorAll('#diagram a.place')).forEach(function (link) {
    link.addEventListener('click', function () { filterPlace(link.getAttribute('data-place')); });
  });
  if (showAll) showAll.addEventListener('click', function () { filterPlace(null); });
  var buttons = Array.prototype.slice.call(document.querySelectorAll('.filters button'));
  buttons.forEach(function (button) {
    button.addEventListener('click', function () {
      var wanted = button.getAttribute('data-verdict');
      buttons.forEach(function (b) { b.setAttribute('aria-pressed', String(b === button)); });
      cells.forEach(function (cell) {
        cell.hidden = wanted !== 'ALL' && cell.getAttribute('data-verdict') !== wanted;
      });
    });
  });
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (target && target.tagName === 'DETAILS') { target.hidden = false; target.open = true; expand(target); }
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();
  function bindCopy(root) {
    Array.prototype.slice.call(root.querySelectorAll('button.copy')).forEach(function (button) {
      button.addEventListener('click', function () {
        var code = button.parentNode.querySelector('code');
        var text = code ? code.textContent : '';
        var done = function () { button.textContent = 'copied'; };
        if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, function () { select(code); });
        else select(code);
      });
    });
  }
  bindCopy(document);
  function select(node) {
    var range = document.createRange(); range.selectNodeContents(node);
    var selection = window.getSelection(); selection.removeAllRanges(); selection.addRange(range);
  }
})();
`;
