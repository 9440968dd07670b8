// Comfort only: every form works without this script.
(function () {
  "use strict";
  // Disable the submit button after the first click (the server is idempotent anyway).
  document.querySelectorAll("form").forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      if (form.dataset.sent === "1") { ev.preventDefault(); return; }
      form.dataset.sent = "1";
      var btn = form.querySelector("button.submit");
      if (btn) { setTimeout(function () { btn.disabled = true; }, 0); }
    });
  });
  // Post-editing: autosave the draft a second after the last keystroke.
  var editor = document.querySelector("textarea.editor[data-draft-url]");
  if (!editor) { return; }
  var form = editor.form;
  var status = document.querySelector(".draft-status");
  var timer = null;
  function save() {
    var body = new URLSearchParams();
    body.set("csrf", form.querySelector("input[name=csrf]").value);
    body.set("edited", editor.value);
    fetch(editor.dataset.draftUrl, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "X-Requested-With": "fetch" }
    }).then(function (r) {
      if (status) { status.textContent = r.ok ? "Draft saved" : "Draft not saved"; }
    }).catch(function () { if (status) { status.textContent = "Draft not saved (offline?)"; } });
  }
  editor.addEventListener("input", function () {
    if (status) { status.textContent = "Editing…"; }
    clearTimeout(timer);
    timer = setTimeout(save, 800);
  });
})();
