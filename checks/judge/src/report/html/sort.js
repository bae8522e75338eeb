"use strict";
// Sorts a table of class "sortable" by a heading with data-sort ("num" or
// "text"): numbers from a cell's data-value, else its text. The page reads
// the same without this script.
document.querySelectorAll("table.sortable").forEach(function (table) {
  var body = table.tBodies[0];
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
    var how = th.getAttribute("data-sort");
    if (!how) return;
    var button = document.createElement("button");
    button.type = "button";
    while (th.firstChild) button.appendChild(th.firstChild);
    th.appendChild(button);
    button.addEventListener("click", function () {
      var up = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (other) {
        other.removeAttribute("aria-sort");
      });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      var key = function (row) {
        var cell = row.cells[col];
        var value = cell.getAttribute("data-value");
        return how === "num" ? Number(value === null ? cell.textContent : value) : cell.textContent;
      };
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var d = how === "num" ? x - y : String(x).localeCompare(String(y));
        return up ? d : -d;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
