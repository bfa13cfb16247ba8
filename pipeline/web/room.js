// Monologue's room page: one RTCPeerConnection to the server, the mic in, the agent's voice
// out, and the conversation and the panel fed by typed messages on the data channel (see
// pipeline/panel.py). Every word shown comes from the server already in the user's language;
// the page's own few words are in STRINGS.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const els = {
    form: $("join"), name: $("name"), noHistory: $("no-history"), connect: $("connect"), disconnect: $("disconnect"),
    level: $("level"), status: $("status"), activity: $("activity"), transcript: $("transcript"), session: $("session"),
    hint: $("hint"), goal: $("goal"), version: $("version"), conditions: $("conditions"),
    questions: $("questions"), diff: $("diff"), memories: $("memories"), remembered: $("remembered"),
    audio: $("agent-audio"),
  };

  const STRINGS = {
    en: {
      tagline: "a voice agent that shows what it is thinking", your_name: "Your name",
      off_record: "Don't remember this conversation", connect: "Connect", disconnect: "Disconnect", mic: "Mic",
      conversation: "Conversation", state: "What the agent keeps", version: "version", goal: "Goal",
      conditions: "What you asked for", what: "What", value: "Value", status: "Status", nothing_yet: "nothing yet",
      questions: "Still to ask", changes: "What changed this turn", memories: "Remembered from before, for this reply",
      remembered: "Remembered about you", none: "none", ask_remember: "ask \u201cwhat do you remember about me?\u201d",
      hint: "Type your name, press Connect and allow the microphone. Then ask to book a table, change your mind, "
        + "or talk over the agent. On the right: what it has understood and will keep.",
      listening: "Listening", hearing: "Hearing you", thinking: "Thinking", speaking: "Speaking",
      you: "you", agent: "agent", session: "session", off_the_record: "off the record", new_session: "new session",
      spoke_over: "\u2702 you spoke over it: the rest was not said", went_on: "(not said: you went on)",
      spoke_first: "(not said: you spoke first)",
      not_understood: "(not understood)", backchannel: "you said this over the agent; it went on",
      no_reply: "(no reply: {error})", answered_in: "answered {secs} after you stopped",
      no_change_chat: "nothing to change: small talk", no_change: "nothing changed", update_failed: "not updated: {error}",
      kept_from: "kept from what you said: \u201c{text}\u201d", household: "household", local_only: "only on this device",
      shareable: "shareable",
      not_connected: "Not connected", asking_mic: "Asking for the microphone…", connecting: "Connecting…",
      connected: "Connected — speak", failed: "Connection failed", disconnected: "Disconnected",
      disconnecting: "Disconnecting…", closing: "Closing", could_not_connect: "Could not connect",
    },
    zh: {
      tagline: "一个会展示自己在想什么的语音助手", your_name: "你的名字", off_record: "不要记住这次对话",
      connect: "连接", disconnect: "断开", mic: "麦克风", conversation: "对话", state: "助手记下的内容",
      version: "版本", goal: "目标", conditions: "你的要求", what: "项目", value: "内容", status: "状态",
      nothing_yet: "还没有", questions: "还要问的", changes: "这一轮的变化", memories: "这次回答用到的以前的记忆",
      remembered: "关于你的记忆", none: "无", ask_remember: "问一问“你记得我什么？”",
      hint: "输入名字，点“连接”，允许使用麦克风。然后说要订位、改主意，或者打断助手。右边是它听懂并会记下的内容。",
      listening: "在听", hearing: "正在听你说", thinking: "在想", speaking: "在说",
      you: "你", agent: "助手", session: "会话", off_the_record: "不记录", new_session: "新会话",
      spoke_over: "✂ 你打断了它：后面的没有说", went_on: "（没有说：你接着说了）", spoke_first: "（没有说：你先开口了）",
      not_understood: "（没听懂）",
      backchannel: "你在助手说话时说的，它接着说了", no_reply: "（没有回答：{error}）",
      answered_in: "你说完后 {secs} 开始回答", no_change_chat: "闲聊，没有要改的", no_change: "没有变化",
      update_failed: "没有更新：{error}", kept_from: "来自你说过的：“{text}”", household: "家庭共享",
      local_only: "只在本机", shareable: "可共享",
      not_connected: "未连接", asking_mic: "正在请求麦克风…", connecting: "正在连接…", connected: "已连接，请说话",
      failed: "连接失败", disconnected: "已断开", disconnecting: "正在断开…", closing: "正在关闭",
      could_not_connect: "无法连接",
    },
  };
  let language = "en";
  const t = (key, values) => {
    let text = (STRINGS[language] || STRINGS.en)[key] || STRINGS.en[key] || key;
    for (const [name, value] of Object.entries(values || {})) text = text.replace("{" + name + "}", value);
    return text;
  };

  let pc = null;
  let channel = null;
  let mic = null;
  let audioContext = null;
  let meterTimer = null;
  let closing = "";        // why the server ended the room, kept for the status line
  let connected = false;
  let pinned = true;       // the conversation follows the newest line unless the user scrolled up

  // The conversation of the current session. The user's words: one line per turn, live while
  // spoken (`open`, oldest first), final once its turn stands. The agent's: one line per turn.
  let open = [];
  const agentLines = new Map();
  let speakingTurn = null;  // the agent's voice is playing this turn's reply
  let awaiting = null;      // the turn the agent is working on and has not begun to say

  // The connection's state, in the page's words: `key` into STRINGS, with `detail` after it.
  let status = ["not_connected", "", "idle"];
  function setStatus(key, kind, detail) {
    status = [key, detail || "", kind];
    els.status.textContent = t(key) + (detail ? ": " + detail : "");
    els.status.className = "status " + kind;
  }

  // --- what the agent is doing now ------------------------------------------------------

  function showActivity() {
    let state = "idle";
    if (connected) {
      state = open.length ? "hearing" : speakingTurn !== null ? "speaking" : awaiting !== null ? "thinking" : "listening";
    }
    els.activity.dataset.state = state;
    els.activity.querySelector(".what").textContent = state === "idle" ? "" : t(state);
  }

  // --- the conversation ------------------------------------------------------------------

  function sessionLines() {
    const lines = [...els.transcript.children];
    let from = 0;
    lines.forEach((li, i) => { if (li.classList.contains("session-break")) from = i + 1; });
    return lines.slice(from);
  }

  // A line's place: the user's turn N, then the agent's answer to it, then turn N+1; lines
  // still being spoken come last, in the order they began.
  function order(li) {
    if (li.classList.contains("live")) return Infinity;
    return Number(li.dataset.turn) * 2 + (li.classList.contains("agent") ? 1 : 0);
  }

  function place(li) {
    const key = order(li);
    const later = sessionLines().find((other) => other !== li && order(other) > key);
    if (later) els.transcript.insertBefore(li, later);
    else if (li.parentNode !== els.transcript || li.nextSibling) els.transcript.appendChild(li);
    follow();
  }

  // Keep the newest words in view once they are filled in (not before: a line scrolled to
  // while empty would be cut off when its words arrive).
  function follow() {
    if (pinned) els.transcript.scrollTop = els.transcript.scrollHeight;
  }
  window.addEventListener("resize", follow);
  els.transcript.addEventListener("scroll", () => {
    const list = els.transcript;
    pinned = list.scrollTop + list.clientHeight >= list.scrollHeight - 24;
  });

  function newLine(kind) {
    const li = document.createElement("li");
    li.className = kind;
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = kind === "user" ? (els.name.value.trim() || t("you")) : t("agent");
    const said = document.createElement("span");
    said.className = "text";
    li.append(who, said);
    els.hint.hidden = true;
    return li;
  }

  function note(li, text) {
    let small = li.querySelector(".note");
    if (!small) {
      small = document.createElement("span");
      small.className = "note";
      li.querySelector(".text").after(small);
    }
    small.textContent = text;
  }

  function agentLine(turn) {
    let li = agentLines.get(turn);
    if (!li) {
      li = newLine("agent");
      li.dataset.turn = turn;
      agentLines.set(turn, li);
      place(li);
    }
    return li;
  }

  function userSpeaking() {
    const li = newLine("user");
    li.classList.add("live");
    open.push(li);
    place(li);
  }

  // What a reply's cut means, told as it happened: the user spoke over it, or went on before
  // its voice began (the agent was late, not interrupted).
  function showCut(li, how, unsaid) {
    if (!how || li.classList.contains("cut")) return;
    const text = li.querySelector(".text");
    if (unsaid) {
      const never = document.createElement("del");
      never.className = "unspoken";
      never.textContent = (text.textContent ? " " : "") + unsaid;
      text.appendChild(never);
    }
    li.classList.add("cut");
    li.classList.toggle("went-on", how === "went_on");
    note(li, how !== "went_on" ? t("spoke_over") : li.dataset.turn === "0" ? t("spoke_first") : t("went_on"));
  }

  function secs(ms) {
    return ms >= 1000 ? (ms / 1000).toFixed(2) + " s" : Math.round(ms) + " ms";
  }

  // The answer's voice-to-voice time, and a small bar of what it was spent on.
  function showTiming(li, latency) {
    if (!latency || latency.total_ms === null || latency.total_ms === undefined || li.querySelector(".timing")
        || li.classList.contains("went-on")) return;
    const box = document.createElement("div");
    box.className = "timing";
    const head = document.createElement("div");
    const total = document.createElement("b");
    total.textContent = secs(latency.total_ms);
    const [before, after] = t("answered_in").split("{secs}");
    head.append(before, total, after || "");
    const bar = document.createElement("div");
    bar.className = "bar";
    const parts = document.createElement("div");
    parts.className = "parts";
    for (const stage of latency.stages) {
      const piece = document.createElement("span");
      const swatch = document.createElement("i");
      swatch.style.background = stage.colour;
      piece.append(swatch, stage.label + " " + stage.took);
      parts.appendChild(piece);
      if (stage.parallel) continue;       // ran beside the others: in the words, not the bar
      const width = Math.max(0, stage.end_ms - stage.start_ms) / latency.total_ms * 100;
      const slice = document.createElement("i");
      slice.style.width = Math.min(width, 100) + "%";
      slice.style.background = stage.colour;
      slice.title = stage.label + ": " + stage.took;
      bar.appendChild(slice);
    }
    for (const text of latency.notes || []) {
      const piece = document.createElement("span");
      piece.textContent = text;
      parts.appendChild(piece);
    }
    box.append(head, bar, parts);
    li.appendChild(box);
    follow();
  }

  // --- the panel ---------------------------------------------------------------------------

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

  // A memory by what it means; the words it was kept from are a hover away.
  function memoryItem(item) {
    const li = document.createElement("li");
    li.textContent = item.meaning || item.text;
    if (item.text && item.meaning && item.meaning !== item.text) li.title = t("kept_from", { text: item.text });
    for (const tag of [item.scope === "household" ? "household" : "", item.tier === "local_only" ? "local_only"
                       : item.tier === "shareable" ? "shareable" : ""]) {
      if (!tag) continue;
      const badge = document.createElement("span");
      badge.className = "badge";
      badge.textContent = t(tag);
      li.appendChild(badge);
    }
    return li;
  }

  function translate() {
    document.documentElement.lang = language;
    for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
    setStatus(status[0], status[2], status[1]);
    showActivity();
  }

  // --- panel messages ------------------------------------------------------------------

  const handlers = {
    session(m) {
      // A new session (a reconnect in the same page): its turns start from 1 again.
      language = STRINGS[m.language] ? m.language : "en";
      translate();
      agentLines.clear();
      open = [];
      speakingTurn = null;
      awaiting = m.opening ? 0 : null;     // the opening line is on its way
      if (els.transcript.children.length) {
        const rule = document.createElement("li");
        rule.className = "session-break";
        rule.textContent = t("new_session") + " " + m.session_id;
        els.transcript.appendChild(rule);
      }
      els.session.textContent = "· " + t("session") + " " + m.session_id
        + (m.no_history ? " · " + t("off_the_record") : "");
      showActivity();
    },
    user_speaking() {
      userSpeaking();
      showActivity();
    },
    user_partial(m) {
      if (!open.length) userSpeaking();
      open[open.length - 1].querySelector(".text").textContent = m.text;
      follow();
    },
    user_transcript(m) {
      // The turn's words: the line that was live becomes this turn's line (never a second one).
      let li = sessionLines().find((u) => u.classList.contains("user") && !u.classList.contains("live")
                                         && Number(u.dataset.turn) === m.turn);
      if (!li) li = open.shift() || newLine("user");
      if (!m.text && !m.error) {           // a noise: nothing was said
        li.remove();
        showActivity();
        return;
      }
      li.classList.remove("live");
      li.dataset.turn = m.turn;
      li.querySelector(".text").textContent = m.text || t("not_understood");
      if (m.backchannel) {
        li.classList.add("backchannel");
        note(li, t("backchannel"));
      } else if (m.text) {
        awaiting = m.turn;
      }
      place(li);
      showActivity();
    },
    state(m) {
      els.goal.textContent = m.goal || "—";
      els.goal.classList.toggle("muted", !m.goal);
      els.version.textContent = m.version;
      fill(els.conditions, m.conditions, (c) => {
        const tr = document.createElement("tr");
        tr.className = c.status + (c.confirmed ? " confirmed" : "") + (m.diff && c.slot in m.diff ? " changed" : "");
        for (const [cls, text] of [["key", c.label || c.key], ["value", c.shown], ["status", c.status_words]]) {
          const td = document.createElement("td");
          td.className = cls;
          td.textContent = text;
          if (cls === "value" && c.words) td.title = "\u201c" + c.words + "\u201d";
          tr.appendChild(td);
        }
        return tr;
      }, t("nothing_yet"));
      fill(els.questions, m.questions, (q) => {
        const li = document.createElement("li");
        li.textContent = q;
        return li;
      }, t("none"));
      fill(els.diff, m.changes || [], (change) => {
        const li = document.createElement("li");
        li.className = change.kind;
        li.textContent = change.text;
        if (change.why) li.title = change.why;
        return li;
      }, m.error ? t("update_failed", { error: m.error }) : m.skipped === "chit-chat" ? t("no_change_chat")
         : t("no_change"));
    },
    agent_voice(m) {
      // The agent's words as they are heard: shown word by word, in step with its voice.
      const li = m.said || !m.final ? agentLine(m.turn) : agentLines.get(m.turn) || (m.cut ? agentLine(m.turn) : null);
      if (awaiting !== null && m.turn >= awaiting) awaiting = null;
      if (li) {
        const text = li.querySelector(".text");
        if (!li.classList.contains("cut")) text.textContent = m.said;
        li.classList.toggle("speaking", !m.final);
        if (m.final) showCut(li, m.cut, m.unsaid);
        if (m.latency) showTiming(li, m.latency);
        if (m.final && !m.said && !m.cut) { li.remove(); agentLines.delete(m.turn); }
        follow();
      }
      if (!m.final) speakingTurn = m.turn;
      else if (speakingTurn === m.turn) speakingTurn = null;
      showActivity();
    },
    agent_reply(m) {
      if (awaiting !== null && m.turn >= awaiting) awaiting = null;
      let li = agentLines.get(m.turn);
      if (!li && (m.text || m.error) && !m.barge_in.backchannel) {
        li = agentLine(m.turn);        // no voice told it (a reply with no audio)
        li.querySelector(".text").textContent = m.text || t("no_reply", { error: m.error });
      }
      if (li) {
        li.classList.remove("speaking");
        if (m.cut && m.how_cut) showCut(li, m.how_cut, m.barge_in.unspoken || "");
        showTiming(li, m.latency);
      }
      const items = (m.memory_items || []).slice();
      const shown = new Set(items.map((item) => item.text));
      for (const text of m.memories || []) if (!shown.has(text)) items.push({ text: text, meaning: text });   // reflections
      fill(els.memories, items, memoryItem, t("none"));
      if (m.listed && m.listed.length) fill(els.remembered, m.listed, memoryItem, t("nothing_yet"));
      showActivity();
    },
    room_closing(m) {
      closing = m.reason;
      setStatus("closing", "idle", m.reason);
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
    setStatus("asking_mic", "busy");
    try {
      mic = await navigator.mediaDevices.getUserMedia({
        audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
      });
      startMeter(mic);
      pc = new RTCPeerConnection();
      channel = pc.createDataChannel("monologue", { ordered: true });
      channel.onmessage = onMessage;
      // No "ping" keep-alive: pipecat would then judge the peer gone after 3 s without one,
      // which a busy server can miss; a closed page is seen through the connection's state.
      pc.addTransceiver(mic.getAudioTracks()[0], { direction: "sendrecv" });
      pc.ontrack = (e) => { els.audio.srcObject = e.streams[0] || new MediaStream([e.track]); };
      pc.onconnectionstatechange = () => {
        const state = pc ? pc.connectionState : "closed";
        if (state === "connected") {
          connected = true;
          setStatus("connected", "live");
          showActivity();
        } else if (state === "failed") { setStatus("failed", "error"); hangUp(); }
        else if (state === "disconnected" || state === "closed") {
          setStatus("disconnected", "idle", closing);
          hangUp();
        }
      };
      await pc.setLocalDescription(await pc.createOffer());
      setStatus("connecting", "busy");
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
      setStatus("could_not_connect", "error", error.message);
      hangUp();
    }
  }

  function hangUp() {
    clearInterval(meterTimer);
    meterTimer = null;
    if (pc) { const peer = pc; pc = null; peer.close(); }
    channel = null;
    if (mic) { mic.getTracks().forEach((track) => track.stop()); mic = null; }
    if (audioContext) { audioContext.close(); audioContext = null; }
    els.level.value = 0;
    els.connect.disabled = false;
    els.name.disabled = false;
    els.disconnect.disabled = true;
    connected = false;
    for (const li of open) if (!li.querySelector(".text").textContent) li.remove();
    open = [];
    speakingTurn = null;
    awaiting = null;
    for (const li of els.transcript.querySelectorAll("li.speaking")) li.classList.remove("speaking");
    showActivity();
  }

  // Say goodbye, then let the server close the connection (it stops the room first, so the
  // microphone's track is not read after the peer has gone); close it here if it does not.
  function leave() {
    els.disconnect.disabled = true;
    if (channel && channel.readyState === "open") {
      channel.send(JSON.stringify({ type: "bye" }));
      setStatus("disconnecting", "busy");
      const peer = pc;
      setTimeout(() => { if (pc === peer && pc) { hangUp(); setStatus("disconnected", "idle"); } }, 3000);
      return;
    }
    hangUp();
    setStatus("disconnected", "idle");
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
  els.disconnect.addEventListener("click", leave);
  window.addEventListener("pagehide", () => {
    if (channel && channel.readyState === "open") channel.send(JSON.stringify({ type: "bye" }));
    hangUp();
  });
})();
