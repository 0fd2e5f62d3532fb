// Feeds UI message streams written by llmkit.ui to the AI SDK's own client code and reports
// what it made of them. Driven by tests/test_ui_conformance.py:
//
//     node read_stream.mjs CASES.json > RESULTS.json
//
// CASES.json is [{"name", "sse", "chunkSize", "message"?}]: each "sse" is a whole response body (continuing
// "message", a UIMessage, when given: the page's message after an approval), cut into
// byte chunks of "chunkSize" (so the SSE parser meets chunk boundaries anywhere, mid-character
// included). Each goes through exactly what useChat runs on a response body:
// DefaultChatTransport.processResponseStream (the SSE parser, then every chunk validated
// against uiMessageChunkSchema: a chunk that fails ends the stream with the validation error),
// then readUIMessageStream (processUIMessageStream's message assembly). Independently, every
// `data:` line is also validated on its own against uiMessageChunkSchema, so one bad chunk is
// named even if an earlier one already broke the stream.
//
// RESULTS.json is {"headers": UI_MESSAGE_STREAM_HEADERS, "cases": {...}}; "cases" maps each name to {chunks, dataLines, invalid, errors, message, finishReason,
// lastChunkType, done}: the chunks that came through validated, the `data:` lines in the body
// (without [DONE]), the lines that failed the schema, every error the reader reported ({name,
// message}: an `error` part arrives as a plain Error with its errorText), the final UIMessage,
// the `finish` chunk's finishReason, the type of the last chunk and whether `data: [DONE]` ended
// the body.
import { readFile } from "node:fs/promises";
import {
  DefaultChatTransport,
  readUIMessageStream,
  UI_MESSAGE_STREAM_HEADERS,
  uiMessageChunkSchema,
} from "ai";

function byteStream(text, size) {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

async function validateLines(sse) {
  const schema = uiMessageChunkSchema();
  const lines = sse.split("\n\n").filter((block) => block !== "");
  const invalid = [];
  let dataLines = 0;
  for (const block of lines) {
    if (!block.startsWith("data: ")) {
      invalid.push({ block, error: "not a single data: line" });
      continue;
    }
    const data = block.slice("data: ".length);
    if (data === "[DONE]") continue;
    dataLines += 1;
    const result = await schema.validate(JSON.parse(data));
    if (!result.success) invalid.push({ block, error: String(result.error) });
  }
  return { dataLines, invalid, done: sse.endsWith("data: [DONE]\n\n") };
}

async function read(testCase) {
  const transport = new DefaultChatTransport();
  const chunks = [];
  const errors = [];
  const validated = transport
    .processResponseStream(byteStream(testCase.sse, testCase.chunkSize))
    .pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          chunks.push(chunk);
          controller.enqueue(chunk);
        },
      }),
    );
  let message = null;
  const onError = (error) => errors.push({ name: error?.name ?? "?", message: String(error?.message ?? error) });
  // "message": the page's message this stream continues (after an approval), as useChat does
  const message0 = testCase.message ?? undefined;
  for await (const snapshot of readUIMessageStream({ message: message0, stream: validated, onError })) {
    message = snapshot;
  }
  const finish = chunks.filter((chunk) => chunk.type === "finish").at(-1);
  return {
    chunks: chunks.length,
    errors,
    message,
    finishReason: finish?.finishReason ?? null,
    lastChunkType: chunks.at(-1)?.type ?? null,
    ...(await validateLines(testCase.sse)),
  };
}

const cases = JSON.parse(await readFile(process.argv[2], "utf8"));
const results = {};
for (const testCase of cases) results[testCase.name] = await read(testCase);
process.stdout.write(JSON.stringify({ headers: UI_MESSAGE_STREAM_HEADERS, cases: results }));
