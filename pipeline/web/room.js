// Monologue's room page: one RTCPeerConnection to the server, the mic in, the agent's voice
// out, and the panel fed by typed messages on the data channel (see pipeline/panel.py).
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const els = {
    form: $("join"), name: $("name"), noHistory: $("no-history"), connect: $("connect"), disconnect: $("disconnect"),
    level: $("level"), status: $("status"), transcript: $("transcript"), session: $("session"),
    hint: $("hint"), goal: $("goal"), version: $("version"), conditions: $("conditions"),
    questions: $("questions"), diff: $("diff"), memories: $("memories"), remembered: $("remembered"),
    audio: $("agent-audio"),
  };

  let pc = null;
  let mic = null;
  let audioContext = null;
  let meterTimer = null;
  let closing = "";        // why the server ended the room, kept for the status line
  let live = null;          // the user line being spoken (before its transcript is known)
  const agentLines = new Map();   // turn → its agent line
  const userLines = new Map();    // turn → its user line

  function setStatus(text, kind) {
    els.status.textContent = text;
    els.status.className = "status " + kind;
  }

  function fill(list, items, render, emptyText) {
    list.replaceChildren();
    if (!items.length) {
      const li = document.createElement(list.tagName === "TBODY" ? "tr" : "li");
      li.className = "empty";
      if (list.tagName === "TBODY") {
        const td = document.createElement("td");
        td.colSpan = 3;
        td.textContent = emptyText;
        li.appendChild(td);
      } else {
        li.textContent = emptyText;
      }
      list.appendChild(li);
      return;
    }
    for (const item of items) list.appendChild(render(item));
  }

  function show(value) {
    if (value === null || value === undefined) return "—";
    if (Array.isArray(value)) return value.map(show).join(", ");
    if (typeof value === "object") return JSON.stringify(value);
    return String(value);
  }

  function line(kind, text) {
    const li = document.createElement("li");
    li.className = kind;
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = kind === "user" ? (els.name.value.trim() || "you") : "agent";
    const said = document.createElement("span");
    said.className = "text";
    said.textContent = text;
    li.append(who, said);
    els.transcript.appendChild(li);
    li.scrollIntoView({ block: "end" });
    els.hint.hidden = true;
    return li;
  }

  // --- panel messages ------------------------------------------------------------------

  const handlers = {
    session(m) {
      // A new session (a reconnect in the same page): its turns start from 1 again.
      agentLines.clear();
      userLines.clear();
      live = null;
      if (els.transcript.children.length) {
        const rule = document.createElement("li");
        rule.className = "session-break";
        rule.textContent = "new session " + m.session_id;
        els.transcript.appendChild(rule);
      }
      els.session.textContent = "· session " + m.session_id + (m.no_history ? " · off the record" : "");
      if (m.opening) line("agent", m.opening);
    },
    user_speaking() {
      if (!live) {
        live = line("user", "…");
        live.classList.add("speaking");
      }
    },
    user_transcript(m) {
      // A turn heard again (a draft dropped because the user went on, then the whole turn) keeps
      // its one line: the bubble of the speech that went on is not a second one.
      const earlier = userLines.get(m.turn);
      if (earlier && live && live !== earlier) live.remove();
      const li = earlier || live || line("user", "");
      userLines.set(m.turn, li);
      live = null;
      li.classList.remove("speaking");
      li.dataset.turn = m.turn;
      li.querySelector(".text").textContent = m.text || "(nothing heard)";
    },
    state(m) {
      els.goal.textContent = m.goal || "—";
      els.goal.classList.toggle("muted", !m.goal);
      fill(els.conditions, m.conditions, (c) => {
        const tr = document.createElement("tr");
        tr.className = "status-" + c.status + (m.diff && c.slot in m.diff ? " changed" : "");
        const value = (c.comparator && c.comparator !== "=" ? c.comparator + " " : "") + show(c.value);
        for (const [cls, text] of [["key", c.key], ["value", value],
                                    ["status", c.status + (c.confirmed ? " ✓" : "")]]) {
          const td = document.createElement("td");
          td.className = cls;
          td.textContent = text;
          if (cls === "value" && c.words) td.title = "heard: “" + c.words + "”";
          tr.appendChild(td);
        }
        return tr;
      }, "nothing yet");
      fill(els.questions, m.questions, (q) => {
        const li = document.createElement("li");
        li.textContent = q;
        return li;
      }, "none");
      const ops = m.operations || [];
      fill(els.diff, ops, (op) => {
        const li = document.createElement("li");
        li.className = "op " + (op.rejected ? "rejected" : op.op);
        const head = document.createElement("span");
        head.className = "what";
        const target = [op.key, op.comparator && op.comparator !== "=" ? op.comparator : "", show(op.value)]
          .filter((x) => x && x !== "—").join(" ");
        head.textContent = op.op + (target ? " " + target : "");
        li.appendChild(head);
        const why = [op.words ? "heard “" + op.words + "”" : "", op.reason, op.source ? "by " + op.source : ""]
          .filter(Boolean).join(" · ");
        if (why) {
          const small = document.createElement("span");
          small.className = "why";
          small.textContent = (op.rejected ? "refused: " : "") + why;
          li.appendChild(small);
        }
        return li;
      }, m.skipped ? "no change (" + m.skipped + ")" : m.error ? "update failed: " + m.error : "no change");
    },
    agent_reply(m) {
      if (m.turn === 0) return;   // the opening line was shown with the session
      if (m.barge_in && m.barge_in.backchannel) {    // "mm-hm" over the agent: it went on, unanswered
        const mark = els.transcript.querySelectorAll("li.session-break");
        const from = mark.length ? mark[mark.length - 1] : null;
        let own = [...els.transcript.querySelectorAll("li.user")].find((u) => Number(u.dataset.turn) === m.turn
          && (!from || (from.compareDocumentPosition(u) & Node.DOCUMENT_POSITION_FOLLOWING)));
        if (!own && live) {          // no transcript message came for it: its words are here
          own = live;
          live = null;
          own.classList.remove("speaking");
          own.dataset.turn = m.turn;
          own.querySelector(".text").textContent = m.user_text || "…";
        }
        if (own) {
          own.classList.add("backchannel");
          own.title = "a backchannel: the agent paused, then went on";
        }
      }
      const cut = m.cut && m.barge_in ? m.barge_in : null;
      if (m.text || cut) {
        let li = agentLines.get(m.turn);
        if (!li) {
          li = line("agent", "");
          // A reply is shown after its own turn, before what the user said over it.
          const breaks = els.transcript.querySelectorAll("li.session-break");
          const since = breaks.length ? breaks[breaks.length - 1] : null;    // only this session's lines
          const later = [...els.transcript.querySelectorAll("li.user")].find((u) => Number(u.dataset.turn) > m.turn
            && (!since || (since.compareDocumentPosition(u) & Node.DOCUMENT_POSITION_FOLLOWING)));
          if (later) els.transcript.insertBefore(li, later);
        }
        agentLines.set(m.turn, li);
        const text = li.querySelector(".text");
        text.textContent = cut ? (cut.spoken || "") : m.text;
        if (cut && cut.unspoken) {     // what was never said, struck through
          const never = document.createElement("del");
          never.className = "unspoken";
          never.title = "worded, never spoken: the user spoke over it";
          never.textContent = " " + cut.unspoken;
          text.appendChild(never);
        }
        li.classList.toggle("cut", !!m.cut);
        const v2v = m.latency_ms && m.latency_ms.voice_to_voice;
        if (v2v) li.title = "voice to voice " + Math.round(v2v) + " ms";
      }
      if (m.state_version !== null && m.state_version !== undefined) els.version.textContent = m.state_version;
      // A memory with its tier (U3) and whether it is the household's (U5); names are shown
      // restored: the page is the user's own view.
      const memoryItem = (item) => {
        const li = document.createElement("li");
        li.textContent = item.text;
        for (const tag of [item.scope === "household" ? "household" : "",
                           item.tier === "local_only" ? "local only" : item.tier === "shareable" ? "shareable" : ""]) {
          if (!tag) continue;
          const badge = document.createElement("span");
          badge.className = "badge";
          badge.textContent = tag;
          li.appendChild(badge);
        }
        return li;
      };
      const items = (m.memory_items || []).slice();
      const shown = new Set(items.map((item) => item.text));
      for (const text of m.memories || []) if (!shown.has(text)) items.push({ text: text });   // reflections
      fill(els.memories, items, memoryItem, "none");
      if (m.listed && m.listed.length) fill(els.remembered, m.listed, memoryItem, "nothing yet");
    },
    room_closing(m) {
      closing = m.reason;
      setStatus("Closing: " + m.reason, "idle");
    },
  };

  function onMessage(event) {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch (e) {
      return;   // pipecat's own signalling uses the channel too
    }
    const handle = message && handlers[message.type];
    if (handle) handle(message);
  }

  // --- mic level -------------------------------------------------------------------------

  function startMeter(stream) {
    audioContext = new AudioContext();
    const analyser = audioContext.createAnalyser();
    analyser.fftSize = 1024;
    audioContext.createMediaStreamSource(stream).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    meterTimer = setInterval(() => {
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const s of samples) sum += s * s;
      const rms = Math.sqrt(sum / samples.length);
      els.level.value = Math.min(1, rms * 4);
    }, 60);
  }

  // --- connection ------------------------------------------------------------------------

  function iceGathered(peer, timeoutMs) {
    if (peer.iceGatheringState === "complete") return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => { peer.removeEventListener("icegatheringstatechange", check); resolve(); };
      const check = () => { if (peer.iceGatheringState === "complete") done(); };
      peer.addEventListener("icegatheringstatechange", check);
      setTimeout(done, timeoutMs);
    });
  }

  async function connect(event) {
    event.preventDefault();
    const name = els.name.value.trim();
    if (!name) { els.name.focus(); return; }
    els.connect.disabled = true;
    els.name.disabled = true;
    closing = "";
    setStatus("Asking for the microphone…", "busy");
    try {
      mic = await navigator.mediaDevices.getUserMedia({
        audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
      });
      startMeter(mic);
      pc = new RTCPeerConnection();
      const channel = pc.createDataChannel("monologue", { ordered: true });
      channel.onmessage = onMessage;
      // No "ping" keep-alive: pipecat would then judge the peer gone after 3 s without one,
      // which a busy server can miss; a closed page is seen through the connection's state.
      pc.addTransceiver(mic.getAudioTracks()[0], { direction: "sendrecv" });
      pc.ontrack = (e) => { els.audio.srcObject = e.streams[0] || new MediaStream([e.track]); };
      pc.onconnectionstatechange = () => {
        const state = pc ? pc.connectionState : "closed";
        if (state === "connected") setStatus("Connected — speak", "live");
        else if (state === "failed") { setStatus("Connection failed", "error"); hangUp(); }
        else if (state === "disconnected" || state === "closed") {
          setStatus(closing ? "Disconnected: " + closing : "Disconnected", "idle");
          hangUp();
        }
      };
      await pc.setLocalDescription(await pc.createOffer());
      setStatus("Connecting…", "busy");
      await iceGathered(pc, 2000);
      const response = await fetch("/api/offer", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ sdp: pc.localDescription.sdp, type: pc.localDescription.type, user: name,
                               no_history: els.noHistory.checked }),
      });
      const answer = await response.json();
      if (!response.ok) throw new Error(answer.error || response.statusText);
      await pc.setRemoteDescription({ sdp: answer.sdp, type: answer.type });
      els.disconnect.disabled = false;
    } catch (error) {
      setStatus("Could not connect: " + error.message, "error");
      hangUp();
    }
  }

  function hangUp() {
    clearInterval(meterTimer);
    meterTimer = null;
    if (pc) { const peer = pc; pc = null; peer.close(); }
    if (mic) { mic.getTracks().forEach((t) => t.stop()); mic = null; }
    if (audioContext) { audioContext.close(); audioContext = null; }
    els.level.value = 0;
    els.connect.disabled = false;
    els.name.disabled = false;
    els.disconnect.disabled = true;
    live = null;
  }

  // On a server with credentials the page is signed in already (or it would have shown the
  // login): the name is the credential's, not one to type.
  async function whoAmI() {
    try {
      const response = await fetch("/api/me");
      const me = await response.json();
      if (response.ok && me.auth === "tokens" && me.user) {
        els.name.value = me.user;
        els.name.readOnly = true;
        els.name.title = "signed in as " + me.user;
      }
    } catch (error) { /* an older server: the name is typed */ }
  }
  whoAmI();

  els.form.addEventListener("submit", connect);
  els.disconnect.addEventListener("click", () => { hangUp(); setStatus("Disconnected", "idle"); });
  window.addEventListener("beforeunload", hangUp);
})();
