// What JavaScript adds to the course's pages; the text, code and PNG figures need none of it.
"use strict";

// Draw each stored plotly figure interactively. Its PNG stays until the chart has drawn, so a
// failure leaves the picture in place.
function drawFigures() {
  if (!window.Plotly) return;
  for (const figure of document.querySelectorAll("figure.plotly-figure")) {
    const spec = JSON.parse(figure.querySelector("script").textContent);
    const chart = document.createElement("div");
    figure.prepend(chart);
    // The chart keeps its own light background in both themes, like the PNG and token views.
    Plotly.newPlot(chart, spec.data, { ...spec.layout, autosize: true }, { responsive: true, displaylogo: false }).then(() => {
      figure.querySelector("img")?.remove();
      figure.classList.add("drawn");
    });
  }
}

// The search page: every section whose heading or text holds all the words asked for.
function search() {
  const results = document.getElementById("search-results");
  if (!results || !window.COURSE_SEARCH) return;
  const query = new URLSearchParams(window.location.search).get("q") || "";
  document.querySelector(".search input").value = query;
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return;
  const found = window.COURSE_SEARCH.filter((entry) => {
    const text = (entry.section + " " + entry.text).toLowerCase();
    return words.every((word) => text.includes(word));
  });
  // Best first: the words in the heading, then the words as one phrase, then how often they occur.
  const phrase = words.join(" ");
  const score = (entry) => {
    const text = entry.text.toLowerCase();
    const inHeading = words.filter((w) => entry.section.toLowerCase().includes(w)).length;
    const often = (part) => Math.min(9, text.split(part).length - 1);
    return 100 * inHeading + 10 * often(phrase) + often(words[0]);
  };
  found.sort((a, b) => score(b) - score(a));
  document.getElementById("search-summary").textContent =
    `${found.length} section${found.length === 1 ? "" : "s"} mention “${query}”.`;
  for (const entry of found.slice(0, 50)) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = entry.url;
    link.textContent = entry.section === entry.page ? entry.page : `${entry.page} › ${entry.section}`;
    const text = entry.text.toLowerCase();
    const at = text.includes(phrase) ? text.indexOf(phrase) : text.indexOf(words[0]);
    const excerpt = document.createElement("p");
    excerpt.textContent = at < 0 ? entry.text.slice(0, 160) : "…" + entry.text.slice(Math.max(0, at - 60), at + 100) + "…";
    item.append(link, excerpt);
    results.append(item);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  drawFigures();
  search();
});
