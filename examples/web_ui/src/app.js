// The page's script: sends the prompt to POST /api/chat and renders the UI message stream as it
// arrives, with the AI SDK's own client code (the same transport and reader useChat runs).
// Built into ../static/app.js by `npm run build` (esbuild, pinned in package.json).
import { DefaultChatTransport, readUIMessageStream } from "ai";

const form = document.getElementById("ask");
const prompt = document.getElementById("prompt");
const send = document.getElementById("send");
const messages = document.getElementById("messages");
const status = document.getElementById("status");
const transport = new DefaultChatTransport({ api: "/api/chat" });

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text; // never innerHTML: model output is untrusted
  return node;
}

function setStatus(state, text) {
  status.dataset.status = state;
  status.textContent = text;
}

function toolInput(part) {
  // While streaming, `input` is the partial value parsed so far; a call whose arguments were not
  // accepted has only `rawInput`, the exact text the model sent.
  if (part.input !== undefined) return JSON.stringify(part.input, null, 1);
  if (part.rawInput !== undefined) return String(part.rawInput);
  return "";
}

function renderTool(part) {
  const node = element("div", "tool");
  node.dataset.toolCallId = part.toolCallId;
  node.dataset.state = part.state;
  const head = element("div", "tool-head");
  head.append(element("span", "tool-name", part.type.slice("tool-".length)));
  head.append(element("span", "tool-state", part.state));
  node.append(head, element("pre", "tool-input", toolInput(part)));
  if (part.state === "output-available") node.append(element("div", "tool-output", String(part.output)));
  if (part.state === "output-error") node.append(element("div", "tool-output error", part.errorText));
  return node;
}

function render(target, message) {
  const nodes = [element("div", "role", "assistant")];
  let steps = 0;
  for (const part of message.parts) {
    if (part.type === "step-start" && steps++ > 0) nodes.push(element("hr", "step"));
    else if (part.type === "text") nodes.push(element("p", "text", part.text));
    else if (part.type === "reasoning") nodes.push(element("p", "reasoning", part.text));
    else if (part.type.startsWith("tool-")) nodes.push(renderTool(part));
  }
  target.replaceChildren(...nodes);
}

async function ask(text) {
  const user = element("div", "message user");
  user.append(element("div", "role", "you"), element("p", "text", text));
  const assistant = element("div", "message assistant");
  messages.replaceChildren(user, assistant);
  setStatus("streaming", "Streaming…");
  let finishReason = null;
  const errors = [];
  const chunks = await transport.sendMessages({
    chatId: "demo",
    messages: [{ id: "user-1", role: "user", parts: [{ type: "text", text }] }],
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  const watched = chunks.pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        if (chunk.type === "finish") finishReason = chunk.finishReason ?? null;
        controller.enqueue(chunk);
      },
    }),
  );
  for await (const message of readUIMessageStream({ stream: watched, onError: (e) => errors.push(e) })) {
    render(assistant, message);
  }
  for (const error of errors) assistant.append(element("p", "error", error.message));
  setStatus(errors.length ? "error" : "done", `Done (finish reason: ${finishReason}).`);
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  send.disabled = true;
  try {
    await ask(prompt.value);
  } catch (error) {
    setStatus("error", `Failed: ${error.message}`);
  } finally {
    send.disabled = false;
  }
});
