// The review page: place the boxes, select fields, save decisions. Needs values.js, loaded first.
// Keys: j / ArrowDown next field, k / ArrowUp previous, c confirm, e edit, r reject,
// Escape closes the editor. Requests go to the same origin (the CSP allows nothing else).
(function () {
  "use strict";

  const show = window.evidexValues.show; // values.js
  const api = document.body.dataset.api;
  const fields = Array.from(document.querySelectorAll("li.field"));
  const boxes = Array.from(document.querySelectorAll(".box"));
  const progress = document.getElementById("progress");
  const LABELS = { confirm: "Confirmed", edit: "Edited", reject: "Rejected" };
  const NUMBERS = new Set(["number", "percentage", "years", "integer", "amount"]);
  let current = -1;

  // Inline style attributes are forbidden by the CSP; the CSSOM is not.
  for (const box of boxes) {
    const d = box.dataset;
    box.style.left = d.l + "%";
    box.style.top = d.t + "%";
    box.style.width = d.w + "%";
    box.style.height = d.h + "%";
    box.addEventListener("click", () => select(fields.findIndex((f) => f.id === d.field), false));
  }

  function boxesOf(li) {
    return boxes.filter((b) => b.dataset.field === li.id);
  }

  function select(index, scroll) {
    if (index < 0 || index >= fields.length) return;
    if (current >= 0) {
      fields[current].classList.remove("current");
      fields[current].removeAttribute("aria-current");
      boxesOf(fields[current]).forEach((b) => b.classList.remove("focus"));
    }
    current = index;
    const li = fields[index];
    li.classList.add("current");
    li.setAttribute("aria-current", "true");
    li.scrollIntoView({ block: "nearest" });
    const own = boxesOf(li);
    own.forEach((b) => {
      b.classList.remove("focus");
      void b.offsetWidth; // restart the pulse
      b.classList.add("focus");
    });
    if (scroll && own.length) own[0].scrollIntoView({ block: "center", inline: "nearest" });
  }

  function setStatus(li, text, error) {
    const status = li.querySelector(".save-status");
    status.textContent = text;
    status.classList.toggle("error", Boolean(error));
  }

  function showDecision(li, decision) {
    const p = li.querySelector(".decided");
    p.hidden = false;
    p.querySelector(".d-label").textContent = LABELS[decision.action];
    p.querySelector(".d-value").textContent = show(decision.value);
    p.querySelector(".d-who").textContent = decision.who + " · " + decision.at.slice(0, 19);
    const was = li.classList.contains("decided");
    li.classList.remove("d-confirm", "d-edit", "d-reject");
    li.classList.add("decided", "d-" + decision.action);
    boxesOf(li).forEach((b) => b.classList.add("decided"));
    if (!was && progress) {
      const done = Number(progress.dataset.reviewed) + 1;
      progress.dataset.reviewed = String(done);
      progress.textContent = done + " of " + progress.dataset.total + " reviewed";
    }
  }

  async function decide(li, body) {
    setStatus(li, "Saving…", false);
    try {
      const response = await fetch(api + "/fields/" + encodeURIComponent(li.dataset.path), {
        method: "PATCH",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(body),
      });
      const payload = await response.json();
      if (!response.ok) {
        setStatus(li, payload.detail || "Not saved (" + response.status + ")", true);
        return false;
      }
      showDecision(li, payload);
      setStatus(li, "Saved", false);
      return true;
    } catch (err) {
      setStatus(li, "Not saved: " + err, true);
      return false;
    }
  }

  function editor(li) {
    return li.querySelector("form.editor");
  }

  function openEditor(li) {
    const form = editor(li);
    form.hidden = false;
    const input = form.elements.namedItem("value");
    input.focus();
    if (input.select) input.select();
  }

  function closeEditor(li) {
    editor(li).hidden = true;
    li.focus({ preventScroll: true });
  }

  function editedValue(li) {
    const kind = li.dataset.kind;
    const raw = editor(li).elements.namedItem("value").value.trim();
    if (NUMBERS.has(kind)) {
      if (raw === "" || !Number.isFinite(Number(raw))) throw new Error("enter a number");
      return Number(raw);
    }
    if (kind === "boolean") return raw === "true";
    if (kind === "address" || kind === "duration") {
      try {
        return JSON.parse(raw);
      } catch (err) {
        throw new Error("enter a JSON object");
      }
    }
    return raw;
  }

  async function saveEdit(li) {
    let value;
    try {
      value = editedValue(li);
    } catch (err) {
      setStatus(li, err.message, true);
      return;
    }
    const note = editor(li).elements.namedItem("note").value;
    if (await decide(li, { action: "edit", value: value, note: note })) closeEditor(li);
  }

  function act(li, action) {
    if (action === "edit") openEditor(li);
    else if (action === "cancel") closeEditor(li);
    else decide(li, { action: action });
  }

  fields.forEach((li, index) => {
    li.tabIndex = -1;
    li.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-act]");
      if (current !== index) select(index, true);
      if (button) act(li, button.dataset.act);
    });
    editor(li).addEventListener("submit", (event) => {
      event.preventDefault();
      saveEdit(li);
    });
    editor(li).addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        closeEditor(li);
      }
    });
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target.closest("input, select, textarea")) return; // typing, not a shortcut
    if (target.tagName === "BUTTON" && (event.key === "Enter" || event.key === " ")) return;
    const li = fields[current];
    switch (event.key) {
      case "j":
      case "ArrowDown":
        select(current + 1, true);
        break;
      case "k":
      case "ArrowUp":
        select(Math.max(current - 1, 0), true);
        break;
      case "c":
        if (li) decide(li, { action: "confirm" });
        break;
      case "r":
        if (li) decide(li, { action: "reject" });
        break;
      case "e":
        if (li) openEditor(li);
        break;
      default:
        return;
    }
    event.preventDefault();
  });

  if (fields.length) select(0, false);
})();
