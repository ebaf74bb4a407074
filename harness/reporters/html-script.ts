/**
 * The report's only script, inlined and static (no evidence data inside it): verdict filters,
 * opening a cell when its matrix chip is clicked, and copying a reproduce command.
 */
export const REPORT_JS = `
(function () {
  var cells = Array.prototype.slice.call(document.querySelectorAll('details.cell'));
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
    if (target && target.tagName === 'DETAILS') { target.hidden = false; target.open = true; }
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();
  Array.prototype.slice.call(document.querySelectorAll('button.copy')).forEach(function (button) {
    button.addEventListener('click', function () {
      var code = button.parentNode.querySelector('code');
      var text = code ? code.textContent : '';
      var done = function () { button.textContent = 'copied'; };
      if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, function () { select(code); });
      else select(code);
    });
  });
  function select(node) {
    var range = document.createRange(); range.selectNodeContents(node);
    var selection = window.getSelection(); selection.removeAllRanges(); selection.addRange(range);
  }
})();
`;
