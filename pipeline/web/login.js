// Monologue's sign-in page: the token goes to /api/login once; the server keeps it in an
// HttpOnly cookie, so no script (this one included) reads it back.
"use strict";

(() => {
  const form = document.getElementById("login");
  const token = document.getElementById("token");
  const status = document.getElementById("status");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    status.textContent = "Checking…";
    status.className = "status busy";
    try {
      const response = await fetch("/api/login", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ token: token.value.trim() }),
      });
      const answer = await response.json();
      if (!response.ok) throw new Error(answer.error || response.statusText);
      token.value = "";
      window.location.replace("/");
    } catch (error) {
      status.textContent = "Not signed in: " + error.message;
      status.className = "status error";
    }
  });
})();
