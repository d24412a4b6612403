// The upload page: explain a pasted schema, submit, poll the job, show its fields, link to the
// review page. Needs values.js, loaded first; requests go to this origin only (the CSP allows
// nothing else). The API key lives in this tab's sessionStorage and travels only as the bearer
// header.
(function () {
  "use strict";

  const show = window.evidexValues.show; // values.js
  const KEY_STORE = "evidex.api_key";
  const REVIEW_LINK_S = 24 * 3600;
  const FIRST_POLL_MS = 400;
  const LAST_POLL_MS = 2000;

  const form = document.getElementById("upload");
  const controls = document.getElementById("controls");
  const key = form.elements.namedItem("api_key");
  const file = form.elements.namedItem("file");
  const schema = form.elements.namedItem("schema");
  const schemaJson = form.elements.namedItem("schema_json");
  const fromJson = document.getElementById("source_json");
  const fromBuiltin = document.getElementById("source_builtin");
  const kinds = document.getElementById("kinds");
  const problem = document.getElementById("problem");
  const progress = document.getElementById("progress");
  const progressText = document.getElementById("progress_text");
  const result = document.getElementById("result");
  const maxBytes = Number(form.dataset.maxBytes);
  const v1 = form.dataset.root + "/v1";
  let explained = null; // the schema text the kinds table shows

  // A problem as the API words it (RFC 9457): its title and detail.
  class Problem extends Error {
    constructor(title, detail, status) {
      super(detail);
      this.title = title;
      this.detail = detail;
      this.status = status || 0;
    }
  }

  function storage() {
    try {
      return window.sessionStorage;
    } catch (err) {
      return null; // storage disabled: the key is then kept in the field only
    }
  }

  function showProblem(title, detail) {
    problem.querySelector(".p-title").textContent = title;
    problem.querySelector(".p-detail").textContent = detail;
    problem.hidden = false;
    problem.focus();
  }

  function clearProblem() {
    problem.hidden = true;
  }

  async function problemOf(response) {
    let body = null;
    try {
      body = await response.json();
    } catch (err) {
      body = null;
    }
    if (body && typeof body === "object" && body.title) {
      return new Problem(body.title, body.detail || "", response.status);
    }
    return new Problem("The request failed", "The service answered " + response.status + ".",
      response.status);
  }

  async function call(path, init) {
    const headers = Object.assign({ Authorization: "Bearer " + key.value.trim() },
      (init && init.headers) || {});
    let response;
    try {
      response = await fetch(path, Object.assign({ cache: "no-store" }, init, { headers }));
    } catch (err) {
      throw new Problem("The service cannot be reached", String(err.message || err));
    }
    if (response.status === 401) {
      const store = storage();
      if (store) store.removeItem(KEY_STORE);
    }
    return response;
  }

  function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  // --- the pasted schema ---------------------------------------------------------------------

  function parsedSchema() {
    const text = schemaJson.value.trim();
    if (!text) {
      throw new Problem("The schema cannot be used",
        "Paste a JSON Schema, or choose a built-in schema.");
    }
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new Problem("The schema cannot be used",
        "schema_json is not valid JSON: " + err.message);
    }
  }

  function cell(row, text, className) {
    const td = document.createElement("td");
    td.textContent = text;
    if (className) td.className = className;
    row.appendChild(td);
    return td;
  }

  function showKinds(explanation) {
    const body = kinds.querySelector("tbody");
    body.replaceChildren();
    for (const leaf of explanation.leaves) {
      const row = document.createElement("tr");
      row.dataset.field = leaf.path;
      cell(row, leaf.path, "path");
      cell(row, leaf.kind, "kind");
      cell(row, leaf.kind_source);
      cell(row, leaf.type || "");
      body.appendChild(row);
    }
    const rules = kinds.querySelector(".rules");
    rules.replaceChildren();
    for (const rule of explanation.rules) {
      const li = document.createElement("li");
      li.textContent = "Rule: " + rule;
      rules.appendChild(li);
    }
    kinds.hidden = false;
  }

  // How the API will read the pasted schema; a Problem when it would refuse it.
  async function explain() {
    requireKey();
    const text = schemaJson.value;
    const parsed = parsedSchema();
    const response = await call(v1 + "/schemas/explain", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(parsed),
    });
    if (!response.ok) throw await problemOf(response);
    showKinds(await response.json());
    explained = text;
  }

  // --- the form ------------------------------------------------------------------------------

  function requireKey() {
    if (!key.value.trim()) {
      key.focus();
      throw new Problem("A valid API key is required",
        "Enter the API key your administrator gave you.");
    }
  }

  function checked() {
    requireKey();
    const chosen = file.files && file.files[0];
    if (!chosen) {
      file.focus();
      throw new Problem("A document is required", "Choose the PDF or image to read.");
    }
    if (chosen.size > maxBytes) {
      file.focus();
      throw new Problem(form.dataset.tooLarge,
        chosen.name + " is " + chosen.size + " bytes; the limit is " + maxBytes + " bytes");
    }
    return chosen;
  }

  function options() {
    const chosen = {};
    const llm = form.elements.namedItem("llm").value;
    const pages = form.elements.namedItem("pages").value.trim();
    if (llm) chosen.llm = llm;
    if (pages) chosen.pages = pages;
    return chosen;
  }

  function setBusy(busy, text) {
    controls.disabled = busy;
    form.setAttribute("aria-busy", busy ? "true" : "false");
    progress.hidden = !busy;
    if (text) progressText.textContent = text;
  }

  async function submitJob(document_) {
    const body = new FormData();
    body.append("file", document_, document_.name);
    if (fromJson.checked) body.append("schema_json", schemaJson.value);
    else body.append("schema", schema.value);
    const chosen = options();
    if (Object.keys(chosen).length) body.append("options", JSON.stringify(chosen));
    const response = await call(v1 + "/jobs", {
      method: "POST",
      headers: { Accept: "application/json" },
      body,
    });
    if (!response.ok) throw await problemOf(response);
    return response.json();
  }

  async function finished(job) {
    const url = v1 + "/jobs/" + encodeURIComponent(job.id);
    const started = Date.now();
    let etag = null;
    let wait = FIRST_POLL_MS;
    for (;;) {
      const seconds = Math.round((Date.now() - started) / 1000);
      progressText.textContent = (job.status === "running" ? "Reading " : "Queued: ") +
        job.filename + " · " + seconds + " s";
      if (job.status === "succeeded" || job.status === "failed") return job;
      await sleep(wait);
      wait = Math.min(LAST_POLL_MS, wait * 1.5);
      const headers = { Accept: "application/json" };
      if (etag) headers["If-None-Match"] = etag;
      const response = await call(url, { headers });
      if (response.status === 304) continue;
      if (response.status === 429) {
        await sleep(1000 * Number(response.headers.get("Retry-After") || 1));
        continue;
      }
      if (!response.ok) throw await problemOf(response);
      etag = response.headers.get("ETag");
      job = await response.json();
    }
  }

  // --- the result ----------------------------------------------------------------------------

  function where(field) {
    if (field.page === null || field.page === undefined) return "—";
    if (field.line_start === null || field.line_start === undefined) return String(field.page);
    const end = field.line_end === null || field.line_end === undefined
      ? field.line_start : field.line_end;
    return field.page + ":" + field.line_start + (end !== field.line_start ? "–" + end : "");
  }

  function showResult(outcome) {
    const body = result.querySelector("#fields tbody");
    body.replaceChildren();
    for (const [path, field] of Object.entries(outcome.fields)) {
      const row = document.createElement("tr");
      row.dataset.field = path;
      row.dataset.status = field.status;
      row.className = "s-" + field.status;
      cell(row, path, "path");
      cell(row, show(field.value), "value");
      const badge = document.createElement("span");
      badge.className = "badge s-" + field.status;
      badge.textContent = field.status.replace("_", " ");
      cell(row, "", "status").appendChild(badge);
      cell(row, where(field), "where");
      cell(row, field.reasons.length ? field.reasons.join(" ") : field.caveat || "", "reason");
      body.appendChild(row);
    }
    const counts = outcome.summary || {};
    result.querySelector(".summary").textContent = outcome.document.filename + " · " +
      outcome.schema + " · " +
      ["verified", "needs_review", "unsupported", "not_found"]
        .map((s) => (counts[s] || 0) + " " + s.replace("_", " ")).join(" · ");
    result.querySelector(".review").replaceChildren();
    result.hidden = false;
  }

  async function linkToReview(job) {
    const paragraph = result.querySelector(".review");
    paragraph.textContent = "Making a link to the review page…";
    try {
      const response = await call(v1 + "/jobs/" + encodeURIComponent(job.id) + "/review-links", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ reviewer: "upload page", expires_in: REVIEW_LINK_S }),
      });
      if (!response.ok) throw await problemOf(response);
      const link = await response.json();
      const a = document.createElement("a");
      a.id = "review_link";
      a.href = link.url;
      a.target = "_blank";
      a.rel = "noopener noreferrer";
      a.textContent = "Open the review page";
      paragraph.replaceChildren(a, " — the document with each field's evidence; the link " +
        "works without a key for 24 hours.");
    } catch (err) {
      const title = err instanceof Problem ? err.title : "No link";
      paragraph.textContent = "No link to the review page: " + title + ". " +
        (err.detail || String(err));
    }
  }

  async function send() {
    clearProblem();
    result.hidden = true;
    const chosen = checked();
    if (fromJson.checked && explained !== schemaJson.value) await explain();
    const store = storage();
    if (store) store.setItem(KEY_STORE, key.value.trim());
    setBusy(true, "Sending " + chosen.name + "…");
    try {
      const job = await finished(await submitJob(chosen));
      if (job.status === "failed") {
        const error = job.error || { code: "failed", message: "the job failed" };
        throw new Problem("The extraction failed", error.message + " (" + error.code + ")");
      }
      showResult(job.result);
      await linkToReview(job);
    } finally {
      setBusy(false);
    }
    result.querySelector("#result_title").focus();
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (controls.disabled) return;
    send().catch((err) => {
      if (err instanceof Problem) showProblem(err.title, err.detail);
      else showProblem("Something went wrong in the page", String(err));
    });
  });

  document.getElementById("explain").addEventListener("click", () => {
    clearProblem();
    explain().catch((err) => {
      kinds.hidden = true;
      if (err instanceof Problem) showProblem(err.title, err.detail);
      else showProblem("Something went wrong in the page", String(err));
    });
  });

  document.getElementById("forget").addEventListener("click", () => {
    const store = storage();
    if (store) store.removeItem(KEY_STORE);
    key.value = "";
    key.focus();
  });

  schemaJson.addEventListener("input", () => {
    fromJson.checked = true;
    if (explained !== null && explained !== schemaJson.value) kinds.hidden = true;
  });
  schemaJson.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  schema.addEventListener("change", () => {
    fromBuiltin.checked = true;
  });

  const stored = storage() && storage().getItem(KEY_STORE);
  if (stored && !key.value) key.value = stored;
})();
