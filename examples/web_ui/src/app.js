// The page's script: a chat on the AI SDK's own client (AbstractChat, what useChat wraps, with
// DefaultChatTransport posting to /api/chat), rendered without a framework. Built into
// ../static/app.js by `npm run build` (esbuild, pinned in package.json).
//
// The chat id lives in the URL (#chat=...), so a reload keeps the conversation: the server
// holds it and sends back the UI message stream parts it streamed, which readUIMessageStream
// turns into the same messages again.
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  readUIMessageStream,
} from "ai";

const form = document.getElementById("ask");
const prompt = document.getElementById("prompt");
const send = document.getElementById("send");
const list = document.getElementById("messages");
const status = document.getElementById("status");

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text; // never innerHTML: model output is untrusted
  return node;
}

// The chat's state, as a framework binding would keep it: every change re-renders the page.
class PageState {
  #status = "ready";
  #error = undefined;
  #messages;
  constructor(messages, changed) {
    this.#messages = messages;
    this.changed = changed;
  }
  get status() { return this.#status; }
  set status(value) { this.#status = value; this.changed(); }
  get error() { return this.#error; }
  set error(value) { this.#error = value; this.changed(); }
  get messages() { return this.#messages; }
  set messages(value) { this.#messages = value; this.changed(); }
  pushMessage(message) { this.messages = [...this.#messages, message]; }
  popMessage() { this.messages = this.#messages.slice(0, -1); }
  replaceMessage(index, message) {
    const messages = [...this.#messages];
    messages[index] = this.snapshot(message);
    this.messages = messages;
  }
  snapshot(value) { return structuredClone(value); }
}

class PageChat extends AbstractChat {
  constructor({ messages, changed, ...init }) {
    super({ ...init, state: new PageState(messages, changed) });
  }
}

function chatId() {
  const found = /^#chat=([A-Za-z0-9_-]{1,64})$/.exec(location.hash);
  if (found) return found[1];
  // getRandomValues, unlike randomUUID, also works on a plain-http address other than localhost.
  const id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
  history.replaceState(null, "", `#chat=${id}`);
  return id;
}

// The server's record of the chat, back into UI messages: each assistant message is the parts
// of the responses that wrote it (an answer to an approval continues the message, after the
// person's answers, applied as addToolApprovalResponse applies them).
function answer(message, answers) {
  const parts = message.parts.map((part) => {
    const given = part.state === "approval-requested" ? answers[part.toolCallId] : undefined;
    return given ? { ...part, state: "approval-responded", approval: given } : part;
  });
  return { ...message, parts };
}

async function restore(saved) {
  const messages = [];
  for (const entry of saved) {
    if (entry.role !== "assistant") {
      messages.push({ id: entry.id, role: entry.role, parts: entry.parts });
      continue;
    }
    let message;
    for (const { answers, parts } of entry.responses) {
      if (message) message = answer(message, answers);
      const stream = new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      });
      for await (const m of readUIMessageStream({ message, stream })) message = m;
    }
    if (message) messages.push(message);
  }
  return messages;
}

function toolInput(part) {
  // While streaming, `input` is the partial value parsed so far; a call whose arguments were not
  // accepted (output-error with no result) has the exact text the model sent.
  if (typeof part.input === "string") return part.input;
  if (part.input !== undefined) return JSON.stringify(part.input, null, 1);
  return "";
}

const reasons = new Map(); // approval id -> the reason typed so far (renders replace the input)

function renderApproval(chat, part) {
  const box = element("div", "approval");
  const reason = element("input", "reason");
  reason.placeholder = "Reason (optional)";
  reason.value = reasons.get(part.approval.id) ?? "";
  reason.addEventListener("input", () => reasons.set(part.approval.id, reason.value));
  const approve = element("button", "approve", "Approve");
  const deny = element("button", "deny", "Deny");
  approve.type = deny.type = "button";
  const answer = (approved) => {
    approve.disabled = deny.disabled = true;
    chat.addToolApprovalResponse({
      id: part.approval.id,
      approved,
      reason: reason.value.trim() || undefined,
    });
  };
  approve.addEventListener("click", () => answer(true));
  deny.addEventListener("click", () => answer(false));
  box.append(reason, approve, deny);
  return box;
}

function renderTool(chat, part) {
  const node = element("div", "tool");
  node.dataset.toolCallId = part.toolCallId;
  node.dataset.state = part.state;
  const name = part.type === "dynamic-tool" ? part.toolName : part.type.slice("tool-".length);
  const head = element("div", "tool-head");
  head.append(element("span", "tool-name", name), element("span", "tool-state", part.state));
  node.append(head, element("pre", "tool-input", toolInput(part)));
  if (part.state === "approval-requested") node.append(renderApproval(chat, part));
  if (part.state === "approval-responded") {
    const answer = part.approval.approved ? "Approved" : "Denied";
    node.append(element("div", "tool-output pending", `${answer}; sending…`));
  }
  if (part.state === "output-available") node.append(element("div", "tool-output", String(part.output)));
  if (part.state === "output-error") node.append(element("div", "tool-output error", part.errorText));
  if (part.state === "output-denied") {
    const why = part.approval?.reason ? `: ${part.approval.reason}` : "";
    node.append(element("div", "tool-output denied", `Denied${why}`));
  }
  return node;
}

function renderMessage(chat, message) {
  const node = element("div", `message ${message.role}`);
  node.dataset.messageId = message.id;
  node.append(element("div", "role", message.role === "user" ? "you" : "assistant"));
  const sources = element("ol", "sources");
  let steps = 0;
  for (const part of message.parts) {
    if (part.type === "step-start" && steps++ > 0) node.append(element("hr", "step"));
    else if (part.type === "text") node.append(element("p", "text", part.text));
    else if (part.type === "reasoning") node.append(element("p", "reasoning", part.text));
    else if (part.type === "dynamic-tool" || part.type.startsWith("tool-")) node.append(renderTool(chat, part));
    else if (part.type === "source-url") {
      const link = element("a", "source", part.title || part.url);
      link.href = part.url;
      link.rel = "noopener noreferrer";
      link.target = "_blank";
      const item = element("li");
      item.append(link);
      sources.append(item);
    } else if (part.type === "source-document") sources.append(element("li", "source", part.title));
  }
  if (sources.childElementCount) node.append(element("div", "sources-head", "Sources"), sources);
  return node;
}

function waitingForApproval(chat) {
  const last = chat.lastMessage;
  return last?.role === "assistant" && last.parts.some((p) => p.state === "approval-requested");
}

let chat;
let finishReason = null;
let prompts = [];

function render() {
  if (!chat) return;
  list.replaceChildren(...chat.messages.map((message) => renderMessage(chat, message)));
  const busy = chat.status === "submitted" || chat.status === "streaming";
  const waiting = !busy && waitingForApproval(chat);
  send.disabled = prompt.disabled = busy || waiting;
  let state = chat.status;
  let text = `Done (finish reason: ${finishReason}).`;
  if (busy) text = "Streaming…";
  else if (chat.status === "error") text = `Failed: ${chat.error?.message}`;
  else if (waiting) [state, text] = ["approval", "Waiting for your approval."];
  else if (finishReason === null) text = "Ready.";
  status.dataset.status = state;
  status.textContent = text;
}

function suggest() {
  const asked = chat.messages.filter((m) => m.role === "user").length;
  prompt.value = prompts[asked] ?? "";
}

async function start() {
  const id = chatId();
  const response = await fetch(`/api/chats/${id}`);
  const saved = await response.json();
  prompts = saved.prompts;
  chat = new PageChat({
    id,
    messages: await restore(saved.messages),
    changed: render,
    transport: new DefaultChatTransport({ api: "/api/chat" }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onFinish: (done) => {
      finishReason = done.finishReason ?? null;
      document.body.dataset.responses = String(Number(document.body.dataset.responses ?? 0) + 1);
      render();
      suggest();
    },
  });
  suggest();
  render();
  document.body.dataset.loaded = "true";
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = prompt.value.trim();
  if (!text || !chat) return;
  prompt.value = "";
  chat.sendMessage({ text });
});

document.getElementById("new-chat").addEventListener("click", () => {
  history.replaceState(null, "", location.pathname);
  location.reload();
});

start().catch((error) => {
  status.dataset.status = "error";
  status.textContent = `Failed: ${error.message}`;
});
