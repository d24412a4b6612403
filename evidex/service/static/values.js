// How a field's value is written for a person, on the review page and on the upload page alike
// (both load this file before their own script). No dependencies; one global, evidexValues.
(function () {
  "use strict";

  function show(value) {
    if (value === null || value === undefined) return "—";
    if (typeof value === "boolean") return value ? "true" : "false";
    if (typeof value === "object") {
      if ("iso" in value) return value.original && value.original !== value.iso
        ? value.iso + " (" + value.original + ")" : value.iso;
      if ("currency" in value && "value" in value)
        return (value.value + " " + (value.currency || "")).trim();
      if ("unit" in value && "amount" in value) return value.amount + " " + value.unit;
      if ("street" in value && "city" in value)
        return Object.values(value).filter((v) => v !== null && v !== "").join(", ");
      return JSON.stringify(value);
    }
    return String(value);
  }

  window.evidexValues = Object.freeze({ show: show });
})();
